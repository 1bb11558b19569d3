// How deep a request body may nest. Go's decoders take 10,000 levels of JSON or YAML; here the
// walks over a document (the YAML library, patch engines, unknown-field and null scans, type
// checks, validation, managedFields, the response encoders) recurse, and the shallowest of them
// (the yaml package, parsing and writing) exhausts the call stack at about 600 to 800 levels. Bodies
// are therefore refused past MAX_NESTING_DEPTH, well inside every walk's reach, with the
// messages Go's decoders give for input past their own limit. The check runs once per body:
// JSON text is read byte by byte only when it has enough brackets to nest that deep (counting
// them is a native search), YAML from the library's syntax tree, parsed values with an explicit
// stack.

import { Composer, Parser, YAMLParseError, parseDocument, type CST, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions, type ToJSOptions } from 'yaml';

/** Containers (objects and arrays) a body may nest; the outermost object counts as one. */
export const MAX_NESTING_DEPTH = 256;

/** A YAML body nested deeper than the limit, in go-yaml's words. */
export class NestingTooDeep extends Error {
  constructor() {
    super(`yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  }
}

/** Whether the text has at most `max` opening brackets (strings' included): then it cannot nest deeper. */
function fewBrackets(bytes: Uint8Array, max: number): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let count = 0;
  for (const bracket of [0x7b, 0x5b]) {
    for (let i = buf.indexOf(bracket); i !== -1; i = buf.indexOf(bracket, i + 1)) {
      if (++count > max) return false;
    }
  }
  return true;
}

/**
 * The bracket that opens the first container past `max` in JSON text that parses, or undefined.
 * Nesting d levels takes 2d bytes and d opening brackets; text short of either (a native search
 * counts them) is not read byte by byte.
 */
export function jsonNestingBracket(bytes: Uint8Array, max = MAX_NESTING_DEPTH): string | undefined {
  if (bytes.length <= 2 * max || fewBrackets(bytes, max)) return undefined;
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      let j = i + 1;
      for (;;) {
        j = bytes.indexOf(0x22, j);
        let k = j - 1;
        while (bytes[k] === 0x5c) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j++;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return String.fromCharCode(c);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

/** Whether a parsed JSON value nests containers deeper than `max` (the value itself counts as one). */
export function nestsDeeperThan(value: unknown, max = MAX_NESTING_DEPTH): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const d = depths.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(d + 1);
      }
    }
  }
  return false;
}

/**
 * Whether YAML text nests collections deeper than `max`, read from the library's concrete syntax
 * tree (its lexer and parser keep their own stacks, so any text is safe to read this way).
 */
export function yamlNestsDeeperThan(text: string, max = MAX_NESTING_DEPTH): boolean {
  const tokens: CST.Token[] = [];
  const depths: number[] = [];
  for (const token of new Parser().parse(text)) {
    tokens.push(token);
    depths.push(0);
  }
  while (tokens.length > 0) {
    const token = tokens.pop()!;
    const depth = depths.pop()!;
    let inner = depth;
    let children: (CST.Token | null | undefined)[] = [];
    if (token.type === 'document') children = [token.value];
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      inner = depth + 1;
      if (inner > max) return true;
      children = token.items.flatMap((item) => ['key' in item ? item.key : undefined, item.value]);
    }
    for (const child of children) {
      if (!child) continue;
      tokens.push(child);
      depths.push(inner);
    }
  }
  return false;
}

/**
 * Whether YAML text could nest deeper than `max`, from an upper bound found with native searches:
 * every level is a flow bracket, a sequence entry's or explicit key's indicator, or a block
 * mapping indented deeper than the one around it.
 */
export function yamlMayNestDeeperThan(text: string, max: number): boolean {
  let bound = 1;
  for (const indicator of ['[', '{', '- ', '-\n', '-\r', '-\t', '? ', '?\n', '?\r', '?\t']) {
    for (let i = text.indexOf(indicator); i !== -1; i = text.indexOf(indicator, i + 1)) {
      if (++bound > max) return true;
    }
  }
  if (text.endsWith('-') || text.endsWith('?')) bound++;
  let deepestIndent = 0;
  for (let line = 0; line !== -1 && line < text.length; ) {
    let end = line;
    while (text.charCodeAt(end) === 0x20) end++;
    deepestIndent = Math.max(deepestIndent, end - line);
    const next = text.indexOf('\n', end);
    line = next === -1 ? -1 : next + 1;
  }
  return bound + deepestIndent > max;
}

/**
 * yaml's parse, bounded: a document nested past the limit is a NestingTooDeep. The text is
 * measured before the library composes it: composing recurses, and the library's own recovery
 * from running out of stack there can itself crash the process. Aliases can still expand a
 * document past the limit; their values are measured after. `prepare` may adjust the parsed
 * document's nodes before it becomes plain values (apply reads numbers as go-yaml does).
 */
export function parseYamlBounded(
  text: string,
  options: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions,
  prepare?: (doc: Document.Parsed) => void,
): unknown {
  if (yamlMayNestDeeperThan(text, MAX_NESTING_DEPTH) && yamlNestsDeeperThan(text)) throw new NestingTooDeep();
  const doc = composeOne(text, options);
  if (doc.errors.some((e) => e.code === 'RESOURCE_EXHAUSTION')) throw new NestingTooDeep();
  if (doc.errors.length > 0) throw firstError(text, options, doc.errors[0]);
  prepare?.(doc);
  let value: unknown;
  try {
    value = doc.toJS(options);
  } catch (err) {
    if (err instanceof RangeError) throw new NestingTooDeep();
    throw err;
  }
  if (nestsDeeperThan(value)) throw new NestingTooDeep();
  return value;
}

type YamlOptions = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * parseDocument's one document, but the syntax stops at its first error: the library answers
 * every stray token of a body with an error of its own (with a quoted excerpt of the text), so
 * 3 MiB of `]` would keep the event loop for minutes. The first error, as the library words
 * and places it, is all a client is told.
 */
function composeOne(text: string, options: YamlOptions): Document.Parsed {
  const tokens: CST.Token[] = [];
  for (const token of new Parser().parse(text)) {
    if (token.type === 'error') {
      const head = parseDocument(text.slice(0, token.offset + token.source.length), options);
      throw head.errors[0] ?? new YAMLParseError([token.offset, token.offset + token.source.length], 'UNEXPECTED_TOKEN', token.message);
    }
    tokens.push(token);
  }
  let doc: Document.Parsed | undefined;
  for (const next of new Composer(options).compose(tokens, true, text.length)) {
    if (!doc) {
      doc = next;
      continue;
    }
    doc.errors.push(new YAMLParseError(next.range.slice(0, 2) as [number, number], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
    break;
  }
  return doc!;
}

/** Below this a body's errors are worded by parseDocument itself, whatever their number. */
const PRETTY_ERRORS_MAX_BYTES = 64 * 1024;

/**
 * The first of a document's errors as parseDocument words it (with its line and an excerpt): from
 * the whole text when it is small, else from the text up to the error when that reproduces it,
 * else as the composer gave it.
 */
function firstError(text: string, options: YamlOptions, error: YAMLParseError): YAMLParseError {
  const source = text.length <= PRETTY_ERRORS_MAX_BYTES ? text : text.slice(0, error.pos[1]);
  const same = parseDocument(source, options).errors.find((e) => e.code === error.code);
  return same ?? error;
}

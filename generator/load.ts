// Reads spec files: YAML with node positions, checked against spec-format.schema.json. Every
// error carries the file, the line of the offending node and its path in the document.

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import AjvModule, { type ErrorObject } from 'ajv';
import { LineCounter, parseDocument, isMap, isSeq, type Document } from 'yaml';
import specFormat from './spec-format.schema.json' with { type: 'json' };
import { SpecError, SpecErrors } from './spec-error.js';
import type { RawSpec } from './raw-spec.js';

// ajv ships CommonJS; under NodeNext its default export is the module object.
const Ajv = AjvModule as unknown as typeof AjvModule.default;

export interface LoadedSpec {
  /** Path as shown in messages, relative to the working directory: `api-specs/core/v1.yaml`. */
  file: string;
  /** `core/v1`: the spec's id, used in cross-file type references. */
  id: string;
  raw: RawSpec;
  /** Line (1-based) of the node at a path; the nearest existing ancestor when the path is absent. */
  lineOf(path: (string | number)[]): number;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const checkFormat = ajv.compile(specFormat);

function describe(err: ErrorObject): { extra: string[]; problem: string } {
  switch (err.keyword) {
    case 'enum':
      return { extra: [], problem: `must be one of ${(err.params.allowedValues as unknown[]).map(String).join(', ')}` };
    case 'additionalProperties':
      return { extra: [String(err.params.additionalProperty)], problem: 'unknown field' };
    case 'required':
      return { extra: [String(err.params.missingProperty)], problem: 'required field is missing' };
    case 'type':
      return { extra: [], problem: `must be ${String(err.params.type)}` };
    case 'oneOf':
      return { extra: [], problem: 'must set exactly one of the alternatives' };
    default:
      return { extra: [], problem: err.message ?? err.keyword };
  }
}

function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function lineFinder(doc: Document, counter: LineCounter): (path: (string | number)[]) => number {
  return (path) => {
    for (let n = path.length; n >= 0; n--) {
      const prefix = path.slice(0, n);
      const parent = n === 0 ? doc.contents : doc.getIn(prefix.slice(0, -1), true);
      // Prefer the key's position for map entries: that is the line a reader looks for.
      if (n > 0 && isMap(parent)) {
        const pair = parent.items.find((p) => String((p.key as { value?: unknown })?.value ?? p.key) === String(prefix[n - 1]));
        const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
        if (range) return counter.linePos(range[0]).line;
      }
      const node = n === 0 ? doc.contents : doc.getIn(prefix, true);
      const range = (node as { range?: [number, number, number] } | null)?.range;
      if (range && (n === 0 || isMap(parent) || isSeq(parent))) return counter.linePos(range[0]).line;
    }
    return 1;
  };
}

export function loadSpecText(file: string, id: string, text: string): LoadedSpec {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    throw new SpecErrors(
      doc.errors.map((e) => new SpecError(file, e.linePos?.[0]?.line ?? counter.linePos(e.pos[0]).line, '', e.message.split('\n')[0] ?? e.message)),
    );
  }
  const raw = (doc.toJS() ?? {}) as RawSpec;
  const lineOf = lineFinder(doc, counter);
  if (!checkFormat(raw)) {
    const errors = (checkFormat.errors ?? [])
      // oneOf's branch errors only repeat the oneOf failure.
      .filter((e) => !e.schemaPath.includes('/oneOf/'))
      .map((e) => {
        const { extra, problem } = describe(e);
        const path = [...pointerSegments(e.instancePath), ...extra];
        return new SpecError(file, lineOf(path), path.join('.'), problem);
      });
    throw new SpecErrors(errors);
  }
  return { file, id, raw, lineOf };
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return yamlFiles(full);
      return name.endsWith('.yaml') ? [full] : [];
    });
}

/** Loads every spec under `dir`; all files' errors are collected before failing. */
export function loadSpecs(dir: string, cwd = process.cwd()): LoadedSpec[] {
  const specs: LoadedSpec[] = [];
  const errors: SpecError[] = [];
  for (const full of yamlFiles(dir)) {
    const file = relative(cwd, full).split('\\').join('/');
    const id = relative(dir, full).split('\\').join('/').replace(/\.yaml$/, '');
    try {
      specs.push(loadSpecText(file, id, readFileSync(full, 'utf8')));
    } catch (e) {
      if (e instanceof SpecErrors) errors.push(...e.errors);
      else throw e;
    }
  }
  if (errors.length) throw new SpecErrors(errors);
  return specs;
}

// Encoders and decoders behind each negotiated media type: JSON as Go's encoding/json writes it
// (HTML-safe escapes, a trailing newline, or 2-space indentation when pretty), YAML as
// sigs.k8s.io/yaml writes it (keys sorted, block style), and the protobuf envelope.

import { stringify as stringifyYaml } from 'yaml';
import { badRequest, internalError, type Status } from '../errors/status-error.js';
import { CborNestingError, decodeCBOR } from './cbor.js';
import { encodeCBORBody, encodeCBORWatchEventBody } from './kept-cbor.js';
import { NestingTooDeep, jsonNestingBracket, parseYamlBounded } from '../machinery/nesting.js';
import { goJsonError, tooDeepJson } from '../machinery/go-json.js';
import { negotiateInput, type NegotiatedMediaType } from './negotiation.js';
import { decodeObject, encodeObject, encodeWatchEventFrame, STATUS_MESSAGE, type MessageNameFor } from './protobuf/envelope.js';
import type { JsonObject } from './protobuf/message-plan.js';
import { rootOf, type RootSource } from './protobuf/descriptors.js';
import { sortKeysDeep } from '../machinery/go-format.js';
import { recordNumberLiterals } from '../machinery/go-decode/number-literals.js';
import { encodeCachedList, encodeCachedWatchEvent } from './kept-json.js';
import { keptText, writtenText } from '../registry/cacher/serialization-cache.js';
import { stringifyJSON } from '../machinery/deep-json.js';
import { deepYAML } from './deep-yaml.js';

const GO_ESCAPED = /[<>&\u2028\u2029]/g;
const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON text as kube-apiserver sends it. Go escapes <, > and & (and U+2028/2029) inside strings;
 * those characters can only occur inside strings in JSON, so a global replace is exact.
 */
export function encodeJSON(obj: unknown, pretty = false): string {
  // A cached version is served as often as it is read: its compact text is made once.
  if (!pretty && typeof obj === 'object' && obj !== null) return keptText(obj, compactJSON);
  return goEscape(pretty ? stringifyJSON(obj, 2) : `${stringifyJSON(obj)}\n`);
}

function compactJSON(obj: unknown): string {
  // A create's or update's answer comes with its text, made with the stored text.
  return goEscape(`${writtenText(obj) ?? stringifyJSON(obj)}\n`);
}

const goEscape = (text: string): string => (needsEscape(text) ? text.replace(GO_ESCAPED, (c) => GO_ESCAPES[c]) : text);

/** encodeJSON for a response body: a list from the watch cache is assembled from its items' kept bytes. */
function encodeJSONBody(obj: unknown, pretty: boolean): string | Uint8Array {
  const items = (obj as { items?: unknown } | null)?.items;
  return (!pretty && Array.isArray(items) && encodeCachedList(obj as { items: unknown[] }, goEscape)) || encodeJSON(obj, pretty);
}

/** One search per character: each is a fast scan, where one character-class regex over a 10 MB list costs milliseconds. */
const needsEscape = (text: string): boolean =>
  text.includes('<') || text.includes('>') || text.includes('&') || text.includes('\u2028') || text.includes('\u2029');


/** YAML as sigs.k8s.io/yaml renders JSON: sorted keys, unindented sequences, no folding. */
export function encodeYAML(obj: unknown): string {
  const sorted = sortKeysDeep(obj);
  try {
    return stringifyYaml(sorted, { indentSeq: false, lineWidth: 0, minContentWidth: 0 });
  } catch (err) {
    // The package recurses; a value nested deeper than the stack allows is laid out the same way without it.
    if (err instanceof RangeError) return deepYAML(sorted);
    throw err;
  }
}

export interface ResponseEncoder {
  readonly format: NegotiatedMediaType['format'];
  readonly contentType: string;
  /** A whole response body: an object, a list, a Table or a Status. */
  encode(obj: JsonObject | Status, messageName?: string): string | Uint8Array;
  /** One event of a watch stream, framed for the negotiated stream form. */
  encodeWatchEvent(type: string, obj: JsonObject | Status, messageName?: string): string | Uint8Array;
}

function requireMessage(messageName: string | undefined, obj: JsonObject | Status): string {
  if (messageName) return messageName;
  if (obj.kind === 'Status') return STATUS_MESSAGE;
  throw internalError(new Error(`no protobuf message known for kind ${String(obj.kind)}`));
}

/** The encoder of a negotiated media type; protobuf needs the descriptor root. */
export function responseEncoder(negotiated: NegotiatedMediaType, descriptors?: RootSource): ResponseEncoder {
  const { format, contentType, pretty } = negotiated;
  switch (format) {
    case 'json':
      return {
        format,
        contentType,
        encode: (obj) => encodeJSONBody(obj, pretty),
        // Each event is one JSON document and a newline, as Go's json.Encoder writes it.
        encodeWatchEvent: (type, obj) => encodeCachedWatchEvent(type, obj, goEscape) ?? encodeJSON({ type, object: obj }),
      };
    case 'yaml':
      return {
        format,
        contentType,
        encode: (obj) => encodeYAML(obj),
        encodeWatchEvent: () => {
          throw internalError(new Error('YAML has no watch stream form'));
        },
      };
    case 'cbor':
      return {
        format,
        contentType,
        encode: (obj) => encodeCBORBody(obj),
        // One self-described data item per event: the stream is a CBOR sequence.
        encodeWatchEvent: (type, obj) => encodeCBORWatchEventBody(type, obj),
      };
    case 'protobuf': {
      if (!descriptors) throw internalError(new Error('protobuf negotiated without descriptors'));
      const root = rootOf(descriptors);
      return {
        format,
        contentType,
        encode: (obj, messageName) => encodeObject(root, requireMessage(messageName, obj), obj as unknown as JsonObject),
        encodeWatchEvent: (type, obj, messageName) =>
          encodeWatchEventFrame(root, type, requireMessage(messageName, obj), obj as unknown as JsonObject),
      };
    }
  }
}

export interface DecodeInputOptions {
  /** The kind the endpoint takes: fills a missing apiVersion or kind, names the type in errors. */
  expected?: { apiVersion: string; kind: string };
  protobufSupported?: boolean;
  /** The CBORServingAndStorage gate: application/cbor bodies are accepted. */
  cbor?: boolean;
  /** The kind the body is decoded into: where CBOR bodies hold []byte values. */
  typed?: { apiVersion: string; kind: string };
  root?: RootSource;
  messageNameFor?: MessageNameFor;
}

/** kube-apiserver's summary of an undecodable body: JSON-looking text, else hex, cut at 30 bytes. */
function summarize(body: Uint8Array): string {
  if (body.length === 0) return '<empty>';
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 30));
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

/** A body whose apiVersion/kind cannot be read: 400, with the body summarized as kube-apiserver does. */
export function unrecognized(body: Uint8Array, why: string, expected?: { kind: string }) {
  const prefix = expected ? `the object provided is unrecognized (must be of type ${expected.kind}): ` : '';
  return badRequest(`${prefix}${why} (${summarize(body)})`);
}

/**
 * A JSON body as kube-apiserver's JSON serializer reads it: Go's syntax errors (scanned only once
 * JSON.parse has failed), and nesting past MAX_NESTING_DEPTH refused as Go refuses it past its own.
 */
export function parseJsonBody(body: Uint8Array, text: string, expected?: { kind: string }): unknown {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw unrecognized(body, `couldn't get version/kind; json parse error: ${goJsonError(body)}`, expected);
  }
  const bracket = jsonNestingBracket(body);
  if (bracket) throw unrecognized(body, `couldn't get version/kind; json parse error: ${tooDeepJson(bracket)}`, expected);
  // The decoder's type check needs the literals of numbers (YAML's are converted to JSON values first upstream).
  recordNumberLiterals(text, obj);
  return obj;
}

/** A YAML body; nesting past the limit is go-yaml's error, which the serializer returns as it is. */
function parseYamlBody(body: Uint8Array, text: string, expected?: { kind: string }): unknown {
  try {
    return parseYamlBounded(text, { uniqueKeys: false });
  } catch (err) {
    if (err instanceof NestingTooDeep) throw unrecognized(body, err.message, expected);
    throw unrecognized(body, `couldn't get version/kind; yaml parse error: ${(err as Error).message}`, expected);
  }
}

/** encoding/json's error for a top-level value that is not an object, read into kube's TypeMeta struct. */
function notTypeMeta(value: unknown): string {
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  if (value === null || !['array', 'string', 'number', 'bool'].includes(kind)) return 'cannot unmarshal into Go value of type struct';
  return `json: cannot unmarshal ${kind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
}

/**
 * A create or update body in its JSON form. The Content-Type picks the decoder (415 when
 * unsupported); a body that does not decode to an object is a 400.
 */
export function decodeInput(contentType: string | undefined, body: Uint8Array, options: DecodeInputOptions = {}): JsonObject {
  const format = negotiateInput(contentType, { protobufSupported: options.protobufSupported ?? options.root !== undefined, cbor: options.cbor });
  // The kind errors name: the endpoint's, as the create and update handlers' decode errors say.
  const named = options.expected ?? options.typed;
  let obj: unknown;
  if (format === 'protobuf') {
    obj = decodeObject(rootOf(options.root!), body, options.messageNameFor ?? (() => undefined)).object;
  } else if (format === 'cbor') {
    try {
      obj = decodeCBOR(body, options.typed);
    } catch (err) {
      if (err instanceof CborNestingError) throw unrecognized(body, `unable to determine group/version/kind: ${err.message}`, named);
      throw err;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw unrecognized(body, "couldn't get version/kind; cbor decode error: the document is not a map", named);
    }
  } else {
    const text = Buffer.from(body.buffer, body.byteOffset, body.length).toString('utf8');
    // Repeated keys keep the last value, as the non-strict decoders do; fieldValidation reports them.
    obj = format === 'json' ? parseJsonBody(body, text, named) : parseYamlBody(body, text, named);
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw unrecognized(body, `couldn't get version/kind; json parse error: ${notTypeMeta(obj)}`, named);
    }
  }
  const result = obj as JsonObject;
  if (options.expected) {
    if (result.apiVersion === undefined || result.apiVersion === '') result.apiVersion = options.expected.apiVersion;
    if (result.kind === undefined || result.kind === '') result.kind = options.expected.kind;
  }
  return result;
}

// Messages whose JSON form is not "an object with the message's fields": timestamps are RFC 3339
// strings, quantities plain strings, IntOrString a number or a string, embedded objects and
// managed-field sets raw JSON, string lists bare arrays. Each entry writes the message body
// from the JSON value and reads the JSON value back from the body. `undefined` from read means
// the zero value, which JSON leaves out.

import { MAX_NESTING_DEPTH, jsonNestingBracket } from '../../machinery/nesting.js';
import { goJsonSyntaxError } from '../../machinery/go-json.js';
import protobuf from 'protobufjs';
import { formatGoDuration, parseGoDurationNs as parseGoDuration } from '../../machinery/duration.js';
import type { WireWriter } from './wire-writer.js';

export interface SpecialMessage {
  /** Writes the body; `value` is undefined for an absent non-pointer field (Go's zero value). */
  write(w: WireWriter, value: unknown): void;
  read(body: Uint8Array): unknown;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** A protobufjs Reader's int64 is a Long when the `long` package is present, else a number. */
type Int64 = number | { toNumber(): number; toString(): string };

/** An int64 (or uint64) as a JS number; exact up to 2^53, as JSON numbers are. */
export function readInt64(r: protobuf.Reader, unsigned = false): number {
  const v = (unsigned ? r.uint64() : r.int64()) as unknown as Int64;
  return typeof v === 'number' ? v : v.toNumber();
}

function readInt64Big(r: protobuf.Reader): bigint {
  return BigInt((r.int64() as unknown as Int64).toString());
}

function readFields(body: Uint8Array, each: (r: protobuf.Reader, field: number, wireType: number) => boolean): void {
  const r = protobuf.Reader.create(body);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (!each(r, tag >>> 3, tag & 7)) r.skipType(tag & 7);
  }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i;

// Objects share few distinct timestamps (a list's items were mostly written at a handful of
// instants), and parsing dominates encoding a Time, so parsed values are kept, within bounds.
const parsedTimestamps = new Map<string, { seconds: number; nanos: number }>();
const PARSED_TIMESTAMPS_MAX = 4096;

/** Whole Unix seconds and the nanosecond remainder of an RFC 3339 timestamp. */
function parseTimestamp(text: string): { seconds: number; nanos: number } {
  const cached = parsedTimestamps.get(text);
  if (cached) return cached;
  const m = RFC3339.exec(text);
  const ms = m ? Date.parse(`${m[1]}${m[3].toUpperCase()}`) : NaN;
  if (Number.isNaN(ms)) throw new Error(`cannot encode timestamp ${JSON.stringify(text)}: not RFC 3339`);
  const nanos = m![2] ? Number(m![2].slice(0, 9).padEnd(9, '0')) : 0;
  const parsed = { seconds: Math.floor(ms / 1000), nanos };
  if (parsedTimestamps.size >= PARSED_TIMESTAMPS_MAX) parsedTimestamps.clear();
  parsedTimestamps.set(text, parsed);
  return parsed;
}

function readTimestamp(body: Uint8Array): { seconds: number; nanos: number } | undefined {
  // Go's Time unmarshals an empty message as the zero time; any field at all is a real instant.
  if (body.length === 0) return undefined;
  let seconds = 0;
  let nanos = 0;
  readFields(body, (r, field, wt) => {
    if (field === 1 && wt === 0) seconds = readInt64(r);
    else if (field === 2 && wt === 0) nanos = r.int32();
    else return false;
    return true;
  });
  return { seconds, nanos };
}

const isoSeconds = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, 19);

const time: SpecialMessage = {
  write(w, value) {
    if (typeof value !== 'string') return;
    // Kubernetes keeps second precision for Time and always writes nanos = 0.
    w.uint32(0x08);
    w.int64(parseTimestamp(value).seconds);
    w.uint32(0x10);
    w.uint32(0);
  },
  read(body) {
    const ts = readTimestamp(body);
    return ts && `${isoSeconds(ts.seconds)}Z`;
  },
};

const microTime: SpecialMessage = {
  write(w, value) {
    if (typeof value !== 'string') return;
    const { seconds, nanos } = parseTimestamp(value);
    w.uint32(0x08);
    w.int64(seconds);
    w.uint32(0x10);
    w.int32(nanos - (nanos % 1000));
  },
  read(body) {
    const ts = readTimestamp(body);
    if (!ts) return undefined;
    const micros = String(Math.floor(ts.nanos / 1000)).padStart(6, '0');
    return `${isoSeconds(ts.seconds)}.${micros}Z`;
  },
};

const duration: SpecialMessage = {
  write(w, value) {
    w.uint32(0x08);
    w.int64Big(typeof value === 'string' ? parseGoDuration(value) : 0n);
  },
  read(body) {
    let ns = 0n;
    readFields(body, (r, field, wt) => {
      if (field !== 1 || wt !== 0) return false;
      ns = readInt64Big(r);
      return true;
    });
    return formatGoDuration(ns);
  },
};

const quantity: SpecialMessage = {
  write(w, value) {
    // Go marshals the zero Quantity as "0"; JSON may carry a bare number.
    w.uint32(0x0a);
    w.string(value === undefined || value === null ? '0' : String(value));
  },
  read(body) {
    let text = '';
    readFields(body, (r, field, wt) => {
      if (field !== 1 || wt !== 2) return false;
      text = r.string();
      return true;
    });
    return text;
  },
};

const intOrString: SpecialMessage = {
  write(w, value) {
    // All three fields are always written: type (0 int, 1 string), intVal, strVal.
    const isString = typeof value === 'string';
    w.uint32(0x08);
    w.uint32(isString ? 1 : 0);
    w.uint32(0x10);
    w.int32(isString ? 0 : Number(value ?? 0));
    w.uint32(0x1a);
    w.string(isString ? value : '');
  },
  read(body) {
    let type = 0;
    let intVal = 0;
    let strVal = '';
    readFields(body, (r, field, wt) => {
      if (field === 1 && wt === 0) type = readInt64(r);
      else if (field === 2 && wt === 0) intVal = r.int32();
      else if (field === 3 && wt === 2) strVal = r.string();
      else return false;
      return true;
    });
    return type === 1 ? strVal : intVal;
  },
};

/** The raw JSON of an embedded document (RawExtension.raw, FieldsV1.Raw), field 1. */
const rawJSON: SpecialMessage = {
  write(w, value) {
    if (value === undefined || value === null) return;
    w.uint32(0x0a);
    w.string(JSON.stringify(value));
  },
  read(body) {
    let raw: Uint8Array | undefined;
    readFields(body, (r, field, wt) => {
      if (field !== 1 || wt !== 2) return false;
      raw = r.bytes();
      return true;
    });
    if (!raw || raw.length === 0) return undefined;
    const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.length);
    // A watch event embeds a protobuf body (k8s\0...), which has no JSON form: callers that
    // expect one (decodeWatchEvent) read it themselves; here it stays as base64 bytes.
    if (bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0) return bytes.toString('base64');
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new Error(goJsonSyntaxError(bytes, MAX_NESTING_DEPTH) ?? 'unexpected end of JSON input');
    }
    // Embedded JSON is where a protobuf body can nest without bound: held to the limit of JSON bodies.
    const bracket = jsonNestingBracket(bytes);
    if (bracket) throw new Error(`invalid character '${bracket}' exceeded max depth`);
    return value;
  },
};

/** `{items: [string]}` on the wire, a bare array in JSON (ExtraValue, Verbs). */
const stringList: SpecialMessage = {
  write(w, value) {
    if (!Array.isArray(value)) return;
    for (const item of value) {
      w.uint32(0x0a);
      w.string(String(item));
    }
  },
  read(body) {
    const items: string[] = [];
    readFields(body, (r, field, wt) => {
      if (field !== 1 || wt !== 2) return false;
      items.push(r.string());
      return true;
    });
    return items;
  },
};

const SPECIAL: Record<string, SpecialMessage> = {
  [`${META}.Time`]: time,
  [`${META}.MicroTime`]: microTime,
  [`${META}.Duration`]: duration,
  [`${META}.FieldsV1`]: rawJSON,
  [`${META}.Verbs`]: stringList,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': rawJSON,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': quantity,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': intOrString,
  'k8s.io.api.authentication.v1.ExtraValue': stringList,
  'k8s.io.api.authorization.v1.ExtraValue': stringList,
  'k8s.io.api.authentication.v1beta1.ExtraValue': stringList,
  'k8s.io.api.authorization.v1beta1.ExtraValue': stringList,
  'k8s.io.api.certificates.v1.ExtraValue': stringList,
  'k8s.io.api.certificates.v1beta1.ExtraValue': stringList,
};

/** The special JSON mapping of a message, by its fully qualified name (with or without the leading dot). */
export function specialMessage(fullName: string): SpecialMessage | undefined {
  return SPECIAL[fullName.startsWith('.') ? fullName.slice(1) : fullName];
}

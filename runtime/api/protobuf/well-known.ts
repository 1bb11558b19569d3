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
import { stringifyJSON } from '../../machinery/deep-json.js';

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

/**
 * An int64 exactly, past 2^53 too (a Duration's nanoseconds), from the varint's own bytes: the
 * Reader's int64 is exact only as a Long, and the server's bundle leaves `long` out (see
 * esbuild.config.mjs). Failures read as the Reader's own.
 */
function readInt64Big(r: protobuf.Reader): bigint {
  let value = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (r.pos >= r.len) throw new RangeError(`index out of range: ${r.pos} + 1 > ${r.len}`);
    const byte = r.buf[r.pos++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return BigInt.asIntN(64, value);
  }
  throw new Error('invalid varint encoding');
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
    w.string(stringifyJSON(value));
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

/** A message the codec plans from the descriptors, as the schema unions hold JSONSchemaProps. */
export interface PlannedMessage {
  write(w: WireWriter, obj: Record<string, unknown>): void;
  read(body: Uint8Array, target: Record<string, unknown>): void;
}

export type PlanLookup = (messageName: string) => PlannedMessage;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function writeMessage(w: WireWriter, tag: number, plan: PlannedMessage, obj: Record<string, unknown>): void {
  w.uint32(tag);
  const start = w.beginLength();
  plan.write(w, obj);
  w.endLength(start);
}

function readMessage(plan: PlannedMessage, body: Uint8Array): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  plan.read(body, obj);
  return obj;
}

const JSON_SCHEMA_PROPS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

/**
 * JSONSchemaPropsOrArray: `schema` (1) or `jSONSchemas` (2) on the wire; in JSON a schema object,
 * or a list of them. Go writes the list when it has items, else the schema (null when unset).
 */
function schemaOrArray(plans: PlanLookup): SpecialMessage {
  return {
    write(w, value) {
      const plan = plans(JSON_SCHEMA_PROPS);
      if (Array.isArray(value) && value.length > 0) for (const item of value) writeMessage(w, 0x12, plan, isObject(item) ? item : {});
      else if (isObject(value)) writeMessage(w, 0x0a, plan, value);
    },
    read(body) {
      const plan = plans(JSON_SCHEMA_PROPS);
      let schema: Record<string, unknown> | null = null;
      const list: Record<string, unknown>[] = [];
      readFields(body, (r, field, wt) => {
        if (wt !== 2 || (field !== 1 && field !== 2)) return false;
        const obj = readMessage(plan, r.bytes());
        if (field === 1) schema = obj;
        else list.push(obj);
        return true;
      });
      return list.length > 0 ? list : schema;
    },
  };
}

/** JSONSchemaPropsOrBool: `allows` (1, always written) and `schema` (2); in JSON a schema object (which allows) or a boolean. */
function schemaOrBool(plans: PlanLookup): SpecialMessage {
  return {
    write(w, value) {
      w.uint32(0x08);
      w.bool(isObject(value) || value === true);
      if (isObject(value)) writeMessage(w, 0x12, plans(JSON_SCHEMA_PROPS), value);
    },
    read(body) {
      let allows = false;
      let schema: Record<string, unknown> | undefined;
      readFields(body, (r, field, wt) => {
        if (field === 1 && wt === 0) allows = r.bool();
        else if (field === 2 && wt === 2) schema = readMessage(plans(JSON_SCHEMA_PROPS), r.bytes());
        else return false;
        return true;
      });
      return schema ?? allows;
    },
  };
}

/** JSONSchemaPropsOrStringArray: `schema` (1) or `property` (2); in JSON a schema object or a list of property names. */
function schemaOrStringArray(plans: PlanLookup): SpecialMessage {
  return {
    write(w, value) {
      if (Array.isArray(value) && value.length > 0) {
        for (const item of value) {
          w.uint32(0x12);
          w.string(String(item));
        }
      } else if (isObject(value)) writeMessage(w, 0x0a, plans(JSON_SCHEMA_PROPS), value);
    },
    read(body) {
      let schema: Record<string, unknown> | null = null;
      const names: string[] = [];
      readFields(body, (r, field, wt) => {
        if (field === 1 && wt === 2) schema = readMessage(plans(JSON_SCHEMA_PROPS), r.bytes());
        else if (field === 2 && wt === 2) names.push(r.string());
        else return false;
        return true;
      });
      return names.length > 0 ? names : schema;
    },
  };
}

const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/** Special messages holding planned ones: built per descriptor root, from its plans. */
const PLANNED_SPECIAL: Record<string, (plans: PlanLookup) => SpecialMessage> = {
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: schemaOrArray,
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: schemaOrBool,
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: schemaOrStringArray,
};

const SPECIAL: Record<string, SpecialMessage> = {
  // apiextensions' JSON: any JSON value kept as its text in `raw` (1); null is Go's empty Raw.
  [`${APIEXTENSIONS}.JSON`]: rawJSON,
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

/**
 * The special JSON mapping of a message, by its fully qualified name (with or without the leading
 * dot); `plans` gives the messages a union holds, and without it unions have no special mapping.
 */
export function specialMessage(fullName: string, plans?: PlanLookup): SpecialMessage | undefined {
  const name = fullName.startsWith('.') ? fullName.slice(1) : fullName;
  const planned = plans && PLANNED_SPECIAL[name];
  return planned ? planned(plans) : SPECIAL[name];
}

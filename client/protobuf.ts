// Protobuf responses for the typed client, opted into with
//   createClient(config, { codec: await protobufCodec() })
// Reads (get, list, watch, and the answers to writes) ask for application/vnd.kubernetes.protobuf
// first and JSON second; request bodies stay JSON, which kube-apiserver accepts alongside. This
// module alone brings protobufjs and the generated descriptors in, so the core stays small.
//
// The body is kube's envelope: `k8s\0`, then runtime.Unknown {typeMeta{apiVersion, kind}, raw}.
// Messages become their JSON form by Go's rules: zero-valued scalars left out unless the Go field
// is a pointer (descriptor option goPointer), embedded structs (jsonInline) merged into their
// parent, and kube's well-known messages in their JSON shapes (Time, Quantity, IntOrString, ...).

import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import type { ResponseCodec } from './core/codec.js';

type Json = Record<string, unknown>;

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const DESCRIPTORS = new URL('../generated/protobuf/descriptors.json', import.meta.url);

/** Long when protobufjs found the `long` package, else a number. */
type Int64 = number | { toNumber(): number; toString(): string };
const int64 = (v: unknown): number => (typeof v === 'number' ? v : (v as Exclude<Int64, number>).toNumber());

/** Each field of a message body, as (reader, field number, wire type). */
function eachField(body: Uint8Array, visit: (r: protobuf.Reader, field: number, wireType: number) => boolean): void {
  const r = protobuf.Reader.create(body);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (!visit(r, tag >>> 3, tag & 7)) r.skipType(tag & 7);
  }
}

function timestamp(body: Uint8Array): { seconds: number; nanos: number } | undefined {
  if (body.length === 0) return undefined;
  let seconds = 0;
  let nanos = 0;
  eachField(body, (r, field) => {
    if (field === 1) seconds = int64(r.int64());
    else if (field === 2) nanos = r.int32();
    else return false;
    return true;
  });
  return { seconds, nanos };
}

const isoSeconds = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, 19);

/** Go's time.Duration.String(): 1h2m3.5s, 150ms, 0s. */
function goDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  let n = ns < 0n ? -ns : ns;
  const fraction = (value: bigint, unit: bigint) => {
    const whole = value / unit;
    const rest = (value % unit).toString().padStart(unit.toString().length - 1, '0').replace(/0+$/, '');
    return rest ? `${whole}.${rest}` : `${whole}`;
  };
  if (n < 1000n) return `${sign}${n}ns`;
  if (n < 1_000_000n) return `${sign}${fraction(n, 1000n)}µs`;
  if (n < 1_000_000_000n) return `${sign}${fraction(n, 1_000_000n)}ms`;
  let out = '';
  const hours = n / 3_600_000_000_000n;
  n %= 3_600_000_000_000n;
  const minutes = n / 60_000_000_000n;
  n %= 60_000_000_000n;
  if (hours) out += `${hours}h`;
  if (hours || minutes) out += `${minutes}m`;
  return `${sign}${out}${fraction(n, 1_000_000_000n)}s`;
}

function firstBytes(body: Uint8Array): Uint8Array | undefined {
  let raw: Uint8Array | undefined;
  eachField(body, (r, field, wireType) => {
    if (field !== 1 || wireType !== 2) return false;
    raw = r.bytes();
    return true;
  });
  return raw;
}

function stringItems(body: Uint8Array): string[] {
  const items: string[] = [];
  eachField(body, (r, field, wireType) => {
    if (field !== 1 || wireType !== 2) return false;
    items.push(r.string());
    return true;
  });
  return items;
}

/** Messages with a JSON form of their own; undefined means Go's zero value, which JSON omits. */
const WELL_KNOWN: Record<string, (body: Uint8Array) => unknown> = {
  [`${META}.Time`]: (body) => {
    const ts = timestamp(body);
    return ts && `${isoSeconds(ts.seconds)}Z`;
  },
  [`${META}.MicroTime`]: (body) => {
    const ts = timestamp(body);
    return ts && `${isoSeconds(ts.seconds)}.${String(Math.floor(ts.nanos / 1000)).padStart(6, '0')}Z`;
  },
  [`${META}.Duration`]: (body) => {
    let ns = 0n;
    eachField(body, (r, field) => field === 1 && ((ns = BigInt((r.int64() as unknown as Int64).toString())), true));
    return goDuration(ns);
  },
  [`${META}.FieldsV1`]: rawJson,
  [`${META}.Verbs`]: stringItems,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': rawJson,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': (body) => new TextDecoder().decode(firstBytes(body) ?? new Uint8Array()),
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': (body) => {
    let type = 0;
    let intVal = 0;
    let strVal = '';
    eachField(body, (r, field) => {
      if (field === 1) type = int64(r.int64());
      else if (field === 2) intVal = r.int32();
      else if (field === 3) strVal = r.string();
      else return false;
      return true;
    });
    return type === 1 ? strVal : intVal;
  },
  'k8s.io.api.authentication.v1.ExtraValue': stringItems,
  'k8s.io.api.authorization.v1.ExtraValue': stringItems,
};

/** Embedded raw JSON (RawExtension.raw, FieldsV1.Raw); an enveloped protobuf object stays base64, as Go's JSON prints []byte. */
function rawJson(body: Uint8Array): unknown {
  const raw = firstBytes(body);
  if (!raw || raw.length === 0) return undefined;
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.length);
  if (MAGIC.every((b, i) => bytes[i] === b)) return bytes.toString('base64');
  return JSON.parse(bytes.toString('utf8'));
}

function scalar(r: protobuf.Reader, type: string): unknown {
  switch (type) {
    case 'string':
      return r.string();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'uint32':
      return r.uint32();
    case 'int64':
      return int64(r.int64());
    case 'uint64':
      return int64(r.uint64());
    case 'double':
      return r.double();
    case 'bytes': {
      const b = r.bytes();
      return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
    }
    default:
      throw new Error(`protobuf: unsupported field type ${type}`);
  }
}

const isZero = (v: unknown): boolean => v === 0 || v === '' || v === false;

class Decoder {
  constructor(private readonly root: protobuf.Root) {}

  /** A nested message's JSON value. */
  value(type: protobuf.Type, body: Uint8Array): unknown {
    const special = WELL_KNOWN[type.fullName.slice(1)];
    if (special) return special(body);
    const out: Json = {};
    this.into(type, body, out);
    return out;
  }

  /** Reads a message body's fields into `out`. */
  into(type: protobuf.Type, body: Uint8Array, out: Json): void {
    const r = protobuf.Reader.create(body);
    while (r.pos < r.len) {
      const tag = r.uint32();
      const field = type.fieldsById[tag >>> 3];
      if (!field) {
        r.skipType(tag & 7);
        continue;
      }
      this.field(field, r, tag & 7, out);
    }
  }

  private field(field: protobuf.Field, r: protobuf.Reader, wireType: number, out: Json): void {
    const name = field.name;
    if (field instanceof protobuf.MapField) {
      const end = r.uint32() + r.pos;
      let key: unknown = '';
      let value: unknown;
      while (r.pos < end) {
        const t = r.uint32();
        if (t >>> 3 === 1) key = scalar(r, field.keyType);
        else if (t >>> 3 === 2) value = field.resolvedType instanceof protobuf.Type ? this.value(field.resolvedType, r.bytes()) : scalar(r, field.type);
        else r.skipType(t & 7);
      }
      if (value === undefined) value = field.resolvedType instanceof protobuf.Type ? this.value(field.resolvedType, new Uint8Array()) : field.type === 'string' || field.type === 'bytes' ? '' : 0;
      ((out[name] as Json | undefined) ?? (out[name] = {} as Json) as Json)[String(key)] = value;
      return;
    }
    const type = field.resolvedType;
    if (type instanceof protobuf.Type) {
      const body = r.bytes();
      if (field.options?.jsonInline === true && !WELL_KNOWN[type.fullName.slice(1)]) return this.into(type, body, out);
      const value = this.value(type, body);
      if (field.repeated) ((out[name] as unknown[] | undefined) ?? (out[name] = [] as unknown[]) as unknown[]).push(value ?? null);
      else if (value !== undefined) out[name] = value;
      return;
    }
    if (field.repeated) {
      const list = (out[name] as unknown[] | undefined) ?? (out[name] = [] as unknown[]) as unknown[];
      if (wireType === 2 && field.type !== 'string' && field.type !== 'bytes') {
        const end = r.uint32() + r.pos;
        while (r.pos < end) list.push(scalar(r, field.type));
      } else list.push(scalar(r, field.type));
      return;
    }
    const value = scalar(r, field.type);
    if (field.options?.goPointer === true || field.type === 'bytes' || !isZero(value)) out[name] = value;
  }
}

/** `v1` -> core, `rbac.authorization.k8s.io/v1` -> rbac: the package of a kind's message. */
function packageOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return `k8s.io.api.core.${apiVersion}`;
  const group = apiVersion.slice(0, slash);
  return group === 'meta.k8s.io' ? `${META.slice(0, -3)}.${apiVersion.slice(slash + 1)}` : `k8s.io.api.${group.split('.')[0]}.${apiVersion.slice(slash + 1)}`;
}

export interface ProtobufCodecOptions {
  /** The generator's descriptors; default the package's generated/protobuf/descriptors.json. */
  descriptorsPath?: string | URL;
}

export async function protobufCodec(options: ProtobufCodecOptions = {}): Promise<ResponseCodec> {
  const json = JSON.parse(readFileSync(options.descriptorsPath ?? DESCRIPTORS, 'utf8')) as protobuf.INamespace & { '//'?: string };
  delete json['//'];
  const root = protobuf.Root.fromJSON(json);
  root.resolveAll();
  const decoder = new Decoder(root);
  const types = new Map<string, protobuf.Type>();
  const typeOf = (apiVersion: string, kind: string): protobuf.Type => {
    const key = `${apiVersion}/${kind}`;
    let type = types.get(key);
    if (!type) {
      const found = [`${packageOf(apiVersion)}.${kind}`, `${META}.${kind}`].map((n) => root.lookup(n)).find((t) => t instanceof protobuf.Type);
      if (!found) throw new Error(`protobuf: no message for ${apiVersion} ${kind}`);
      type = found as protobuf.Type;
      types.set(key, type);
    }
    return type;
  };

  const decodeObject = (body: Uint8Array): Json => {
    if (!MAGIC.every((b, i) => body[i] === b)) throw new Error('protobuf: the body does not start with the k8s envelope');
    let apiVersion = '';
    let kind = '';
    let raw: Uint8Array = new Uint8Array();
    eachField(body.subarray(4), (r, field) => {
      if (field === 1) {
        eachField(r.bytes(), (t, f) => {
          if (f === 1) apiVersion = t.string();
          else if (f === 2) kind = t.string();
          else return false;
          return true;
        });
      } else if (field === 2) raw = r.bytes();
      else return false;
      return true;
    });
    const object: Json = { apiVersion, kind };
    decoder.into(typeOf(apiVersion, kind), raw, object);
    return object;
  };

  return {
    mediaType: 'application/vnd.kubernetes.protobuf',
    decodeObject,
    decodeWatchEvent(message) {
      let type = '';
      let object: unknown;
      eachField(message, (r, field) => {
        if (field === 1) type = r.string();
        else if (field === 2) {
          const raw = firstBytes(r.bytes());
          object = raw ? decodeObject(raw) : {};
        } else return false;
        return true;
      });
      return { type, object };
    },
  };
}

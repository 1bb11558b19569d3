// Per-message encode and decode plans, compiled once from a protobufjs Root and cached.
// A plan maps a Kubernetes object in its JSON form straight to wire bytes and back, following
// the rules Go's generated marshallers follow:
// - fields in ascending number order, map entries sorted by key;
// - non-pointer scalars are written even when zero, non-pointer messages always (maybe empty);
//   pointer fields (option goPointer) only when set; []byte only when present;
// - embedded Go structs (option jsonInline) are their own message on the wire, but their fields
//   sit directly in the parent JSON object;
// - well-known messages (Time, Quantity, IntOrString, ...) have their own JSON forms.
// Decoding leaves zero-valued non-pointer scalars out, as the Go types' `omitempty` tags do.

import protobuf from 'protobufjs';
import { setMember } from '../../machinery/own-member.js';
import { keepEncoding, lookupEncoding } from '../../registry/cacher/serialization-cache.js';
import { readInt64, specialMessage, type SpecialMessage } from './well-known.js';
import { WireWriter } from './wire-writer.js';

export type JsonObject = Record<string, unknown>;

type Writer = (w: WireWriter, obj: JsonObject) => void;
type FieldReader = (r: protobuf.Reader, wireType: number, target: JsonObject) => void;

export interface MessagePlan {
  readonly name: string;
  /** Writes the message body (no tag, no length) for a JSON object. */
  write(w: WireWriter, obj: JsonObject): void;
  /** Reads a message body into `target` (inline fields merge into it). */
  read(body: Uint8Array, target: JsonObject): void;
}

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;


interface ScalarKind {
  wireType: number;
  zero: unknown;
  put(w: WireWriter, v: unknown): void;
  get(r: protobuf.Reader): unknown;
}

const SCALARS: Record<string, ScalarKind> = {
  string: {
    wireType: 2,
    zero: '',
    put: (w, v) => w.string(typeof v === 'string' ? v : String(v)),
    get: (r) => r.string(),
  },
  bool: { wireType: 0, zero: false, put: (w, v) => w.bool(v === true), get: (r) => r.bool() },
  int32: { wireType: 0, zero: 0, put: (w, v) => w.int32(Number(v) | 0), get: (r) => r.int32() },
  uint32: { wireType: 0, zero: 0, put: (w, v) => w.uint32(Number(v) >>> 0), get: (r) => r.uint32() },
  int64: { wireType: 0, zero: 0, put: (w, v) => w.int64(Math.trunc(Number(v))), get: (r) => readInt64(r) },
  uint64: { wireType: 0, zero: 0, put: (w, v) => w.int64(Math.trunc(Number(v))), get: (r) => readInt64(r, true) },
  double: { wireType: 1, zero: 0, put: (w, v) => w.double(Number(v)), get: (r) => r.double() },
  bytes: {
    wireType: 2,
    zero: '',
    put: (w, v) => w.bytes(Buffer.from(String(v), 'base64')),
    get: (r) => {
      const b = r.bytes();
      return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
    },
  },
};

const plans = new WeakMap<protobuf.Root, Map<string, MessagePlan>>();

/** The cached plan of a message, e.g. `k8s.io.api.core.v1.ConfigMap`. */
export function planFor(root: protobuf.Root, messageName: string): MessagePlan {
  let cache = plans.get(root);
  if (!cache) {
    root.resolveAll();
    cache = new Map();
    plans.set(root, cache);
  }
  const key = messageName.startsWith('.') ? messageName.slice(1) : messageName;
  let plan = cache.get(key);
  if (!plan) {
    plan = compile(root, root.lookupType(key), cache);
    cache.set(key, plan);
  }
  return plan;
}

function compile(root: protobuf.Root, type: protobuf.Type, cache: Map<string, MessagePlan>): MessagePlan {
  const writers: Writer[] = [];
  const readers: (FieldReader | undefined)[] = [];
  // Members Go's JSON writes even when zero (option alwaysEmitted), with the value they then show.
  const emitted: [string, unknown][] = [];
  const plan: MessagePlan = {
    name: type.fullName.slice(1),
    write(w, obj) {
      for (let i = 0; i < writers.length; i++) writers[i](w, obj);
    },
    read(body, target) {
      const r = protobuf.Reader.create(body);
      while (r.pos < r.len) {
        const tag = r.uint32();
        const read = readers[tag >>> 3];
        if (read) read(r, tag & 7, target);
        else r.skipType(tag & 7);
      }
      for (let i = 0; i < emitted.length; i++) if (target[emitted[i][0]] === undefined) target[emitted[i][0]] = emitted[i][1];
    },
  };
  // Registered before the fields compile, so self-referencing messages find it.
  cache.set(plan.name, plan);
  const fields = [...type.fieldsArray].sort((a, b) => a.id - b.id);
  for (const field of fields) {
    if (field.options && 'alwaysEmitted' in field.options) emitted.push([jsonNameOf(field), field.options.alwaysEmitted]);
    const [write, read] = compileField(root, field);
    writers.push(write);
    readers[field.id] = read;
  }
  return plan;
}

function nestedPlan(root: protobuf.Root, field: protobuf.FieldBase): MessagePlan | SpecialMessage {
  const fullName = field.resolvedType!.fullName;
  return specialMessage(fullName, (name) => planFor(root, name)) ?? planFor(root, fullName);
}

/** The JSON member a field reads and writes: its wire name unless the descriptor says otherwise (`$ref`). */
function jsonNameOf(field: protobuf.FieldBase): string {
  const jsonName: unknown = field.options?.jsonName;
  return typeof jsonName === 'string' ? jsonName : field.name;
}

function isSpecial(target: MessagePlan | SpecialMessage): target is SpecialMessage {
  return !('name' in target);
}

/**
 * Writes the body of an object, reusing the bytes kept for its stored version when it came from
 * the watch cache (list items, watch events), and keeping them when it is encoded first.
 */
export function writeObjectBody(w: WireWriter, plan: MessagePlan, obj: JsonObject): void {
  const kept = lookupEncoding(obj, plan.name);
  if (kept) return w.raw(kept);
  const start = w.pos;
  plan.write(w, obj);
  // A copy: the writer's buffer is reused and may move.
  if (kept === null) keepEncoding(obj, plan.name, new Uint8Array(w.buf.subarray(start, w.pos)));
}

/** A repeated message field's item with its tag and length: kept bytes need no length fix-up. */
function writeItem(w: WireWriter, tag: number, plan: MessagePlan, item: unknown): void {
  const obj = (item ?? EMPTY) as JsonObject;
  const kept = item ? lookupEncoding(obj, plan.name) : undefined;
  w.uint32(tag);
  if (kept) {
    w.uint32(kept.length);
    w.raw(kept);
    return;
  }
  const start = w.beginLength();
  plan.write(w, obj);
  if (kept === null) keepEncoding(obj, plan.name, new Uint8Array(w.buf.subarray(start + 1, w.pos)));
  w.endLength(start);
}

/**
 * The items of a repeated message field. A list from the watch cache has every item's bytes kept:
 * their total is reserved first, so 10 MB of items grow the buffer once instead of doubling it a
 * dozen times (copying each time, and leaving up to twice the memory the body needs).
 */
function writeItems(w: WireWriter, tag: number, plan: MessagePlan, list: unknown[]): void {
  const kept = new Array<Uint8Array | null | undefined>(list.length);
  let size = 0;
  const tagSize = varintSize(tag);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const bytes = item ? lookupEncoding(item as JsonObject, plan.name) : undefined;
    kept[i] = bytes;
    if (bytes) size += tagSize + varintSize(bytes.length) + bytes.length;
  }
  w.ensure(size, true);
  for (let i = 0; i < list.length; i++) {
    const bytes = kept[i];
    if (!bytes) {
      writeItem(w, tag, plan, list[i]);
      continue;
    }
    w.uint32(tag);
    w.uint32(bytes.length);
    w.raw(bytes);
  }
}

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value >>>= 7;
    size++;
  }
  return size;
}

/** Writes a nested message body from a JSON value (undefined for Go's zero value). */
function bodyWriter(target: MessagePlan | SpecialMessage): (w: WireWriter, v: unknown) => void {
  if (isSpecial(target)) return (w, v) => target.write(w, v ?? undefined);
  return (w, v) => target.write(w, (v ?? EMPTY) as JsonObject);
}

/** Reads a nested message body into its JSON value (undefined for a zero special value). */
function bodyReader(target: MessagePlan | SpecialMessage): (body: Uint8Array) => unknown {
  if (isSpecial(target)) return (body) => target.read(body);
  return (body) => {
    const obj: JsonObject = {};
    target.read(body, obj);
    return obj;
  };
}

function compileField(root: protobuf.Root, field: protobuf.FieldBase): [Writer, FieldReader] {
  const name = jsonNameOf(field);
  const pointer = field.options?.goPointer === true;
  const inline = field.options?.jsonInline === true;
  if (field instanceof protobuf.MapField) return compileMap(root, field);

  if (field.resolvedType instanceof protobuf.Type) {
    const target = nestedPlan(root, field);
    const tag = (field.id << 3) | 2;
    if (inline && !isSpecial(target)) {
      return [
        (w, obj) => {
          w.uint32(tag);
          const start = w.beginLength();
          target.write(w, obj);
          w.endLength(start);
        },
        (r, _wt, into) => target.read(r.bytes(), into),
      ];
    }
    const writeBody = bodyWriter(target);
    const readBody = bodyReader(target);
    if (field.repeated) {
      // The items of a list may be objects of the watch cache, with their bytes kept.
      const special = isSpecial(target);
      return [
        (w, obj) => {
          const list = obj[name];
          if (!Array.isArray(list)) return;
          if (!special) return writeItems(w, tag, target, list);
          for (let i = 0; i < list.length; i++) {
            w.uint32(tag);
            const start = w.beginLength();
            writeBody(w, list[i]);
            w.endLength(start);
          }
        },
        (r, _wt, into) => {
          const value = readBody(r.bytes());
          ((into[name] as unknown[] | undefined) ?? (into[name] = [] as unknown[]) as unknown[]).push(value ?? null);
        },
      ];
    }
    return [
      (w, obj) => {
        const value = obj[name];
        if (pointer && (value === undefined || value === null)) return;
        w.uint32(tag);
        const start = w.beginLength();
        writeBody(w, value);
        w.endLength(start);
      },
      (r, _wt, into) => {
        const value = readBody(r.bytes());
        if (value !== undefined) into[name] = value;
      },
    ];
  }

  const scalar = SCALARS[field.type];
  if (!scalar) throw new Error(`protobuf: unsupported field type ${field.type} of ${field.parent?.fullName}.${name}`);
  const tag = (field.id << 3) | scalar.wireType;
  if (field.repeated) {
    return [
      (w, obj) => {
        const list = obj[name];
        if (!Array.isArray(list)) return;
        for (let i = 0; i < list.length; i++) {
          w.uint32(tag);
          scalar.put(w, list[i] ?? scalar.zero);
        }
      },
      (r, wireType, into) => {
        const list = (into[name] as unknown[] | undefined) ?? (into[name] = [] as unknown[]) as unknown[];
        // Decoders accept packed numeric lists too, whatever the writer chose.
        if (wireType === 2 && scalar.wireType !== 2) {
          const end = r.uint32() + r.pos;
          while (r.pos < end) list.push(scalar.get(r));
        } else {
          list.push(scalar.get(r));
        }
      },
    ];
  }
  // A Go []byte is written whenever it is non-nil, which from JSON means "present".
  const onlyWhenSet = pointer || field.type === 'bytes';
  return [
    (w, obj) => {
      let value = obj[name];
      if (value === undefined || value === null) {
        if (onlyWhenSet) return;
        value = scalar.zero;
      }
      w.uint32(tag);
      scalar.put(w, value);
    },
    (r, _wt, into) => {
      const value = scalar.get(r);
      if (pointer || (value !== scalar.zero && value !== '')) into[name] = value;
    },
  ];
}

function compileMap(root: protobuf.Root, field: protobuf.MapField): [Writer, FieldReader] {
  const name = jsonNameOf(field);
  const tag = (field.id << 3) | 2;
  const key = SCALARS[field.keyType];
  const keyTag = (1 << 3) | key.wireType;
  let writeValue: (w: WireWriter, v: unknown) => void;
  let readValue: (r: protobuf.Reader) => unknown;
  let zeroValue: () => unknown;
  if (field.resolvedType instanceof protobuf.Type) {
    const target = nestedPlan(root, field);
    const writeBody = bodyWriter(target);
    const readBody = bodyReader(target);
    writeValue = (w, v) => {
      w.uint32(0x12);
      const start = w.beginLength();
      writeBody(w, v);
      w.endLength(start);
    };
    readValue = (r) => readBody(r.bytes());
    zeroValue = () => readBody(new Uint8Array(0));
  } else {
    const value = SCALARS[field.type];
    const valueTag = (2 << 3) | value.wireType;
    const isBytes = field.type === 'bytes';
    writeValue = (w, v) => {
      // A nil []byte value (JSON null) is left out of the entry; every other value is written.
      if ((v === null || v === undefined) && isBytes) return;
      w.uint32(valueTag);
      value.put(w, v ?? value.zero);
    };
    readValue = (r) => value.get(r);
    zeroValue = () => value.zero;
  }
  return [
    (w, obj) => {
      const map = obj[name] as JsonObject | undefined | null;
      if (!map) return;
      const keys = Object.keys(map).sort();
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        w.uint32(tag);
        const start = w.beginLength();
        w.uint32(keyTag);
        key.put(w, k);
        writeValue(w, map[k]);
        w.endLength(start);
      }
    },
    (r, _wt, into) => {
      const end = r.uint32() + r.pos;
      let k: unknown = key.zero;
      let v: unknown;
      while (r.pos < end) {
        const t = r.uint32();
        if (t >>> 3 === 1) k = key.get(r);
        else if (t >>> 3 === 2) v = readValue(r);
        else r.skipType(t & 7);
      }
      const map = (into[name] as JsonObject | undefined) ?? (into[name] = {} as JsonObject);
      setMember(map as JsonObject, String(k), v === undefined ? zeroValue() : v);
    },
  ];
}

/** Encodes one message body on its own (no envelope). */
export function encodeMessage(root: protobuf.Root, messageName: string, obj: JsonObject): Uint8Array {
  const w = new WireWriter();
  planFor(root, messageName).write(w, obj);
  return w.finish();
}

/** Decodes one message body on its own (no envelope) into its JSON form. */
export function decodeMessage(root: protobuf.Root, messageName: string, body: Uint8Array): JsonObject {
  const obj: JsonObject = {};
  planFor(root, messageName).read(body, obj);
  return obj;
}

const recursive = new WeakMap<protobuf.Root, Map<string, boolean>>();

/**
 * Whether a message can hold a message that holds itself (a CRD's JSONSchemaProps): only such a
 * body can nest without bound on the wire, so only its decoded form needs a depth check.
 */
export function messageMayRecurse(root: protobuf.Root, messageName: string): boolean {
  const key = messageName.startsWith('.') ? messageName.slice(1) : messageName;
  let known = recursive.get(root);
  if (!known) recursive.set(root, (known = new Map()));
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  root.resolveAll();
  // Depth-first over the message graph: an edge back to a message still being visited is a cycle.
  const visiting = new Set<protobuf.Type>();
  const done = new Set<protobuf.Type>();
  const cyclic = (type: protobuf.Type): boolean => {
    if (visiting.has(type)) return true;
    if (done.has(type)) return false;
    visiting.add(type);
    for (const field of type.fieldsArray) {
      const next = field.resolvedType;
      if (next instanceof protobuf.Type && cyclic(next)) return true;
    }
    visiting.delete(type);
    done.add(type);
    return false;
  };
  const found = cyclic(root.lookupType(key));
  known.set(key, found);
  return found;
}

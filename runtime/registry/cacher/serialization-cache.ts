// Serializations kept per stored object version, after kube-apiserver's cachingObject: an object
// the watch cache hands out (to a list from the cache, to every watcher of a change) remembers the
// storage KeyValue it was decoded from, and an encoder may keep the bytes it produced for it with
// that KeyValue. Each version is then encoded once per wire format however many lists and
// watchers send it; the bytes go when the cache lets go of the version.
//
// The bytes stand for the object as decoded, less apiVersion and kind (list items drop those, and
// a list item is known as the same version: protobuf messages do not carry them; a format whose
// bytes do, as a JSON watch event's frame, is looked up only for an object with its own
// apiVersion and kind, which among the objects known as a version is the decoded one). They are used
// only while the object still carries the version's resourceVersion; code that changes a decoded
// object otherwise must work on a copy (a copy has no origin: origins are kept by identity).

import type { KeyValue } from '../../storage/interface.js';
import type { KubeObject } from '../../machinery/object.js';
import type { Codec } from '../codec.js';

/**
 * One stored version (a KeyValue) as its decoded objects know it: the resourceVersion they carry
 * while they are that version, and the bytes kept for it by format. Shared by every object known
 * as the version (the decoded object, its list item, another view's decode), so a LIST finds an
 * item's kept bytes with one lookup, its origin's.
 */
interface Version {
  readonly resourceVersion: string;
  encodings: Map<string, Uint8Array> | undefined;
}

/** Decoded object to its version: kept beside the object, so its shape (and JSON's speed) is untouched. */
const origins = new WeakMap<object, Version>();

/** Each KeyValue's version, made when an object is first decoded from it. */
const versions = new WeakMap<KeyValue, Version>();

/** Each codec's decoded objects by the KeyValue they came from (two views of a kind decode apart). */
const decodedByCodec = new WeakMap<Codec, WeakMap<KeyValue, KubeObject>>();

/** Objects decodeFromCache made: deeply frozen, so whatever is derived from one alone stays true. */
const sharedVersions = new WeakSet<object>();

/** JSON text of shared versions, kept as long as the version is (see encodeJSON). */
const jsonTexts = new WeakMap<object, string>();

/** List items (the object less apiVersion and kind) by the decoded object they stand for. */
const listItems = new WeakMap<KubeObject, KubeObject>();

/**
 * The objects this process just wrote, with the codec that encoded each, the bytes it made and
 * the storage key they went to. A transient reader is sent each change as it happens, and the
 * change this process wrote is then the object it wrote (codec.stored: decode(encode(obj)) without
 * the parse) rather than a parse of the bytes for that reader alone: the garbage collector's
 * informers follow every kind, and the parse of a created custom resource was about 5% of its
 * create. A reader is handed only the newest write of a key, and an entry goes when a reader takes
 * it, when WRITTEN_KEPT newer writes have come after it, or a second after the first write noted
 * since the last sweep: what no reader takes (a write refused, a kind nobody follows) is not kept.
 * Objects larger than WRITTEN_MAX_LENGTH are not noted.
 *
 * A ring of slots, not a Map: a Map that every write joined and left kept the written objects
 * alive through V8's young collections into the old generation, as the request deadlines' Set did
 * (deadlines.ts): 0.56 MB promoted per scavenge under wrk CREATE with the Map, 0.33 with the ring.
 */
const WRITTEN_KEPT = 64;
const WRITTEN_MAX_LENGTH = 64 * 1024;
interface Written {
  key: string | undefined;
  codec: Codec | undefined;
  value: string | undefined;
  obj: KubeObject | undefined;
}
const written: Written[] = Array.from({ length: WRITTEN_KEPT }, () => ({ key: undefined, codec: undefined, value: undefined, obj: undefined }));
/** The slot the next write takes; the newest is the one before it. */
let writtenNext = 0;
let writtenSweep: ReturnType<typeof setTimeout> | undefined;

function forget(slot: Written): void {
  slot.key = slot.codec = slot.value = slot.obj = undefined;
}

/** Notes that `codec` encoded `obj` as `value` to write it to `key`: see `written`. */
export function noteWritten(codec: Codec, key: string, value: string, obj: KubeObject): void {
  if (value.length > WRITTEN_MAX_LENGTH) return;
  const slot = written[writtenNext]!;
  writtenNext = (writtenNext + 1) % WRITTEN_KEPT;
  slot.key = key;
  slot.codec = codec;
  slot.value = value;
  slot.obj = obj;
  if (writtenSweep === undefined) {
    writtenSweep = setTimeout(() => {
      for (const slot of written) forget(slot);
      for (const slot of writtenTexts) dropWrittenText(slot);
      writtenSweep = undefined;
    }, 1000);
    writtenSweep.unref?.();
  }
}

/** The object written as `kv` holds it, as decoded by `codec`, when this process noted that write. */
function takeWritten(codec: Codec, kv: KeyValue): KubeObject | undefined {
  // Newest first: a change is read soon after its write, and an older write of the key is replaced.
  for (let n = 1; n <= WRITTEN_KEPT; n++) {
    const slot = written[(writtenNext - n + WRITTEN_KEPT) % WRITTEN_KEPT]!;
    if (slot.key !== kv.key) continue;
    if (slot.codec !== codec || slot.value !== kv.value) return undefined;
    const obj = slot.obj!;
    forget(slot);
    return codec.stored(obj, kv.modRevision);
  }
  return undefined;
}

/**
 * Freezes a decoded JSON value all the way down: it is shared by every reader of its version.
 * Walked with an explicit stack, as JSON may nest 10,000 levels.
 */
function deepFreeze(value: unknown): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const key in v) pending.push((v as Record<string, unknown>)[key]);
  }
}

/**
 * `codec.decode` of a KeyValue the watch cache holds, remembering where the object came from.
 * A version is decoded once however many lists and watchers read it, as kube-apiserver's watch
 * cache keeps decoded objects; the object is frozen, so a reader that means to change it must
 * copy it (an accidental write throws rather than corrupting what others are sent).
 */
export function decodeFromCache(codec: Codec, kv: KeyValue, remember = true): KubeObject {
  let decoded = decodedByCodec.get(codec);
  if (!decoded) decodedByCodec.set(codec, (decoded = new WeakMap()));
  let obj = decoded.get(kv);
  if (!obj) {
    // A transient reader's decode is its own: the cache does not grow by it, and as nobody else
    // is handed it, it is neither frozen nor known as the version (whose encodings it never reads
    // or keeps: the transient readers are the server's own informers, which serialize nothing).
    // A change this process wrote is the object it wrote, shared with the writer's answer.
    if (!remember) return takeWritten(codec, kv) ?? codec.decode(kv.value, kv.modRevision);
    obj = codec.decode(kv.value, kv.modRevision);
    deepFreeze(obj);
    sharedVersions.add(obj);
    tag(obj, kv);
    decoded.set(kv, obj);
  }
  return obj;
}

function tag(obj: object, kv: KeyValue): void {
  let version = versions.get(kv);
  if (!version) versions.set(kv, (version = { resourceVersion: String(kv.modRevision), encodings: undefined }));
  origins.set(obj, version);
}

/** A list item: the object without apiVersion and kind, still known as the cache's version. */
export function withoutTypeMeta(obj: KubeObject): KubeObject {
  const kept = listItems.get(obj);
  if (kept) return kept;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  const version = origins.get(obj);
  if (version) {
    origins.set(rest, version);
    if (Object.isFrozen(obj)) {
      Object.freeze(rest);
      listItems.set(obj, rest);
    }
  }
  return rest;
}

/** The version an object decoded from the cache is known as, while it still carries its resourceVersion. */
function originOf(obj: object): Version | undefined {
  const version = origins.get(obj);
  if (version === undefined) return undefined;
  return (obj as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion === version.resourceVersion ? version : undefined;
}

/** The bytes kept for `obj` under `format` (e.g. a protobuf message name), if any. */
export function cachedEncoding(obj: object, format: string): Uint8Array | undefined {
  return lookupEncoding(obj, format) ?? undefined;
}

/**
 * One lookup for encoders: the kept bytes, null when `obj` is cacheable but has none yet under
 * `format`, undefined when it is not cacheable at all.
 */
export function lookupEncoding(obj: object, format: string): Uint8Array | null | undefined {
  const version = originOf(obj);
  if (!version) return undefined;
  return version.encodings?.get(format) ?? null;
}

/** Keeps `bytes` (the caller's own copy) as the encoding of `obj` under `format`. */
export function keepEncoding(obj: object, format: string, bytes: Uint8Array): void {
  const version = originOf(obj);
  if (!version) return;
  (version.encodings ??= new Map()).set(format, bytes);
}

/**
 * The JSON texts of writes' answers made with their stored texts (Codec.answer), until each
 * answer is encoded: a ring of slots searched by identity, newest first, as an answer is encoded
 * within the same turn of the event loop as it is made. Not a WeakMap: its set and delete took
 * about 1 µs of a ConfigMap's create in a profile, a third of the stringify the text saves. A
 * slot holds what the text was made from, and the text is used only while the answer still has
 * that metadata, resourceVersion, apiVersion and kind; the sweep of `written` empties the slots.
 */
const WRITTEN_TEXTS = 64;
interface WrittenText {
  obj: object | undefined;
  text: string | undefined;
  metadata: unknown;
  resourceVersion: unknown;
  apiVersion: unknown;
  kind: unknown;
}
const writtenTexts: WrittenText[] = Array.from({ length: WRITTEN_TEXTS }, () => ({
  obj: undefined,
  text: undefined,
  metadata: undefined,
  resourceVersion: undefined,
  apiVersion: undefined,
  kind: undefined,
}));
let writtenTextNext = 0;
/** Slots holding a text: none, and a lookup (every JSON answer that is not a cached version's) ends at once. */
let writtenTextsHeld = 0;

function dropWrittenText(slot: WrittenText): void {
  if (slot.obj !== undefined) writtenTextsHeld--;
  slot.obj = slot.text = slot.metadata = undefined;
}

/**
 * Keeps `text` as the JSON (stringifyJSON's) of `obj`, a write's answer, for its one encoding to
 * take. The answer goes to its writer, who sends it as it is (the response of a create or update).
 */
export function keepWrittenText(obj: KubeObject, text: string): void {
  const slot = writtenTexts[writtenTextNext]!;
  writtenTextNext = (writtenTextNext + 1) % WRITTEN_TEXTS;
  const metadata = obj.metadata;
  if (slot.obj === undefined) writtenTextsHeld++;
  slot.obj = obj;
  slot.text = text;
  slot.metadata = metadata;
  slot.resourceVersion = metadata?.resourceVersion;
  slot.apiVersion = obj.apiVersion;
  slot.kind = obj.kind;
}

/** The JSON text kept for a write's answer `obj`, taken: a later encoding of it stringifies. */
export function writtenText(obj: unknown): string | undefined {
  if (writtenTextsHeld === 0 || obj === null || typeof obj !== 'object') return undefined;
  for (let n = 1; n <= WRITTEN_TEXTS; n++) {
    const slot = writtenTexts[(writtenTextNext - n + WRITTEN_TEXTS) % WRITTEN_TEXTS]!;
    if (slot.obj !== obj) continue;
    const { text, metadata, resourceVersion, apiVersion, kind } = slot;
    dropWrittenText(slot);
    const o = obj as KubeObject;
    const unchanged = o.metadata === metadata && o.metadata?.resourceVersion === resourceVersion && o.apiVersion === apiVersion && o.kind === kind;
    return unchanged ? text : undefined;
  }
  return undefined;
}

/**
 * `encode(obj)`, computed once per shared version: a version decoded by decodeFromCache is frozen
 * all the way down, so its text cannot change; anything else is encoded every time.
 */
export function keptText(obj: object, encode: (obj: object) => string): string {
  if (!sharedVersions.has(obj)) return encode(obj);
  let text = jsonTexts.get(obj);
  if (text === undefined) {
    text = encode(obj);
    jsonTexts.set(obj, text);
  }
  return text;
}

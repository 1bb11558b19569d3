// CBOR kept per stored version, as kept-json.ts keeps JSON and kube-apiserver's cachingObject
// keeps each encoding of a cached object: a list item of the watch cache is encoded once per
// version and every later list copies its bytes into one buffer of the list's exact size (encoding
// 10,000 items walks every key and string of each, tens of milliseconds); an object's document is
// encoded once for every GET of it, and a watch event's document once however many watchers get
// it. The results are byte for byte encodeCBOR's: an item's encoding does not depend on where it
// stands (definite lengths, each map's keys sorted within it).

import { bodyBuffer } from '../machinery/http/lent-bodies.js';
import { isPlainObject } from '../machinery/json-values.js';
import { keepEncoding, lookupEncoding } from '../registry/cacher/serialization-cache.js';
import { byteShapeFor, itemShape, memberShape, type ByteShape } from './cbor-bytes.js';
import { encodeJsonAsCbor, encodeJsonAsCborWith } from './cbor-encode.js';
import { SELF_DESCRIBED_CBOR, encodeCBOR, encodeCBORWatchEvent } from './cbor.js';

type TypeMeta = { apiVersion?: unknown; kind?: unknown };

const NO_PREFIX = new Uint8Array(0);

const isObject = (v: unknown): v is TypeMeta & Record<string, unknown> => isPlainObject(v);

/** Among the objects known as a cached version, only the decoded one carries apiVersion and kind. */
const isDecodedObject = (v: unknown): v is TypeMeta & Record<string, unknown> => isObject(v) && v.apiVersion !== undefined && v.kind !== undefined;

/**
 * One list item as CBOR (no self-described tag: it is inside the list's document). Kept item bytes
 * stand for the object less apiVersion and kind; the []byte places, and so the format, follow the
 * list's type (two views of a kind, e.g. core/v1 and events.k8s.io/v1 Events, are read apart).
 */
function itemCBOR(item: unknown, format: string, shape: ByteShape | undefined): Uint8Array {
  const cacheable = isObject(item) && item.apiVersion === undefined && item.kind === undefined;
  const kept = cacheable ? lookupEncoding(item, format) : undefined;
  if (kept) return kept;
  const bytes = encodeJsonAsCbor(NO_PREFIX, item === undefined ? null : item, shape);
  if (kept === null) keepEncoding(item as object, format, bytes);
  return bytes;
}

/**
 * encodeCBOR(list) for a list whose items come from the watch cache; undefined when the first
 * item does not (a list read from storage gains nothing from item bytes).
 */
function encodeCachedList(list: TypeMeta & Record<string, unknown>, items: unknown[]): Uint8Array | undefined {
  const format = `cbor-item:${String(list.apiVersion)}/${String(list.kind)}`;
  if (items.length === 0 || !isObject(items[0]) || lookupEncoding(items[0], format) === undefined) return undefined;
  const shape = byteShapeFor(list.apiVersion, list.kind);
  const item = itemShape(memberShape(shape, 'items'));
  const parts = new Array<Uint8Array>(items.length);
  for (let i = 0; i < items.length; i++) parts[i] = itemCBOR(items[i], format, item);
  return encodeJsonAsCborWith(SELF_DESCRIBED_CBOR, list, shape, { name: 'items', parts, array: true }, bodyBuffer);
}

/** encodeCBOR(obj) of an object of the watch cache, kept per version; undefined for any other object. */
function cachedDocument(obj: unknown): Uint8Array | undefined {
  if (!isDecodedObject(obj)) return undefined;
  const format = `cbor:${String(obj.apiVersion)}/${String(obj.kind)}`;
  const kept = lookupEncoding(obj, format);
  if (kept !== null) return kept;
  const bytes = encodeCBOR(obj);
  keepEncoding(obj, format, bytes);
  return bytes;
}

/** A response body as encodeCBOR writes it, from kept encodings where the watch cache has them. */
export function encodeCBORBody(obj: unknown): Uint8Array {
  const items = isObject(obj) ? obj.items : undefined;
  return (Array.isArray(items) && encodeCachedList(obj as TypeMeta & Record<string, unknown>, items)) || cachedDocument(obj) || encodeCBOR(obj);
}

/**
 * One watch event as encodeCBORWatchEvent writes it. For an object of the watch cache the event
 * is kept per type, around the object's kept document, so that every watcher is sent the same bytes.
 */
export function encodeCBORWatchEventBody(type: string, obj: unknown): Uint8Array {
  if (!isDecodedObject(obj)) return encodeCBORWatchEvent(type, obj);
  const format = `cbor-event:${type}:${String(obj.apiVersion)}/${String(obj.kind)}`;
  const kept = lookupEncoding(obj, format);
  if (kept) return kept;
  if (kept === undefined) return encodeCBORWatchEvent(type, obj);
  const document = cachedDocument(obj)!;
  const object = document.subarray(SELF_DESCRIBED_CBOR.length);
  const bytes = encodeJsonAsCborWith(SELF_DESCRIBED_CBOR, { type }, undefined, { name: 'object', parts: [object], array: false });
  keepEncoding(obj, format, bytes);
  return bytes;
}

// JSON kept per stored version, as kube-apiserver's cacher remembers each cached object's
// encodings (serialization-cache.ts keeps the bytes on the version): a list item of the watch
// cache is encoded once per version and every later list copies its bytes (stringifying 10,000
// items costs tens of milliseconds, copying them one or two, and the socket then takes bytes
// without converting a 10 MB string to UTF-8 again); a watch event's frame is encoded once
// however many watchers get it. The results are byte for byte encodeJSON's.

import { keepEncoding, lookupEncoding } from '../registry/cacher/serialization-cache.js';
import { stringifyJSON } from '../machinery/deep-json.js';
import { bodyBuffer } from '../machinery/http/lent-bodies.js';

/**
 * Kept item JSON is the object less apiVersion and kind, as a typed list's items are written;
 * one stored version can be read through two views (core/v1 and events.k8s.io/v1 Events), each
 * its own decoded object and bytes, so the format names the list's type.
 */
const itemFormat = (list: { apiVersion?: unknown; kind?: unknown }) => `json-item:${String(list.apiVersion)}/${String(list.kind)}`;

/** Stands for the items while the rest of the list is stringified; cannot be in a list's own fields. */
const ITEMS_MARK = '\u0000items\u0000';
const ITEMS_MARK_JSON = JSON.stringify(ITEMS_MARK);
const COMMA = 0x2c;

/** The UTF-8 of `text` in memory of its own, not a slice of Buffer's shared pool that it would keep whole. */
function ownBytes(text: string): Uint8Array {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** `escape`: the Go escaping encodeJSON applies; it works within strings, so item by item is the same as on the whole. */
function itemJSON(item: unknown, format: string, escape: (text: string) => string): Uint8Array {
  const obj = item as { apiVersion?: unknown; kind?: unknown } | null;
  // Only an item without type meta is what its kept bytes stand for.
  const cacheable = obj !== null && typeof obj === 'object' && obj.apiVersion === undefined && obj.kind === undefined;
  const kept = cacheable ? lookupEncoding(obj, format) : undefined;
  if (kept) return kept;
  const bytes = ownBytes(escape(stringifyJSON(item)));
  if (kept === null) keepEncoding(obj!, format, bytes);
  return bytes;
}

/**
 * encodeJSON(list) as bytes for a list whose items come from the watch cache; undefined when the
 * first item does not (a list from storage gains nothing from item bytes).
 */
export function encodeCachedList(list: { apiVersion?: unknown; kind?: unknown; items: unknown[] }, escape: (text: string) => string): Uint8Array | undefined {
  const { items } = list;
  const format = itemFormat(list);
  if (items.length === 0 || lookupEncoding(items[0] as object, format) === undefined) return undefined;
  const shell = JSON.stringify({ ...list, items: ITEMS_MARK });
  const at = shell.indexOf(ITEMS_MARK_JSON);
  if (at < 0 || shell.lastIndexOf(ITEMS_MARK_JSON) !== at) return undefined;
  const head = Buffer.from(`${escape(shell.slice(0, at))}[`, 'utf8');
  const tail = Buffer.from(`]${escape(shell.slice(at + ITEMS_MARK_JSON.length))}\n`, 'utf8');
  const parts = new Array<Uint8Array>(items.length);
  let length = head.length + tail.length + items.length - 1;
  for (let i = 0; i < items.length; i++) length += (parts[i] = itemJSON(items[i], format, escape)).length;
  // A body of its own for this one response: a large one is written into a lent buffer.
  const out = bodyBuffer(length);
  let pos = head.copy(out, 0);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) out[pos++] = COMMA;
    out.set(parts[i], pos);
    pos += parts[i].length;
  }
  tail.copy(out, pos);
  return out;
}

/**
 * encodeJSON({ type, object }) as bytes for an object of the watch cache, kept per event type;
 * undefined for any other object (a copy, a bookmark, a converted object).
 */
export function encodeCachedWatchEvent(type: string, obj: unknown, escape: (text: string) => string): Uint8Array | undefined {
  const object = obj as { apiVersion?: unknown; kind?: unknown; metadata?: { resourceVersion?: unknown } } | null;
  // Only the decoded object itself carries type meta among the objects known as a version.
  if (object === null || typeof object !== 'object' || object.apiVersion === undefined || object.kind === undefined) return undefined;
  const resourceVersion = object.metadata?.resourceVersion;
  if (object === lastEvent.object && type === lastEvent.type && escape === lastEvent.escape && resourceVersion === lastEvent.resourceVersion) return lastEvent.bytes;
  const format = `json-event:${type}:${String(object.apiVersion)}/${String(object.kind)}`;
  let bytes = lookupEncoding(object, format);
  if (bytes === undefined) return undefined;
  if (bytes === null) {
    bytes = ownBytes(escape(`${stringifyJSON({ type, object })}\n`));
    keepEncoding(object, format, bytes);
  }
  lastEvent = { object, type, escape, resourceVersion, bytes };
  return bytes;
}

/**
 * The last event encodeCachedWatchEvent answered: one change goes to every watcher in a row, so
 * all but the first find it here without building the format's name and looking it up. Held only
 * while the object keeps the resourceVersion it had, as the kept bytes are (serialization-cache.ts).
 */
let lastEvent: { object: object | undefined; type: string; escape: unknown; resourceVersion: unknown; bytes: Uint8Array } = {
  object: undefined,
  type: '',
  escape: undefined,
  resourceVersion: undefined,
  bytes: new Uint8Array(0),
};

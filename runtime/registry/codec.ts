// How one served resource's objects become stored bytes and back, after k8s.io/apiserver's
// storage codec: the stored JSON names the stored version (stored-form.ts), never carries
// resourceVersion or selfLink (the revision is the version), and comes back with the served
// apiVersion and kind and the write's revision as resourceVersion. Both implementations of the
// resource's storage (direct-storage.ts and the cacher) decode through one Codec, so an object
// reads the same whichever served it.

import type { ResourceDefinition } from './definition.js';
import type { KeyValue } from '../storage/interface.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import { sortKeysDeep } from '../machinery/go-format.js';
import { sortKeysInPlace, withResourceVersion } from '../machinery/sorted-keys.js';
import { fromStoredForm, toStoredForm } from './stored-form.js';
import { stringifyJSON } from '../machinery/deep-json.js';

/**
 * How many creates a codec remembers until their watch events are read (see decodeTransient):
 * events come within a batch or two of their writes, so a few hundred never runs out; past it
 * the oldest are forgotten and their events decoded.
 */
const MAX_PENDING_CREATES = 256;

export class Codec {
  readonly kind: string;
  readonly apiVersion: string;
  /**
   * Unstructured kinds (custom resources) keep kube's order, every object's keys sorted (Go's
   * maps): sorted once when written, so stored JSON, decoded objects and responses all have it.
   */
  private readonly sortsKeys: boolean;
  /** The sorted stored form encode() made of each object, for stored() to reuse. */
  private readonly sortedWrites = new WeakMap<KubeObject, KubeObject>();
  /** Objects just created and their stored JSON, by key, until a transient reader takes their event. */
  private readonly pendingCreates = new Map<string, { value: string; obj: KubeObject }>();

  constructor(
    readonly definition: ResourceDefinition,
    /** The kind's defaulting of what older servers stored without (ResourceStrategies.defaultOnRead). */
    private readonly defaultOnRead?: (obj: KubeObject) => void,
  ) {
    this.kind = definition.kind;
    this.apiVersion = definition.group ? `${definition.group}/${definition.version}` : definition.version;
    this.sortsKeys = definition.unstructured === true;
  }

  /** The stored JSON back as an API object, with the write's revision as resourceVersion. */
  decode(value: string, modRevision: number): KubeObject {
    if (this.sortsKeys) return this.decodeSorted(value, modRevision);
    // kind and apiVersion lead, as kube-apiserver's encoder writes them.
    const obj = { kind: this.kind, apiVersion: this.apiVersion, ...fromStoredForm(this.definition, JSON.parse(value) as KubeObject) };
    obj.kind = this.kind;
    obj.apiVersion = this.apiVersion;
    metaOf(obj).resourceVersion = String(modRevision);
    this.defaultOnRead?.(obj);
    return obj;
  }

  /**
   * decode() for a reader that only reads what it is handed and keeps none of it (a transient
   * watcher: the garbage collector's informer, which follows every create). A create this codec
   * remembered (rememberCreate) comes back as stored() answers it, sharing the written object's
   * members, instead of being parsed again; each is handed out once.
   */
  decodeTransient(kv: KeyValue): KubeObject {
    const created = this.pendingCreates.get(kv.key);
    if (created === undefined || created.value !== kv.value) return this.decode(kv.value, kv.modRevision);
    this.pendingCreates.delete(kv.key);
    return this.stored(created.obj, kv.modRevision);
  }

  /**
   * Remembers the object a create stores under `key` as `value` (encode's text of it) for
   * decodeTransient, when stored() gives what decode() would: the kind's own form, no sorting, no
   * read defaults. Kept by key (a short string to hash) and checked against the bytes when read.
   * The object must not change afterwards (the create answers with it and nothing changes it).
   */
  rememberCreate(key: string, value: string, obj: KubeObject): void {
    if (this.sortsKeys || this.definition.storedAs || this.defaultOnRead) return;
    if (this.pendingCreates.size >= MAX_PENDING_CREATES) this.pendingCreates.delete(this.pendingCreates.keys().next().value!);
    this.pendingCreates.set(key, { value, obj });
  }

  /** A create that failed: its object is never read back. */
  forgetCreate(key: string, value: string): void {
    if (this.pendingCreates.get(key)?.value === value) this.pendingCreates.delete(key);
  }

  /** resourceVersion and selfLink are never stored: the revision is the version. */
  encode(obj: KubeObject): string {
    // Only the top level and metadata change, so shallow copies of those two are enough.
    const copy = toStoredForm(this.definition, obj, this.apiVersion);
    const meta = { ...metaOf(obj) };
    delete meta.resourceVersion;
    delete meta.selfLink;
    copy.metadata = meta;
    if (!this.sortsKeys) return stringifyJSON(copy);
    const sorted = sortKeysDeep(copy) as KubeObject;
    this.sortedWrites.set(obj, sorted);
    return stringifyJSON(sorted);
  }

  /** decode for unstructured kinds: the stored order kept, type meta and resourceVersion in their sorted places. */
  private decodeSorted(value: string, modRevision: number): KubeObject {
    const obj = fromStoredForm(this.definition, JSON.parse(value) as KubeObject);
    obj.apiVersion = this.apiVersion;
    obj.kind = this.kind;
    obj.metadata = withResourceVersion(metaOf(obj) as Record<string, unknown>, String(modRevision));
    this.defaultOnRead?.(obj);
    // Stored before keys were sorted, or given defaults just now: sorted here, once per version.
    return sortKeysInPlace(obj) as KubeObject;
  }

  /** What decode(encode(obj)) gives at `modRevision`, without the parse: for an object just written. */
  stored(obj: KubeObject, modRevision: number): KubeObject {
    if (this.sortsKeys) {
      const sorted = fromStoredForm(this.definition, this.sortedWrites.get(obj) ?? (JSON.parse(this.encode(obj)) as KubeObject));
      const out: KubeObject = { ...sorted, apiVersion: this.apiVersion, kind: this.kind };
      out.metadata = withResourceVersion(metaOf(sorted) as Record<string, unknown>, String(modRevision));
      return out;
    }
    const out: KubeObject = { kind: this.kind, apiVersion: this.apiVersion, ...obj };
    out.kind = this.kind;
    out.apiVersion = this.apiVersion;
    const meta = { ...metaOf(obj) };
    delete meta.selfLink;
    meta.resourceVersion = String(modRevision);
    out.metadata = meta;
    return out;
  }
}

// How one served resource's objects become stored bytes and back, after k8s.io/apiserver's
// storage codec: the stored JSON names the stored version (stored-form.ts), never carries
// resourceVersion or selfLink (the revision is the version), and comes back with the served
// apiVersion and kind and the write's revision as resourceVersion. Both implementations of the
// resource's storage (direct-storage.ts and the cacher) decode through one Codec, so an object
// reads the same whichever served it.

import type { ResourceDefinition } from './definition.js';
import { isPlainObject, metaOf, type KubeObject } from '../machinery/object.js';
import { sortedSharing, sortKeysInPlace, withResourceVersion } from '../machinery/sorted-keys.js';
import { fromStoredForm, toStoredForm } from './stored-form.js';
import { stringifyJSON } from '../machinery/deep-json.js';

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

  /** resourceVersion and selfLink are never stored: the revision is the version. */
  encode(obj: KubeObject): string {
    // A create's object is nearly always its stored form already: the served type in place and no
    // version; it is then written as it is, without the copies below (which would write the same text).
    if (!this.sortsKeys && this.isStoredForm(obj)) return stringifyJSON(obj);
    // Only the top level and metadata change, so shallow copies of those two are enough.
    const copy = toStoredForm(this.definition, obj, this.apiVersion);
    const meta = { ...metaOf(obj) };
    delete meta.resourceVersion;
    delete meta.selfLink;
    copy.metadata = meta;
    if (!this.sortsKeys) return stringifyJSON(copy);
    // Parts of `obj` already in order are shared, not copied: neither the written object nor
    // stored()'s answer made from this copy is changed after the write.
    const sorted = sortedSharing(copy) as KubeObject;
    this.sortedWrites.set(obj, sorted);
    return stringifyJSON(sorted);
  }

  /** Whether `obj` is written exactly as encode's copies would write it. */
  private isStoredForm(obj: KubeObject): boolean {
    if (this.definition.storedAs || obj.apiVersion !== this.apiVersion || obj.kind !== this.kind) return false;
    const meta = obj.metadata;
    return isPlainObject(meta) && !('resourceVersion' in meta) && !('selfLink' in meta);
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

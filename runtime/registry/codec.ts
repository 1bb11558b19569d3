// How one served resource's objects become stored bytes and back, after k8s.io/apiserver's
// storage codec: the stored JSON names the stored version (stored-form.ts), never carries
// resourceVersion or selfLink (the revision is the version), and comes back with the served
// apiVersion and kind and the write's revision as resourceVersion. Both implementations of the
// resource's storage (direct-storage.ts and the cacher) decode through one Codec, so an object
// reads the same whichever served it.

import type { ResourceDefinition } from './definition.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import { fromStoredForm, toStoredForm } from './stored-form.js';

export class Codec {
  readonly kind: string;
  readonly apiVersion: string;

  constructor(
    readonly definition: ResourceDefinition,
    /** The kind's defaulting of what older servers stored without (ResourceStrategies.defaultOnRead). */
    private readonly defaultOnRead?: (obj: KubeObject) => void,
  ) {
    this.kind = definition.kind;
    this.apiVersion = definition.group ? `${definition.group}/${definition.version}` : definition.version;
  }

  /** The stored JSON back as an API object, with the write's revision as resourceVersion. */
  decode(value: string, modRevision: number): KubeObject {
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
    // Only the top level and metadata change, so shallow copies of those two are enough.
    const copy = toStoredForm(this.definition, obj, this.apiVersion);
    const meta = { ...metaOf(obj) };
    delete meta.resourceVersion;
    delete meta.selfLink;
    copy.metadata = meta;
    return JSON.stringify(copy);
  }

  /** What decode(encode(obj)) gives at `modRevision`, without the parse: for an object just written. */
  stored(obj: KubeObject, modRevision: number): KubeObject {
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

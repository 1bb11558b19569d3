// How one served resource's objects become stored bytes and back, after k8s.io/apiserver's
// storage codec: the stored JSON names the stored version (stored-form.ts), never carries
// resourceVersion or selfLink (the revision is the version), and comes back with the served
// apiVersion and kind and the write's revision as resourceVersion. Both implementations of the
// resource's storage (direct-storage.ts and the cacher) decode through one Codec, so an object
// reads the same whichever served it.

import type { ResourceDefinition } from './definition.js';
import { isPlainObject, metaOf, type KubeObject, type ObjectMeta } from '../machinery/object.js';
import { setMember } from '../machinery/own-member.js';
import { sortedSharing, sortKeysInPlace, withResourceVersion } from '../machinery/sorted-keys.js';
import { fromStoredForm, toStoredForm } from './stored-form.js';
import { stringifyJSON } from '../machinery/deep-json.js';
import { keepWrittenText } from './cacher/serialization-cache.js';

/**
 * Stands for the resourceVersion while a write's answer is stringified, before the write has its
 * revision (encodeWrite): the member as it is written, which no stored text holds.
 */
const VERSION_MARK = '\u0000resourceVersion\u0000';
const VERSION_MEMBER = `"resourceVersion":${JSON.stringify(VERSION_MARK)}`;
const COMMA = 0x2c;

/** What a write stores, and what answer() makes its answer from once the write has a revision. */
export interface EncodedWrite {
  readonly obj: KubeObject;
  /** The stored text, as encode(obj) gives it. */
  readonly value: string;
  /** stored(obj, ·) with VERSION_MEMBER in it, its JSON text and where the member is; absent when answer() makes the answer afresh. */
  readonly template?: { readonly object: KubeObject; readonly text: string; readonly at: number };
}

export class Codec {
  readonly kind: string;
  readonly apiVersion: string;
  /**
   * Unstructured kinds (custom resources) keep kube's order, every object's keys sorted (Go's
   * maps): sorted once when written, so stored JSON, decoded objects and responses all have it.
   */
  private readonly sortsKeys: boolean;
  /** Whether the stored form is the served one: the same version and field names. */
  private readonly storesServedForm: boolean;
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
    // A custom resource is "stored as" its storage version, which is this one when the CRD has one version.
    const storedAs = definition.storedAs;
    this.storesServedForm = !storedAs || (storedAs.apiVersion === this.apiVersion && Object.keys(storedAs.fieldRenames).length === 0);
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
    const copy = this.storedCopy(obj);
    return stringifyJSON(this.sortsKeys ? this.sortedWrite(obj, copy) : copy);
  }

  /**
   * encode(obj) for a write that answers with stored(obj, revision), and that answer's JSON text
   * with it: the answer is stringified with a mark for its resourceVersion, and the stored text
   * is that text less the mark's member. A create's or update's JSON answer then costs no second
   * stringify of the object: for the bench's custom resource of 30 fields about 5% of the CPU of
   * its create; for a small ConfigMap the copy it still makes costs about what it saves.
   * Objects stored in another form than the answer's, or typed objects as encode() copies them
   * (an update's, which carries a resourceVersion), are encoded as encode() does, and answer()
   * makes their answer afresh.
   */
  encodeWrite(obj: KubeObject): EncodedWrite {
    const template = this.answerTemplate(obj);
    if (template) {
      const text = stringifyJSON(template);
      const at = text.indexOf(VERSION_MEMBER);
      // A member of the object's own that reads as the mark would leave the text ambiguous.
      if (at > 0 && text.indexOf(VERSION_MEMBER, at + 1) < 0) return { obj, value: withoutMember(text, at, VERSION_MEMBER.length), template: { object: template, text, at } };
    }
    return { obj, value: this.encode(obj) };
  }

  /** The answer to the write of `encoded` at `modRevision`: stored(obj, modRevision), its JSON text kept when known. */
  answer(encoded: EncodedWrite, modRevision: number): KubeObject {
    const { template } = encoded;
    if (!template) return this.stored(encoded.obj, modRevision);
    const { object, text, at } = template;
    const resourceVersion = String(modRevision);
    metaOf(object).resourceVersion = resourceVersion;
    keepWrittenText(object, `${text.slice(0, at)}"resourceVersion":"${resourceVersion}"${text.slice(at + VERSION_MEMBER.length)}`);
    return object;
  }

  /** stored(obj, ·) with the mark for its resourceVersion, when stored text and answer differ by that member alone. */
  private answerTemplate(obj: KubeObject): KubeObject | undefined {
    if (this.sortsKeys) return this.storesServedForm ? this.storedSorted(this.sortedWrite(obj, this.storedCopy(obj)), VERSION_MARK) : undefined;
    // A typed object is stored as stored() lays it out (kind and apiVersion first, as Go's
    // TypeMeta writes them) only from its stored form; a copy keeps the writer's order.
    return this.isStoredForm(obj) ? this.storedTyped(obj, VERSION_MARK) : undefined;
  }

  /** The stored form of `obj` less resourceVersion and selfLink: shallow copies of the top level and metadata, the only parts that change. */
  private storedCopy(obj: KubeObject): KubeObject {
    const copy = toStoredForm(this.definition, obj, this.apiVersion);
    copy.metadata = metaCopy(obj, true);
    return copy;
  }

  /** `copy` sorted for storage, remembered as the write of `obj` for stored(). */
  private sortedWrite(obj: KubeObject, copy: KubeObject): KubeObject {
    // Parts of `obj` already in order are shared, not copied: neither the written object nor
    // stored()'s answer made from this copy is changed after the write.
    const sorted = sortedSharing(copy) as KubeObject;
    this.sortedWrites.set(obj, sorted);
    return sorted;
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
    if (this.sortsKeys) return this.storedSorted(this.sortedWrites.get(obj) ?? (JSON.parse(this.encode(obj)) as KubeObject), String(modRevision));
    return this.storedTyped(obj, String(modRevision));
  }

  private storedSorted(sortedWrite: KubeObject, resourceVersion: string): KubeObject {
    const sorted = fromStoredForm(this.definition, sortedWrite);
    const out: KubeObject = { ...sorted, apiVersion: this.apiVersion, kind: this.kind };
    out.metadata = withResourceVersion(metaOf(sorted) as Record<string, unknown>, resourceVersion);
    return out;
  }

  private storedTyped(obj: KubeObject, resourceVersion: string): KubeObject {
    // Copied member by member: a spread behind literal members, or a spread copy given a member it
    // lacked, costs V8 several times as much (a create copies twice: its answer, and the object
    // the watch cache's readers are handed).
    const out: KubeObject = { kind: this.kind, apiVersion: this.apiVersion };
    for (const key of Object.keys(obj)) if (key !== 'kind' && key !== 'apiVersion') setMember(out, key, obj[key]);
    const meta = metaCopy(obj, false);
    meta.resourceVersion = resourceVersion;
    out.metadata = meta;
    return out;
  }
}

/**
 * A copy of the object's metadata without selfLink, and without resourceVersion when `dropVersion`
 * (else a resourceVersion keeps its place), made member by member: a spread copy that then loses
 * members with `delete` leaves V8 a slower object for the stringify that follows.
 */
function metaCopy(obj: KubeObject, dropVersion: boolean): ObjectMeta {
  const from = metaOf(obj);
  const meta: ObjectMeta = {};
  for (const key of Object.keys(from)) if (key !== 'selfLink' && !(dropVersion && key === 'resourceVersion')) setMember(meta, key, from[key]);
  return meta;
}

/** Compact JSON `text` less the member of `length` characters at `at`, and the comma that parts it from a neighbour. */
function withoutMember(text: string, at: number, length: number): string {
  const end = at + length;
  if (text.charCodeAt(at - 1) === COMMA) return text.slice(0, at - 1) + text.slice(end);
  if (text.charCodeAt(end) === COMMA) return text.slice(0, at) + text.slice(end + 1);
  return text.slice(0, at) + text.slice(end);
}

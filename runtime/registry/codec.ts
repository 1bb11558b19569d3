// How one served resource's objects become stored bytes and back, after k8s.io/apiserver's
// storage codec: the stored JSON names the stored version (stored-form.ts), never carries
// resourceVersion or selfLink (the revision is the version), and comes back with the served
// apiVersion and kind and the write's revision as resourceVersion. Both implementations of the
// resource's storage (direct-storage.ts and the cacher) decode through one Codec, so an object
// reads the same whichever served it.

import type { ResourceDefinition } from './definition.js';
import { isPlainObject, metaOf, type KubeObject } from '../machinery/object.js';
import { sortKeysDeep } from '../machinery/go-format.js';
import { sortKeysInPlace, withResourceVersion } from '../machinery/sorted-keys.js';
import { fromStoredForm, toStoredForm } from './stored-form.js';
import { stringifyJSON } from '../machinery/deep-json.js';

/**
 * A write's stored JSON, member by member, kept by encode() for stored() to lay out the answer's
 * text from: the answer is the same members, type meta first and the revision in metadata.
 */
interface WrittenMembers {
  /** `"name":value` of each top-level member but apiVersion and kind, in the answer's order. */
  members: string[];
  /** Where metadata is among `members`. */
  metadataAt: number;
  metadataText: string;
}

/** The JSON text of an object stored() answered a write with, while it is still that version. */
interface WrittenText {
  text: string;
  metadata: unknown;
  resourceVersion: string;
}

const writtenTexts = new WeakMap<object, WrittenText>();

/**
 * The compact JSON text (JSON.stringify's, without Go's escapes) of an object a write was just
 * answered with, made from the members the write stored: a created object is not serialized
 * twice. Undefined for any other object, or once the object's metadata or resourceVersion has
 * been replaced; code that changes a written object otherwise must work on a copy.
 */
export function writtenJSON(obj: object): string | undefined {
  const written = writtenTexts.get(obj);
  if (written === undefined) return undefined;
  const meta = (obj as KubeObject).metadata;
  return meta === written.metadata && (meta as { resourceVersion?: unknown }).resourceVersion === written.resourceVersion ? written.text : undefined;
}

/** A member name V8 would order before the others (an array index): the answer's order would differ from the stored one. */
const indexLike = (key: string): boolean => key.charCodeAt(0) >= 0x30 && key.charCodeAt(0) <= 0x39;

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
  /** The members encode() wrote each object with, for stored() to reuse. */
  private readonly writtenMembers = new WeakMap<KubeObject, WrittenMembers>();
  private readonly apiVersionMember: string;
  private readonly kindMember: string;
  /** The answer's text up to its first member: kind and apiVersion lead (see stored()). */
  private readonly answerHead: string;

  constructor(
    readonly definition: ResourceDefinition,
    /** The kind's defaulting of what older servers stored without (ResourceStrategies.defaultOnRead). */
    private readonly defaultOnRead?: (obj: KubeObject) => void,
  ) {
    this.kind = definition.kind;
    this.apiVersion = definition.group ? `${definition.group}/${definition.version}` : definition.version;
    this.sortsKeys = definition.unstructured === true;
    this.apiVersionMember = `"apiVersion":${JSON.stringify(this.apiVersion)}`;
    this.kindMember = `"kind":${JSON.stringify(this.kind)}`;
    this.answerHead = `{${this.kindMember},${this.apiVersionMember}`;
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
    if (!this.sortsKeys && !this.definition.storedAs) {
      const text = this.encodeByMembers(obj);
      if (text !== undefined) return text;
    }
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

  /**
   * encode() of an object in its own form whose metadata names neither resourceVersion nor
   * selfLink (a create): the same text, written member by member so that stored() can make the
   * answer's text from the members. Undefined when the object is not such an object.
   */
  private encodeByMembers(obj: KubeObject): string | undefined {
    const meta = obj.metadata;
    if (!isPlainObject(meta) || Object.hasOwn(meta, 'resourceVersion') || Object.hasOwn(meta, 'selfLink')) return undefined;
    // The stored form is the object's members in order, apiVersion and kind naming the served
    // version where they stand (after the rest when the object lacks them), as toStoredForm lays it out.
    let stored = '';
    const members: string[] = [];
    let metadataAt = -1;
    let metadataText = '';
    let typeMeta = 0;
    let answerable = true;
    for (const key of Object.keys(obj)) {
      let member: string;
      if (key === 'apiVersion') {
        member = this.apiVersionMember;
        typeMeta |= 1;
      } else if (key === 'kind') {
        member = this.kindMember;
        typeMeta |= 2;
      } else {
        const value = obj[key];
        if (value === undefined) continue;
        if (indexLike(key)) answerable = false;
        const valueText = stringifyJSON(value);
        if (key === 'metadata') {
          metadataAt = members.length;
          metadataText = valueText;
        }
        member = `${JSON.stringify(key)}:${valueText}`;
        members.push(member);
      }
      stored = stored ? `${stored},${member}` : member;
    }
    if (!(typeMeta & 1)) stored = stored ? `${stored},${this.apiVersionMember}` : this.apiVersionMember;
    if (!(typeMeta & 2)) stored = `${stored},${this.kindMember}`;
    if (answerable) this.writtenMembers.set(obj, { members, metadataAt, metadataText });
    return `{${stored}}`;
  }

  /** The JSON text of stored()'s answer for a write encodeByMembers() made, with resourceVersion `revision`. */
  private answerText(written: WrittenMembers, revision: string): string {
    const { members, metadataAt, metadataText } = written;
    // resourceVersion was not in metadata, so it comes last there, as stored() adds it.
    const version = `"resourceVersion":"${revision}"`;
    const metadata = metadataText === '{}' ? `"metadata":{${version}}` : `"metadata":${metadataText.slice(0, -1)},${version}}`;
    let text = this.answerHead;
    for (let i = 0; i < members.length; i++) text += `,${i === metadataAt ? metadata : members[i]}`;
    return `${text}}`;
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
    const written = this.writtenMembers.get(obj);
    if (written) writtenTexts.set(out, { text: this.answerText(written, meta.resourceVersion), metadata: meta, resourceVersion: meta.resourceVersion });
    return out;
  }
}

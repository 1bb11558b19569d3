// Objects travel through the registry as plain JSON values, exactly as clients send them. These
// helpers give typed access to the ObjectMeta fields the generic store owns, without a class per
// kind: the generated validators own the rest of the shape.

import { isPlainObject } from './json-values.js';
import { setMember } from './own-member.js';

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  selfLink?: string;
  [field: string]: unknown;
}

export type KubeObject = Record<string, unknown> & { apiVersion?: string; kind?: string; metadata?: ObjectMeta };

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList {
  kind: string;
  apiVersion: string;
  metadata: ListMeta;
  items: KubeObject[];
}

// The JSON accessors belong to the validation layer below, which registry code already builds on.
export { asList, asObject, asObjectList, asString, isPlainObject, isSet } from './json-values.js';

/** The object's metadata, created empty when absent (or not an object) so callers can assign to it. */
export function metaOf(obj: KubeObject): ObjectMeta {
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as ObjectMeta;
}

/** The object's annotations, an empty map when it has none (a read: the empty map is not attached). */
export function annotationsOf(obj: KubeObject): Record<string, string> {
  return metaOf(obj).annotations ?? {};
}

export function deepClone<T>(v: T): T {
  try {
    return cloneValue(v) as T;
  } catch (e) {
    // Nesting deeper than the stack allows (JSON may nest 10,000 levels, structuredClone takes
    // fewer): the same copy, made with an explicit stack.
    if (e instanceof RangeError) return cloneIteratively(v) as T;
    throw e;
  }
}

/** cloneValue with an explicit stack: each copy is filled after its parent holds it. */
function cloneIteratively(root: unknown): unknown {
  const copyOf = (v: object): object => {
    if (Array.isArray(v)) return new Array(v.length);
    const proto = Object.getPrototypeOf(v);
    return proto !== Object.prototype && proto !== null ? structuredClone(v) : {};
  };
  if (typeof root !== 'object' || root === null) return root;
  const top = copyOf(root);
  const sources: object[] = [root];
  const copies: object[] = [top];
  while (sources.length > 0) {
    const source = sources.pop()! as Record<string, unknown>;
    const copy = copies.pop()! as Record<string, unknown>;
    const proto = Object.getPrototypeOf(source);
    if (!Array.isArray(source) && proto !== Object.prototype && proto !== null) continue;
    for (const key of Object.keys(source)) {
      let member = source[key];
      if (typeof member === 'object' && member !== null) {
        const child = copyOf(member);
        sources.push(member);
        copies.push(child);
        member = child;
      }
      setMember(copy, key, member);
    }
  }
  return top;
}

/**
 * A copy as structuredClone makes it, walked by hand for what objects are made of (plain objects,
 * arrays, primitives), which for small JSON values is several times faster than serializing
 * them; anything else (a Map or byte array some decoder produced) is structure-cloned.
 */
function cloneValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneValue(v[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    const member = cloneValue((v as Record<string, unknown>)[key]);
    setMember(out, key, member);
  }
  return out;
}

/**
 * Structural equality of JSON values (key order ignored), as apiequality.Semantic.DeepEqual is
 * used on decoded objects. Walked with an explicit stack of pairs, as JSON may nest 10,000 levels.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = x.length - 1; i >= 0; i--) {
        left.push(x[i]);
        right.push(y[i]);
      }
      continue;
    }
    if (!isPlainObject(x) || !isPlainObject(y)) return false;
    // Counted rather than listed (no arrays per object): the same members, once each side has as
    // many set as the other and each of x's is compared with y's of the same name.
    let members = 0;
    for (const k in x) {
      const v = x[k];
      if (v === undefined) continue;
      members++;
      left.push(v);
      right.push(y[k]);
    }
    for (const k in y) if (y[k] !== undefined) members--;
    if (members !== 0) return false;
  }
  return true;
}

/** RFC 3339 with second precision in UTC, as metav1.Time serializes. */
export function nowRFC3339(): string {
  // Formatting a Date costs more than the rest of a timestamp's use; writes in one second share it.
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastFormatted = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastFormatted;
}
let lastSecond = -1;
let lastFormatted = '';

/** Everything but metadata and status: what kube-apiserver's strategies compare to bump generation. */
export function specFields(obj: KubeObject, statusField = 'status'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' || k === statusField || k === 'apiVersion' || k === 'kind') continue;
    setMember(out, k, v);
  }
  return out;
}

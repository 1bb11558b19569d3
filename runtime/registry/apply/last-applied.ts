// The handover between client-side apply (kubectl's three-way strategic merge, which keeps the
// applied manifest in the kubectl.kubernetes.io/last-applied-configuration annotation) and
// server-side apply, as kube-apiserver's lastAppliedManager and lastAppliedUpdater do it, for the
// "kubectl" manager only (other appliers opt out by using another name):
// - a conflict of a kubectl server-side apply is forgiven when the field is one the annotation
//   says kubectl applied before and still holds that value, so the first server-side apply of a
//   client-side applied object takes its fields over;
// - after a kubectl server-side apply the annotation, when present, is rewritten to the new
//   configuration, so a later client-side apply diffs against what was really applied last.

import { goJSON } from '../../machinery/go-format.js';
import { deepClone, isPlainObject, type KubeObject } from '../../machinery/object.js';
import type { FieldSet } from './fieldpath.js';
import type { TypeNode } from './schema.js';
import { compare, toFieldSet } from '../patch/typed-merge.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The applier whose writes take part in the handover. */
export const KUBECTL_MANAGER = 'kubectl';
/** apimachinery's TotalAnnotationSizeLimitB: keys plus values of all annotations. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function lastAppliedOf(obj: KubeObject | undefined): string | undefined {
  const annotations = obj?.metadata?.annotations;
  if (!isPlainObject(annotations)) return undefined;
  const value = annotations[LAST_APPLIED_ANNOTATION];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The fields a client-side applier may be taken as owning: those of the live object's
 * last-applied configuration whose value the live object still has. Undefined when there is
 * no usable annotation (absent, not JSON, another apiVersion, not of the kind's schema).
 */
export function allowedConflictsFromLastApplied(live: KubeObject | undefined, apiVersion: string, node: TypeNode): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  try {
    const lastApplied: unknown = JSON.parse(text);
    if (!isPlainObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return undefined;
    const set = toFieldSet(lastApplied, node, true);
    const diff = compare(lastApplied, live, node);
    return set.difference(diff.modified).difference(diff.added).difference(diff.removed);
  } catch {
    return undefined;
  }
}

/**
 * The annotation's new text for an applied configuration: the configuration as Go's JSON
 * encoder writes it (keys sorted, HTML characters escaped, a final newline), without the
 * annotation itself.
 */
export function buildLastApplied(config: KubeObject): string {
  const copy = deepClone(config);
  const meta = copy.metadata;
  if (isPlainObject(meta)) {
    // Unstructured annotations that are not a string map read as none and are written back as none.
    if (isPlainObject(meta.annotations)) delete meta.annotations[LAST_APPLIED_ANNOTATION];
    else delete meta.annotations;
  }
  return `${goJSON(copy)}\n`;
}

/**
 * After an apply by `manager`: when the result carries a last-applied annotation and the
 * applier is kubectl, the annotation becomes the applied configuration. It is dropped instead
 * when that would take the annotations past their total size limit.
 */
export function syncLastApplied(result: KubeObject, config: KubeObject, manager: string): void {
  if (manager !== KUBECTL_MANAGER || lastAppliedOf(result) === undefined) return;
  const annotations = result.metadata!.annotations as Record<string, string>;
  annotations[LAST_APPLIED_ANNOTATION] = buildLastApplied(config);
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
}

// StorageClass: two allowedTopologies terms that select the same thing are a Duplicate at the
// later term's matchLabelExpressions (validateAllowedTopologies). A term is compared as a map
// from key to the set of its values, as kube-apiserver does, which no spec rule can express.
// kube-apiserver's list of seen terms starts with one nil map per term, and its semantic
// equality takes an empty map for a nil one: a term without requirements is reported once per
// term in the list. We do the same.

import type { StatusCause } from '../../errors/status-error.js';
import { duplicate } from '../../validation/field-errors.js';
import type { ResourceDefinition } from '../definition.js';
import { asObjectList, asString, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, withRules, type ResourceStrategies } from '../strategy.js';

/** A term as key -> sorted distinct values, in a form that compares with ===. */
function termIdentity(term: Record<string, unknown>): string {
  const byKey = new Map<string, string[]>();
  for (const req of asObjectList(term.matchLabelExpressions)) {
    const values = Array.isArray(req.values) ? req.values.map(asString) : [];
    byKey.set(asString(req.key), [...new Set(values)].sort());
  }
  return JSON.stringify([...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function topologyDuplicateCauses(obj: KubeObject): StatusCause[] {
  const terms = asObjectList(obj.allowedTopologies);
  const empty = termIdentity({});
  const seen: string[] = [];
  const causes: StatusCause[] = [];
  terms.forEach((term, i) => {
    const identity = termIdentity(term);
    const placeholders = identity === empty ? terms.length : 0;
    const earlier = seen.filter((s) => s === identity).length;
    for (let n = 0; n < placeholders + earlier; n++) causes.push(duplicate(`allowedTopologies[${i}].matchLabelExpressions`, ''));
    seen.push(identity);
  });
  return causes;
}

export function storageClassStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  return { ...base, main: withRules(base.main, { onWrite: topologyDuplicateCauses }) };
}

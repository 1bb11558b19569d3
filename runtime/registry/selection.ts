// The label and field selectors of a list, watch or delete-collection request, parsed once and
// turned into one predicate over objects. Parse errors are 400 BadRequest with upstream's words.

import { badRequest } from '../errors/status-error.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import { FieldSelectorError, parseFieldSelector } from '../machinery/selectors/field-selector.js';
import { LabelSelectorError, parseLabelSelector } from '../machinery/selectors/label-selector.js';
import type { Strategy } from './strategy.js';

export interface SelectionOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface Predicate {
  /** True when neither selector restricts anything (remainingItemCount is only exact then). */
  empty: boolean;
  matches(obj: KubeObject): boolean;
  /**
   * The name every match has, when the field selector requires one (metadata.name=...): the
   * watch cache then passes over other keys without decoding their objects, as kube's
   * SelectionPredicate.MatchesSingle lets its cacher do.
   */
  name?: string;
}

/** Whether the object stored under `key` may match: its name, the key's last segment, is the one required. */
export const keyMayMatch = (predicate: Predicate, key: string): boolean =>
  predicate.name === undefined || key.slice(key.lastIndexOf('/') + 1) === predicate.name;

export function compilePredicate(strategy: Pick<Strategy, 'selectableFields'>, options: SelectionOptions): Predicate {
  let labels;
  let fields;
  try {
    labels = parseLabelSelector(options.labelSelector ?? '');
  } catch (e) {
    if (e instanceof LabelSelectorError) throw badRequest(e.message);
    throw e;
  }
  // The selectable fields are the keys the strategy reports; any object shows which they are.
  const supported = new Set(Object.keys(strategy.selectableFields({ metadata: {} })));
  try {
    fields = parseFieldSelector(options.fieldSelector ?? '', supported);
  } catch (e) {
    if (e instanceof FieldSelectorError) throw badRequest(e.message);
    throw e;
  }
  const l = labels;
  const f = fields;
  const name = f.requirements.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value;
  return {
    empty: l.empty && f.empty,
    matches: (obj) => l.matches(metaOf(obj).labels) && (f.empty || f.matches(strategy.selectableFields(obj))),
    ...(name === undefined ? {} : { name }),
  };
}

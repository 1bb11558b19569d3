// kube-apiserver's validateVolumeSource looks at a volume's sources in a fixed order, validates
// the first one set, and for every further one reports only "may not specify more than 1 volume
// type" without looking inside it. The spec's rules check every source, so the pod strategy drops
// what they found inside the sources kube-apiserver would not have validated.

import type { StatusCause } from '../../../errors/status-error.js';
import type { ObjectValidator } from '../../definition.js';
import { asObjectList } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

const SECOND_SOURCE = 'Forbidden: may not specify more than 1 volume type';

/**
 * The JSON names of the volume sources, in the order validateVolumeSource checks them: the
 * spec's elementOrder of spec.volumes, which ends with the volume's name.
 */
export function volumeSourceOrder(validator: ObjectValidator): readonly string[] {
  const order = validator.elementOrder('/spec/volumes');
  if (!order) throw new Error('core/v1 Pod: spec.volumes declares no elementOrder');
  return order.filter((name) => name !== 'name');
}

/** The first source a volume sets, in that order: the one kube-apiserver validates. */
export function firstSource(volume: Obj, sources: readonly string[]): string | undefined {
  return sources.find((name) => volume[name] !== undefined && volume[name] !== null);
}

/** The causes without those found inside a volume's second and later sources. */
export function withoutUnvalidatedSources(spec: Obj, causes: StatusCause[], sources: readonly string[]): StatusCause[] {
  const skipped: string[] = [];
  asObjectList(spec.volumes).forEach((volume, i) => {
    const set = sources.filter((name) => volume[name] !== undefined && volume[name] !== null);
    for (const name of set.slice(1)) skipped.push(`spec.volumes[${i}].${name}`);
  });
  if (!skipped.length) return causes;
  const inside = (field: string, prefix: string): boolean => field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`);
  return causes.filter((c) => c.message === SECOND_SOURCE || !skipped.some((prefix) => inside(c.field ?? '', prefix)));
}

// LimitRange: every rule of an item compares quantities across its maps or depends on its type
// (kube-apiserver's ValidateLimitRange), and the Container defaults copy quantities between maps
// (SetDefaults_LimitRangeItem), so both live here rather than in the spec. Keys are visited in
// sorted order, where kube-apiserver walks Go maps in random order.

import type { StatusCause } from '../../errors/status-error.js';
import * as fe from '../../validation/field-errors.js';
import { isQualifiedName } from '../../machinery/formats.js';
import { compareQuantities, formatQuantity, quantityOf, quantityValue, type Quantity } from '../../machinery/quantity.js';
import { isOvercommitAllowed, validateContainerResourceName, validateResourceName } from '../../validation/resource-names.js';
import type { ResourceDefinition } from '../definition.js';
import { asObject, asString, isPlainObject, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { hasMember, setMember } from '../../machinery/own-member.js';

type Item = Record<string, unknown>;
type QuantityMap = Map<string, Quantity>;

const STANDARD_LIMIT_TYPES: ReadonlySet<string> = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);
const MAP_FIELDS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;
/** resource.MaxMilliValue: past it, milli values would overflow an int64. */
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

function itemsOf(obj: KubeObject): Item[] {
  const spec = obj.spec;
  if (!isPlainObject(spec) || !Array.isArray(spec.limits)) return [];
  return (spec.limits as unknown[]).map(asObject);
}

function quantityMap(item: Item, field: string): QuantityMap {
  const out: QuantityMap = new Map();
  const raw = item[field];
  if (!isPlainObject(raw)) return out;
  for (const key of Object.keys(raw).sort()) {
    const q = quantityOf(raw[key]);
    // Unparsable quantities are the decoder's error (reported by the generated validator).
    if (q) out.set(key, q);
  }
  return out;
}

/** SetDefaults_LimitRangeItem: a Container item's default limit from max, default request from default, then min. */
export function defaultLimitRangeItem(item: Item): void {
  if (item.type !== 'Container') return;
  const fill = (target: string, source: string): void => {
    const from = item[source];
    if (!isPlainObject(from)) return;
    const to = isPlainObject(item[target]) ? (item[target] as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(from)) if (!hasMember(to, key)) setMember(to, key, value);
    if (Object.keys(to).length > 0) item[target] = to;
  };
  fill('default', 'max');
  fill('defaultRequest', 'default');
  fill('defaultRequest', 'min');
}

function validateTypeName(type: string, path: string): StatusCause[] {
  const causes = isQualifiedName(type).map((msg) => fe.invalid(path, type, msg));
  if (causes.length === 0 && !type.includes('/') && !STANDARD_LIMIT_TYPES.has(type)) {
    causes.push(fe.invalid(path, type, 'must be a standard limit type or fully qualified'));
  }
  return causes;
}

function validateResourceKey(type: string, key: string, path: string): StatusCause[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(key, path) : validateResourceName(key, path);
}

const q = formatQuantity;

/** The float64 arithmetic of kube-apiserver's ratio check, in milli units when nothing overflows. */
function ratioExceedsMaxOverMin(ratio: Quantity, min: Quantity, max: Quantity): number | undefined {
  const milli = (x: Quantity): bigint => quantityValue({ ...x, num: x.num * 1000n });
  let ratioValue = Number(quantityValue(ratio));
  let minValue = quantityValue(min);
  let maxValue = quantityValue(max);
  if (quantityValue(ratio) < MAX_MILLI_VALUE && minValue < MAX_MILLI_VALUE && maxValue < MAX_MILLI_VALUE) {
    ratioValue = Number(milli(ratio)) / 1000;
    minValue = milli(min);
    maxValue = milli(max);
  }
  const limit = Number(maxValue) / Number(minValue);
  return ratioValue > limit ? limit : undefined;
}

function validateItem(item: Item, path: string, seenTypes: Set<string>): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = asString(item.type);
  causes.push(...validateTypeName(type, `${path}.type`));
  if (seenTypes.has(type)) causes.push(fe.duplicate(`${path}.type`, type));
  seenTypes.add(type);

  const maps = Object.fromEntries(MAP_FIELDS.map((f) => [f, quantityMap(item, f)])) as Record<(typeof MAP_FIELDS)[number], QuantityMap>;
  const keys = new Set<string>();
  const checkNames = (field: (typeof MAP_FIELDS)[number]): void => {
    for (const key of maps[field].keys()) {
      causes.push(...validateResourceKey(type, key, `${path}.${field}[${key}]`));
      keys.add(key);
    }
  };
  checkNames('max');
  checkNames('min');
  if (type === 'Pod') {
    if (maps.default.size > 0) causes.push(fe.forbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
    if (maps.defaultRequest.size > 0) causes.push(fe.forbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    maps.default.clear();
    maps.defaultRequest.clear();
  } else {
    checkNames('default');
    checkNames('defaultRequest');
  }
  if (type === 'PersistentVolumeClaim' && !maps.min.has('storage') && !maps.max.has('storage')) {
    causes.push(fe.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
  checkNames('maxLimitRequestRatio');

  for (const key of [...keys].sort()) {
    const min = maps.min.get(key);
    const max = maps.max.get(key);
    const def = maps.default.get(key);
    const defReq = maps.defaultRequest.get(key);
    const ratio = maps.maxLimitRequestRatio.get(key);
    const at = (field: string): string => `${path}.${field}[${key}]`;
    if (min && max && compareQuantities(min, max) > 0) {
      causes.push(fe.invalid(at('min'), q(min), `min value ${q(min)} is greater than max value ${q(max)}`));
    }
    if (defReq && min && compareQuantities(min, defReq) > 0) {
      causes.push(fe.invalid(at('defaultRequest'), q(defReq), `min value ${q(min)} is greater than default request value ${q(defReq)}`));
    }
    if (defReq && max && compareQuantities(defReq, max) > 0) {
      causes.push(fe.invalid(at('defaultRequest'), q(defReq), `default request value ${q(defReq)} is greater than max value ${q(max)}`));
    }
    if (defReq && def && compareQuantities(defReq, def) > 0) {
      causes.push(fe.invalid(at('defaultRequest'), q(defReq), `default request value ${q(defReq)} is greater than default limit value ${q(def)}`));
    }
    if (def && min && compareQuantities(min, def) > 0) {
      causes.push(fe.invalid(at('default'), q(min), `min value ${q(min)} is greater than default value ${q(def)}`));
    }
    if (def && max && compareQuantities(def, max) > 0) {
      causes.push(fe.invalid(at('default'), q(max), `default value ${q(def)} is greater than max value ${q(max)}`));
    }
    if (ratio && compareQuantities(ratio, { num: 1n, den: 1n, format: 'DecimalSI' }) < 0) {
      causes.push(fe.invalid(at('maxLimitRequestRatio'), q(ratio), `ratio ${q(ratio)} is less than 1`));
    }
    if (ratio && min && max) {
      const limit = ratioExceedsMaxOverMin(ratio, min, max);
      if (limit !== undefined) causes.push(fe.invalid(at('maxLimitRequestRatio'), q(ratio), `ratio ${q(ratio)} is greater than max/min = ${limit.toFixed(6)}`));
    }
    if (!isOvercommitAllowed(key) && def && defReq && compareQuantities(def, defReq) !== 0) {
      causes.push(fe.invalid(at('defaultRequest'), q(defReq), `default value ${q(def)} must equal to defaultRequest value ${q(defReq)} in ${key}`));
    }
  }
  return causes;
}

/** ValidateLimitRange without its ObjectMeta part (the generated validator checks that). */
export function validateLimitRangeSpec(obj: KubeObject): StatusCause[] {
  const seen = new Set<string>();
  return itemsOf(obj).flatMap((item, i) => validateItem(item, `spec.limits[${i}]`, seen));
}

function applyItemDefaults(obj: KubeObject): void {
  for (const item of itemsOf(obj)) defaultLimitRangeItem(item);
}

export function limitRangeStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      base.main.prepareForCreate(obj);
      applyItemDefaults(obj);
    },
    validate: (obj) => [...base.main.validate(obj), ...validateLimitRangeSpec(obj)],
    prepareForUpdate(obj, old) {
      base.main.prepareForUpdate(obj, old);
      applyItemDefaults(obj);
    },
    validateUpdate: (obj, old) => [...base.main.validateUpdate(obj, old), ...validateLimitRangeSpec(obj)],
  };
  return { ...base, main };
}

// What kube-apiserver's LimitRanger plugin does with one LimitRange (plugin/pkg/admission/
// limitranger): fill a pod's missing container limits and requests from the Container item's
// `default` and `defaultRequest`, then check containers, the pod as a whole and claims against
// `min`, `max` and `maxLimitRequestRatio`. The comparisons use kube's int64 arithmetic: values
// rounded up to whole milli-units (whole units when a milli value would overflow int64), kept
// here as BigInts; only the limit/request ratio is a float, as upstream divides in float64.
// Go walks these maps in random order; resource names are visited sorted here.

import { formatQuantity, quantityOf, quantityValue, type Quantity } from '../../machinery/quantity.js';
import { asObject, asObjectList, isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { getMember, hasMember, setMember } from '../../machinery/own-member.js';

type Obj = Record<string, unknown>;
/** A ResourceList: resource name to quantity. */
type ResourceList = Map<string, Quantity>;

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

/** resource.MaxMilliValue: the largest value whose milli value still fits an int64. */
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

function resourceList(value: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isPlainObject(value)) return out;
  for (const key of Object.keys(value).sort()) {
    const q = quantityOf(value[key]);
    // Validation has refused unparsable quantities before admission looks at them.
    if (q) out.set(key, q);
  }
  return out;
}

function limitItems(limitRange: KubeObject): Obj[] {
  return asObjectList(asObject(limitRange.spec).limits);
}

// ---- mutation -------------------------------------------------------------------------------

/** defaultContainerResourceRequirements: the Container items' defaults (a later item wins a name). */
function containerDefaults(limitRange: KubeObject): { requests: Obj; limits: Obj } {
  const requests: Obj = {};
  const limits: Obj = {};
  for (const item of limitItems(limitRange)) {
    if (item.type !== 'Container') continue;
    for (const [name, value] of Object.entries(asObject(item.defaultRequest))) setMember(requests, name, value);
    for (const [name, value] of Object.entries(asObject(item.default))) setMember(limits, name, value);
  }
  return { requests, limits };
}

/** mergeContainerResources: fills names the container lacks; returns the annotation's phrases for it. */
function mergeContainerResources(container: Obj, defaults: { requests: Obj; limits: Obj }, label: string): string[] {
  const resources = asObject(container.resources);
  const fill = (field: 'requests' | 'limits', from: Obj): string[] => {
    const current = asObject(resources[field]);
    const set = Object.keys(from).filter((name) => !hasMember(current, name));
    for (const name of set) setMember(current, name, getMember(from, name));
    if (set.length) resources[field] = current;
    return set.sort();
  };
  const setLimits = fill('limits', defaults.limits);
  const setRequests = fill('requests', defaults.requests);
  if (setLimits.length || setRequests.length) container.resources = resources;
  const name = typeof container.name === 'string' ? container.name : '';
  const phrases: string[] = [];
  if (setRequests.length) phrases.push(`${setRequests.join(', ')} request for ${label} ${name}`);
  if (setLimits.length) phrases.push(`${setLimits.join(', ')} limit for ${label} ${name}`);
  return phrases;
}

/**
 * PodMutateLimitFunc: containers and init containers (never ephemeral ones) get the missing
 * defaults, and the pod says so in its kubernetes.io/limit-ranger annotation. Each LimitRange
 * that sets anything writes the annotation afresh, naming only what it set itself.
 */
export function defaultPodResources(limitRange: KubeObject, pod: KubeObject): void {
  const defaults = containerDefaults(limitRange);
  const spec = asObject(pod.spec);
  const phrases = [
    ...asObjectList(spec.containers).flatMap((c) => mergeContainerResources(c, defaults, 'container')),
    ...asObjectList(spec.initContainers).flatMap((c) => mergeContainerResources(c, defaults, 'init container')),
  ];
  if (!phrases.length) return;
  const meta = metaOf(pod);
  meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${phrases.join('; ')}` };
}

// ---- constraints ----------------------------------------------------------------------------

const milliValue = (q: Quantity): bigint => quantityValue({ ...q, num: q.num * 1000n });

/** requestLimitEnforcedValues: a missing quantity counts as zero; milli units unless one would overflow. */
function comparable(request: Quantity | undefined, limit: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const zero: Quantity = { num: 0n, den: 1n, format: 'DecimalSI' };
  const values = [request ?? zero, limit ?? zero, enforced];
  const fitsMilli = values.every((q) => quantityValue(q) <= MAX_MILLI_VALUE);
  const [r, l, e] = values.map((q) => (fitsMilli ? milliValue(q) : quantityValue(q))) as [bigint, bigint, bigint];
  return [r, l, e];
}

type Check = (type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList) => string | undefined;

const q = formatQuantity;

const minConstraint: Check = (type, name, enforced, requests, limits) => {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${q(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${q(enforced)}, but request is ${q(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${q(enforced)}, but limit is ${q(lim)}`;
  return undefined;
};

const maxConstraint: Check = (type, name, enforced, requests, limits) => {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${q(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${q(enforced)}, but limit is ${q(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${q(enforced)}, but request is ${q(req)}`;
  return undefined;
};

/** maxRequestConstraint: for claims, whose limits kube does not treat as user input. */
const maxRequestConstraint: Check = (type, name, enforced, requests) => {
  const req = requests.get(name);
  const [r, , e] = comparable(req, undefined, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${q(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${q(enforced)}, but request is ${q(req)}`;
  return undefined;
};

const limitRequestRatioConstraint: Check = (type, name, enforced, requests, limits) => {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced);
  const prefix = `${name} max limit to request ratio per ${type} is ${q(enforced)}`;
  if (!req || r === 0n) return `${prefix}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${prefix}, but no limit is specified or limit is 0`;
  const ratio = Number(l) / Number(r);
  const enforcedValue = quantityValue(enforced);
  const exceeds = enforcedValue <= MAX_MILLI_VALUE ? ratio * 1000 > Number(milliValue(enforced)) : ratio > Number(enforcedValue);
  return exceeds ? `${prefix}, but provided ratio is ${goFixed6(ratio)}` : undefined;
};

/** Go's %f of a float64: its exact value rounded half to even at six decimals. */
export function goFixed6(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : x < 0 ? '-Inf' : 'NaN';
  const bits = new BigUint64Array(new Float64Array([Math.abs(x)]).buffer)[0] as bigint;
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const shift = (exponent === 0 ? 1 : exponent) - 1075;
  const num = shift >= 0 ? mantissa << BigInt(shift) : mantissa;
  const den = shift >= 0 ? 1n : 1n << BigInt(-shift);
  const scaled = num * 1_000_000n;
  let units = scaled / den;
  const rest = (scaled % den) * 2n;
  if (rest > den || (rest === den && units % 2n === 1n)) units += 1n;
  const digits = units.toString().padStart(7, '0');
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

/** Every min, max and ratio rule of one item against one set of requests and limits. */
function itemViolations(item: Obj, type: string, requests: ResourceList, limits: ResourceList, max: Check = maxConstraint): string[] {
  const out: string[] = [];
  const run = (field: string, check: Check): void => {
    for (const [name, enforced] of resourceList(item[field])) {
      const message = check(type, name, enforced, requests, limits);
      if (message) out.push(message);
    }
  };
  run('min', minConstraint);
  run('max', max);
  run('maxLimitRequestRatio', limitRequestRatioConstraint);
  return out;
}

// ---- pod totals -----------------------------------------------------------------------------

/** Quantity.Add: exact; the sum keeps the first operand's format unless that one is zero. */
function add(a: Quantity, b: Quantity): Quantity {
  return { num: a.num * b.den + b.num * a.den, den: a.den * b.den, format: a.num === 0n ? b.format : a.format };
}

function addResourceList(list: ResourceList, more: ResourceList): void {
  for (const [name, value] of more) {
    const current = list.get(name);
    list.set(name, current ? add(current, value) : value);
  }
}

function maxResourceList(list: ResourceList, more: ResourceList): void {
  for (const [name, value] of more) {
    const current = list.get(name);
    if (!current || value.num * current.den > current.num * value.den) list.set(name, value);
  }
}

/**
 * The pod's effective requests or limits: its containers' sum, or more when an init container
 * needs more while it runs; sidecars (init containers with restartPolicy Always) keep running, so
 * they add to the containers and to every init container started after them. With
 * PodLevelResources, cpu and memory set at pod level replace the containers' figures.
 */
function podResources(spec: Obj, field: 'requests' | 'limits', podLevelResources: boolean): ResourceList {
  const total: ResourceList = new Map();
  for (const c of asObjectList(spec.containers)) addResourceList(total, resourceList(asObject(c.resources)[field]));
  const sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const c of asObjectList(spec.initContainers)) {
    const own = resourceList(asObject(c.resources)[field]);
    let running: ResourceList;
    if (c.restartPolicy === 'Always') {
      addResourceList(total, own);
      addResourceList(sidecars, own);
      running = new Map(sidecars);
    } else {
      running = new Map(own);
      addResourceList(running, sidecars);
    }
    maxResourceList(initPeak, running);
  }
  maxResourceList(total, initPeak);
  if (podLevelResources && isPlainObject(spec.resources)) {
    for (const [name, value] of resourceList(asObject(spec.resources)[field])) {
      if (name === 'cpu' || name === 'memory') total.set(name, value);
    }
  }
  return total;
}

export interface PodLimitOptions {
  /** The PodLevelResources feature gate (alpha, off by default in 1.33). */
  podLevelResources?: boolean;
}

/** PodValidateLimitFunc: the messages of every rule the pod breaks, in kube's order. */
export function podLimitViolations(limitRange: KubeObject, pod: KubeObject, options: PodLimitOptions = {}): string[] {
  const spec = asObject(pod.spec);
  const out: string[] = [];
  for (const item of limitItems(limitRange)) {
    if (item.type === 'Container') {
      for (const c of [...asObjectList(spec.containers), ...asObjectList(spec.initContainers)]) {
        const resources = asObject(c.resources);
        out.push(...itemViolations(item, 'Container', resourceList(resources.requests), resourceList(resources.limits)));
      }
    }
    if (item.type === 'Pod') {
      const requests = podResources(spec, 'requests', options.podLevelResources === true);
      const limits = podResources(spec, 'limits', options.podLevelResources === true);
      out.push(...itemViolations(item, 'Pod', requests, limits));
    }
  }
  return out;
}

/** PersistentVolumeClaimValidateLimitFunc: min and max bound spec.resources.requests only. */
export function claimLimitViolations(limitRange: KubeObject, claim: KubeObject): string[] {
  const requests = resourceList(asObject(asObject(asObject(claim.spec).resources).requests));
  const out: string[] = [];
  for (const item of limitItems(limitRange)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    const bounds = { min: item.min, max: item.max };
    out.push(...itemViolations(bounds, 'PersistentVolumeClaim', requests, new Map(), maxRequestConstraint));
  }
  return out;
}

/** utilerrors.NewAggregate(...).Error(): one message bare, several bracketed, repeats dropped. */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

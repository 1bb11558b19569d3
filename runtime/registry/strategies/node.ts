// Node: kube-apiserver's node strategy and ValidateNode / ValidateNodeUpdate. Unlike other kinds
// a node may be created with its status (a kubelet registers itself with it); afterwards the
// main endpoint keeps the stored status and the status endpoint the stored spec. podCIDRs and
// providerID may be set once, externalID never changes, and the removed dynamic kubelet
// configuration (spec.configSource, status.config) is dropped unless the stored node has it.
// kube-apiserver reports taint errors under metadata.taints (its ValidateNode hands the taint
// check the metadata path), and so do we.

import type { StatusCause } from '../../errors/status-error.js';
import * as fe from '../../validation/field-errors.js';
import { isIP, isIPv6Address, isLabelValue, isQualifiedName } from '../../machinery/formats.js';
import { resourceQuantityValueCauses } from '../../validation/resource-names.js';
import type { ResourceDefinition } from '../definition.js';
import { asList, asObject, asObjectList, asString, deepClone, deepEqual, isPlainObject, isSet, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';

type Obj = Record<string, unknown>;

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const CIDR_EXAMPLE = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
const CIDR_CHANGE = 'node updates may not change podCIDR except from "" to valid';
const PROVIDER_ID_CHANGE = 'node updates may not change providerID except from "" to valid';
const CONFIG_SOURCE_REMOVED = 'spec.configSource: the feature is removed';

const specOf = (obj: KubeObject): Obj => (isPlainObject(obj.spec) ? obj.spec : {});
const statusOf = (obj: KubeObject): Obj => (isPlainObject(obj.status) ? obj.status : {});

/**
 * The v1 to internal conversion keeps one list of pod CIDRs, and the way back writes its first
 * entry into podCIDR: a lone podCIDR becomes the list, and a list overrides podCIDR.
 */
function convertPodCIDRs(obj: KubeObject): void {
  if (!isPlainObject(obj.spec)) return;
  const spec = obj.spec;
  const cidrs = asList(spec.podCIDRs);
  if (cidrs.length > 0) spec.podCIDR = cidrs[0];
  else if (typeof spec.podCIDR === 'string' && spec.podCIDR !== '') spec.podCIDRs = [spec.podCIDR];
}

/** SetDefaults_NodeStatus: allocatable is the capacity when the kubelet reports none. */
function defaultAllocatable(obj: KubeObject): void {
  const status = obj.status;
  if (isPlainObject(status) && isPlainObject(status.capacity) && !isSet(status.allocatable)) status.allocatable = deepClone(status.capacity);
}

/**
 * netutils.ParseCIDRSloppy: an IPv4 (leading zeros allowed) or IPv6 address, '/', a prefix
 * length within the address's width; the family as Go reckons it (an IPv4-mapped IPv6 is IPv4).
 */
function parseCIDR(value: string): 4 | 6 | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const addr = value.slice(0, slash);
  const prefix = value.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(prefix) || isIP(addr).length > 0) return undefined;
  if (Number(prefix) > (addr.includes(':') ? 128 : 32)) return undefined;
  return isIPv6Address(addr).length === 0 ? 6 : 4;
}

function podCIDRCauses(spec: Obj): StatusCause[] {
  const cidrs = asList(spec.podCIDRs).map((c) => String(c));
  if (cidrs.length === 0) return [];
  const path = 'spec.podCIDRs';
  const causes: StatusCause[] = [];
  const families = cidrs.map(parseCIDR);
  families.forEach((family, i) => {
    if (family === undefined) causes.push(fe.invalid(`${path}[${i}]`, cidrs[i], CIDR_EXAMPLE));
  });
  if (cidrs.length > 1) {
    const bad = families.findIndex((f) => f === undefined);
    if (bad >= 0) {
      causes.push(fe.internal(path, `invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[${bad}]: <nil> (invalid CIDR address: ${cidrs[bad]})`));
    }
    const dualStack = bad < 0 && families.includes(4) && families.includes(6);
    if (!dualStack || cidrs.length > 2) causes.push(fe.invalid(path, cidrs, 'may specify no more than one CIDR for each IP family'));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) causes.push(fe.duplicate(`${path}[${i}]`, c));
      seen.add(c);
    });
  }
  return causes;
}

/** validateNodeTaints: keys qualified names, values label values, a known effect, unique by key and effect. */
function taintCauses(spec: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  asObjectList(spec.taints).forEach((taint, i) => {
    const at = `metadata.taints[${i}]`;
    const key = asString(taint.key);
    const value = asString(taint.value);
    const effect = asString(taint.effect);
    causes.push(...isQualifiedName(key).map((m) => fe.invalid(`${at}.key`, key, m)));
    const valueErrors = isLabelValue(value);
    if (valueErrors.length > 0) causes.push(fe.invalid(`${at}.value`, value, valueErrors.join(';')));
    if (effect === '') causes.push(fe.required(`${at}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) causes.push(fe.notSupported(`${at}.effect`, effect, TAINT_EFFECTS));
    const id = JSON.stringify([key, effect]);
    if (seen.has(id)) {
      const dup = fe.duplicate(at, taint);
      causes.push({ ...dup, message: `${dup.message}: taints must be unique by key and effect pair` });
      return;
    }
    seen.add(id);
  });
  return causes;
}

/** ValidateNodeResources: capacity and allocatable never negative, whole for countable resources. */
function resourceCauses(status: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const list of ['capacity', 'allocatable']) {
    for (const [name, raw] of Object.entries(asObject(status[list]))) causes.push(...resourceQuantityValueCauses(name, raw, `status.${list}.${name}`));
  }
  return causes;
}

/** ValidateNode past the generic metadata rules. */
function nodeCauses(obj: KubeObject): StatusCause[] {
  const spec = specOf(obj);
  return [...taintCauses(spec), ...resourceCauses(statusOf(obj)), ...podCIDRCauses(spec)];
}

/** ValidateNodeUpdate past the generic metadata update rules. */
function nodeUpdateCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const status = statusOf(obj);
  const causes = resourceCauses(status);
  const seen: Obj[] = [];
  asObjectList(status.addresses).forEach((address, i) => {
    if (seen.some((a) => deepEqual(a, address))) causes.push(fe.duplicate(`status.addresses[${i}]`, address));
    seen.push(address);
  });
  const oldCIDRs = asList(oldSpec.podCIDRs);
  const newCIDRs = asList(spec.podCIDRs);
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== newCIDRs.length) causes.push(fe.forbidden('spec.podCIDRs', CIDR_CHANGE));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && causes.push(fe.forbidden('spec.podCIDRs', CIDR_CHANGE)));
  }
  const oldProvider = asString(oldSpec.providerID);
  if (oldProvider !== '' && oldProvider !== asString(spec.providerID)) causes.push(fe.forbidden('spec.providerID', PROVIDER_ID_CHANGE));
  causes.push(...taintCauses(spec));
  if (asString(spec.externalID) !== asString(oldSpec.externalID)) causes.push(fe.forbidden('spec.externalID', 'may not be updated'));
  return causes;
}

const configSourceWarnings = (obj: KubeObject): string[] => (isSet(specOf(obj).configSource) ? [CONFIG_SOURCE_REMOVED] : []);

export function nodeStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    applyDefaults(obj) {
      def.validator.applyDefaults(obj);
      convertPodCIDRs(obj);
      defaultAllocatable(obj);
    },
    // A node's status may be written on create: the registering kubelet sends it.
    prepareForCreate(obj) {
      main.applyDefaults!(obj);
      if (isPlainObject(obj.spec)) delete obj.spec.configSource;
      if (isPlainObject(obj.status)) delete obj.status.config;
    },
    validate: (obj) => [...base.main.validate(obj), ...nodeCauses(obj)],
    warningsOnCreate: configSourceWarnings,
    prepareForUpdate(obj, old) {
      main.applyDefaults!(obj);
      if (old.status === undefined) delete obj.status;
      else obj.status = deepClone(old.status);
      if (!isSet(specOf(old).configSource) && isPlainObject(obj.spec)) delete obj.spec.configSource;
    },
    validateUpdate: (obj, old) => [
      ...base.main.validate(obj).filter((c) => !c.field?.startsWith('metadata')),
      ...nodeCauses(obj),
      ...base.main.validateUpdate(obj, old),
      ...nodeUpdateCauses(obj, old),
    ],
    warningsOnUpdate: configSourceWarnings,
    selectableFields: (obj) => ({ ...base.main.selectableFields(obj), 'spec.unschedulable': String(specOf(obj).unschedulable === true) }),
  };
  const baseStatus = base.subresources.status as Strategy;
  const status: Strategy = {
    ...baseStatus,
    prepareForUpdate(obj, old) {
      baseStatus.prepareForUpdate(obj, old);
      defaultAllocatable(obj);
      if (!isSet(statusOf(old).config) && isPlainObject(obj.status)) delete obj.status.config;
    },
    validateUpdate: (obj, old) => [...base.main.validateUpdate(obj, old), ...nodeUpdateCauses(obj, old)],
    warningsOnUpdate: () => [],
  };
  return { ...base, main, subresources: { status } };
}

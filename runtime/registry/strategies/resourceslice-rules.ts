// The ResourceSlice rules that span more than one field, with kube-apiserver 1.33's messages and
// paths (pkg/apis/resource/validation): exactly one node selection for the slice and, with
// perDeviceNodeSelection, for each device; pool names made of DNS subdomains; device names unique;
// attribute and capacity names qualified (C identifier with an optional domain); one value per
// attribute; counter totals per device, per slice and in the shared sets, and counters drawn only
// from sets and counters the slice declares.

import type { StatusCause } from '../../errors/status-error.js';
import { duplicate, invalid, required, tooLong } from '../../validation/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../machinery/formats.js';
import { validateNodeSelector } from '../../validation/node-selector.js';
import { asObject, asObjectList, asString, isSet, type KubeObject } from '../../machinery/object.js';

type Obj = Record<string, unknown>;

export const POOL_NAME_MAX_LENGTH = 253;
export const ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32;
export const ATTRIBUTE_VALUE_MAX_LENGTH = 64;
export const COUNTERS_PER_DEVICE = 32;
export const COUNTERS_IN_DEVICES_PER_SLICE = 1024;
export const SHARED_COUNTERS_PER_SLICE = 32;
const DEVICE_MAX_DOMAIN_LENGTH = 63;
const DEVICE_MAX_ID_LENGTH = 32;
/** Map keys longer than this are shortened in field paths, as kube-apiserver does. */
const KEY_PATH_MAX_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH;
const DRIVER_NAME_MAX_LENGTH = 63;

const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const C_IDENTIFIER_MESSAGE =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";

// Semantic Versioning 2.0.0: three numbers without leading zeros, then optional pre-release and build parts.
const NUMERIC = '(0|[1-9]\\d*)';
const PRE_RELEASE = '(0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)';
const BUILD = '[0-9a-zA-Z-]+';
const SEMVER = new RegExp(`^${NUMERIC}\\.${NUMERIC}\\.${NUMERIC}(-${PRE_RELEASE}(\\.${PRE_RELEASE})*)?(\\+${BUILD}(\\.${BUILD})*)?$`);

const SLICE_SELECTION_MESSAGE = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
const DEVICE_SELECTION_MESSAGE =
  'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';

/** A map key as a field path shows it: long keys keep their ends around an ellipsis. */
function keyPath(path: string, key: string): string {
  if (key.length <= KEY_PATH_MAX_LENGTH) return `${path}[${key}]`;
  const remaining = KEY_PATH_MAX_LENGTH - 3;
  return `${path}[${key.slice(0, Math.ceil(remaining / 2))}...${key.slice(key.length - Math.floor(remaining / 2))}]`;
}

function cIdentifier(id: string, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (id.length > DEVICE_MAX_ID_LENGTH) errs.push(tooLong(path, DEVICE_MAX_ID_LENGTH));
  if (!C_IDENTIFIER.test(id)) errs.push({ reason: 'FieldValueTypeInvalid', message: `Invalid value: ${JSON.stringify(id)}: ${C_IDENTIFIER_MESSAGE}`, field: path });
  return errs;
}

/** A driver name (ValidateCSIDriverName): a DNS subdomain of at most 63 characters. */
function driverName(name: string, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (name.length > DRIVER_NAME_MAX_LENGTH) errs.push(tooLong(path, DRIVER_NAME_MAX_LENGTH));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(invalid(path, name, msg));
  return errs;
}

/** An attribute or capacity name: a C identifier, optionally `<domain>/` before it. */
function qualifiedName(name: string, path: string): StatusCause[] {
  const parts = name.split('/');
  if (parts.length === 1) return cIdentifier(name, path);
  if (parts.length !== 2) return [];
  const [domain, id] = parts as [string, string];
  const errs: StatusCause[] = [];
  if (domain === '') errs.push(required(path, 'the domain must not be empty'));
  else errs.push(...driverName(domain, path));
  if (id === '') errs.push(required(path, 'the name must not be empty'));
  else errs.push(...cIdentifier(id, path));
  return errs;
}

function poolName(name: unknown, path: string): StatusCause[] {
  if (typeof name !== 'string') return [];
  if (name === '') return [required(path)];
  const errs: StatusCause[] = [];
  if (name.length > POOL_NAME_MAX_LENGTH) errs.push(tooLong(path, POOL_NAME_MAX_LENGTH));
  for (const part of name.split('/')) for (const msg of isDNS1123Subdomain(part)) errs.push(invalid(path, part, msg));
  return errs;
}

function attribute(value: Obj, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const present = ['bool', 'int', 'string', 'version'].filter((k) => isSet(value[k]));
  if (typeof value.string === 'string' && value.string.length > ATTRIBUTE_VALUE_MAX_LENGTH) errs.push(tooLong(`${path}.string`, ATTRIBUTE_VALUE_MAX_LENGTH));
  if (typeof value.version === 'string') {
    if (!SEMVER.test(value.version)) errs.push(invalid(`${path}.version`, value.version, 'must be a string compatible with semver.org spec 2.0.0'));
    if (value.version.length > ATTRIBUTE_VALUE_MAX_LENGTH) errs.push(tooLong(`${path}.version`, ATTRIBUTE_VALUE_MAX_LENGTH));
  }
  if (present.length === 0) errs.push(required(path, 'exactly one value must be specified'));
  else if (present.length > 1) errs.push(invalid(path, value, 'exactly one value must be specified'));
  return errs;
}

/** `{`a`, `b`}`: the value kube-apiserver reports when several exclusive fields are set. */
const fieldSet = (names: string[]): string => `{${names.map((n) => `\`${n}\``).join(', ')}}`;

function deviceNodeSelection(device: Obj, path: string, perDevice: boolean): StatusCause[] {
  const errs: StatusCause[] = [];
  if (!perDevice) {
    if (isSet(device.nodeName) || isSet(device.nodeSelector) || isSet(device.allNodes)) {
      errs.push(invalid(path, null, '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec'));
    }
    return errs;
  }
  const set: string[] = [];
  if (isSet(device.nodeName)) {
    if (device.nodeName !== '') set.push('nodeName');
    else errs.push(invalid(`${path}.nodeName`, '', 'must not be empty'));
  }
  if (isSet(device.nodeSelector)) {
    set.push('nodeSelector');
    errs.push(...validateNodeSelector(device.nodeSelector, `${path}.nodeSelector`));
  }
  if (isSet(device.allNodes)) {
    if (device.allNodes === true) set.push('allNodes');
    else errs.push(invalid(`${path}.allNodes`, device.allNodes, 'must be either unset or set to true'));
  }
  if (set.length === 0) errs.push(required(path, DEVICE_SELECTION_MESSAGE));
  else if (set.length > 1) errs.push(invalid(path, fieldSet(set), DEVICE_SELECTION_MESSAGE));
  return errs;
}

function counterConsumptions(device: Obj, path: string, sharedSets: Map<string, Set<string>>): StatusCause[] {
  const errs: StatusCause[] = [];
  const seen = new Set<string>();
  asObjectList(device.consumesCounters).forEach((consumption, j) => {
    const at = `${path}.consumesCounters[${j}]`;
    const set = asString(consumption.counterSet);
    if (set !== '') {
      for (const msg of isDNS1123Label(set)) errs.push(invalid(`${at}.counterSet`, set, msg));
      if (seen.has(set)) errs.push(duplicate(`${at}.counterSet`, set));
      seen.add(set);
    }
    const known = sharedSets.get(set);
    if (!known) errs.push(invalid(`${at}.counterSet`, set, 'must reference a counterSet defined in the ResourceSlice sharedCounters'));
    const counters = asObject(consumption.counters);
    if (isSet(consumption.counters) && Object.keys(counters).length === 0) errs.push(required(`${at}.counters`));
    for (const name of Object.keys(counters).sort()) {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(keyPath(`${at}.counters`, name), name, msg));
      if (known && !known.has(name)) errs.push(invalid(`${at}.counters`, name, 'must reference a counter defined in the ResourceSlice sharedCounters'));
    }
  });
  return errs;
}

const countersOf = (device: Obj): number => asObjectList(device.consumesCounters).reduce((n, c) => n + Object.keys(asObject(c.counters)).length, 0);

function device(dev: Obj, path: string, perDevice: boolean, sharedSets: Map<string, Set<string>>): StatusCause[] {
  const errs: StatusCause[] = [];
  const attributes = asObject(dev.attributes);
  const capacity = asObject(dev.capacity);
  const total = Object.keys(attributes).length + Object.keys(capacity).length;
  if (total > ATTRIBUTES_AND_CAPACITIES_PER_DEVICE) {
    errs.push(invalid(path, total, `the total number of attributes and capacities must not exceed ${ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}`));
  }
  for (const name of Object.keys(attributes).sort()) {
    const at = keyPath(`${path}.attributes`, name);
    errs.push(...qualifiedName(name, at), ...attribute(asObject(attributes[name]), at));
  }
  for (const name of Object.keys(capacity).sort()) errs.push(...qualifiedName(name, keyPath(`${path}.capacity`, name)));
  errs.push(...counterConsumptions(dev, path, sharedSets));
  const counters = countersOf(dev);
  if (counters > COUNTERS_PER_DEVICE) errs.push(invalid(path, counters, `the total number of counters must not exceed ${COUNTERS_PER_DEVICE}`));
  errs.push(...deviceNodeSelection(dev, path, perDevice));
  return errs;
}

/** The cross-field rules of a ResourceSlice; the per-field ones are the generated validator's. */
export function validateResourceSliceSpec(obj: KubeObject): StatusCause[] {
  const spec = asObject(obj.spec);
  const errs: StatusCause[] = [];
  errs.push(...poolName(asObject(spec.pool).name, 'spec.pool.name'));

  const set: string[] = [];
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') set.push('nodeName');
  if (isSet(spec.nodeSelector)) {
    set.push('nodeSelector');
    errs.push(...validateNodeSelector(spec.nodeSelector, 'spec.nodeSelector'));
    const terms = asObject(spec.nodeSelector).nodeSelectorTerms;
    if (!Array.isArray(terms) || terms.length !== 1) {
      errs.push(invalid('spec.nodeSelector.nodeSelectorTerms', terms ?? null, 'must have exactly one node selector term'));
    }
  }
  if (spec.allNodes === true) set.push('allNodes');
  if (spec.perDeviceNodeSelection === true) set.push('perDeviceNodeSelection');
  if (set.length === 0) errs.push(required('spec', SLICE_SELECTION_MESSAGE));
  else if (set.length > 1) errs.push(invalid('spec', fieldSet(set), `${SLICE_SELECTION_MESSAGE}, but multiple fields are set`));

  const sharedSets = new Map<string, Set<string>>();
  let sharedTotal = 0;
  asObjectList(spec.sharedCounters).forEach((counterSet, i) => {
    const counters = asObject(counterSet.counters);
    if (isSet(counterSet.counters) && Object.keys(counters).length === 0) errs.push(required(`spec.sharedCounters[${i}].counters`));
    sharedTotal += Object.keys(counters).length;
    if (typeof counterSet.name === 'string' && !sharedSets.has(counterSet.name)) sharedSets.set(counterSet.name, new Set(Object.keys(counters)));
  });

  const devices = asObjectList(spec.devices);
  const perDevice = spec.perDeviceNodeSelection === true;
  const names = new Set<string>();
  devices.forEach((dev, i) => {
    errs.push(...device(dev, `spec.devices[${i}]`, perDevice, sharedSets));
    if (typeof dev.name === 'string') {
      if (names.has(dev.name)) errs.push(duplicate(`spec.devices[${i}].name`, dev.name));
      names.add(dev.name);
    }
  });
  const deviceCounters = devices.reduce((n, d) => n + countersOf(d), 0);
  if (deviceCounters > COUNTERS_IN_DEVICES_PER_SLICE) {
    errs.push(invalid('spec.devices', deviceCounters, `the total number of counters in devices must not exceed ${COUNTERS_IN_DEVICES_PER_SLICE}`));
  }
  if (sharedTotal > SHARED_COUNTERS_PER_SLICE) {
    errs.push(invalid('spec.sharedCounters', sharedTotal, `the total number of shared counters must not exceed ${SHARED_COUNTERS_PER_SLICE}`));
  }
  return errs;
}

// StorageVersionMigration (storagemigration.k8s.io/v1alpha1): the rules of status writes, which
// kube-apiserver checks only through the status subresource (ValidateStorageVersionMigration-
// StatusUpdate) and which compare the new status with the stored one, so no spec can state them:
// status.resourceVersion is a non-negative integer that never changes once set; each condition
// has a unique qualified-name type, a True/False/Unknown status, a last update time (reported at
// lastTransitionTime, as upstream does) and a reason of kube's condition-reason form; Succeeded
// and Failed are never both True, Running is not True beside either, and neither goes back once True.
// Neither endpoint takes a write without metadata.resourceVersion (AllowUnconditionalUpdate false).

import type { StatusCause } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import { duplicate, invalid, notSupported, required, tooLong } from '../../validation/field-errors.js';
import { isQualifiedName, regexError } from '../../machinery/formats.js';
import { asObject, asObjectList, asString, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';

const STATUSES = ['False', 'True', 'Unknown'];
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON_MSG =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

type Condition = Record<string, unknown>;

const conditionsOf = (obj: KubeObject): Condition[] => asObjectList(asObject(obj.status).conditions);

function isTrue(obj: KubeObject, type: string): boolean {
  return conditionsOf(obj).find((c) => c.type === type)?.status === 'True';
}

/** The conditions as kube-apiserver prints its internal Go structs (no JSON tags: Go field names, in field order). */
function shownConditions(obj: KubeObject): string {
  const text = JSON.stringify(
    conditionsOf(obj).map((c) => ({ Type: asString(c.type), Status: asString(c.status), LastUpdateTime: typeof c.lastUpdateTime === 'string' ? c.lastUpdateTime : null, Reason: asString(c.reason), Message: asString(c.message) })),
  );
  return text.replace(/[<>&]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go's strconv.ParseInt(rv, 10, 64): the value, or the error text. */
function parseInt64(rv: string): bigint | string {
  if (!/^[+-]?\d+$/.test(rv)) return `strconv.ParseInt: parsing ${JSON.stringify(rv)}: invalid syntax`;
  const n = BigInt(rv);
  if (n > INT64_MAX || n < INT64_MIN) return `strconv.ParseInt: parsing ${JSON.stringify(rv)}: value out of range`;
  return n;
}

function conditionCauses(c: Condition, at: string): StatusCause[] {
  const causes: StatusCause[] = isQualifiedName(asString(c.type)).map((m) => invalid(`${at}.type`, asString(c.type), m));
  if (!STATUSES.includes(asString(c.status))) causes.push(notSupported(`${at}.status`, asString(c.status), STATUSES));
  if (typeof c.lastUpdateTime !== 'string' || c.lastUpdateTime === '') causes.push(required(`${at}.lastTransitionTime`));
  const reason = asString(c.reason);
  if (!reason) causes.push(required(`${at}.reason`));
  else {
    if (!new RegExp(`^${REASON_FMT}$`).test(reason)) causes.push(invalid(`${at}.reason`, reason, regexError(REASON_MSG, REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    if (reason.length > MAX_REASON) causes.push(tooLong(`${at}.reason`, MAX_REASON));
  }
  if (asString(c.message).length > MAX_MESSAGE) causes.push(tooLong(`${at}.message`, MAX_MESSAGE));
  return causes;
}

/** Every status rule, in kube-apiserver's order; `old` is the stored object. */
export function migrationStatusCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const rv = asString(asObject(obj.status).resourceVersion);
  if (rv) {
    const parsed = parseInt64(rv);
    if (typeof parsed === 'string') causes.push(invalid('status.resourceVersion', rv, `failed to parse resource version ${JSON.stringify(rv)}: ${parsed}`));
    else if (parsed < 0n) causes.push(invalid('status.resourceVersion', Number(parsed), 'must be greater than or equal to 0'));
  }
  const seen = new Set<string>();
  conditionsOf(obj).forEach((c, i) => {
    const type = asString(c.type);
    if (seen.has(type)) causes.push(duplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    causes.push(...conditionCauses(c, `status.conditions[${i}]`));
  });
  const oldRV = asString(asObject(old.status).resourceVersion);
  if (oldRV && oldRV !== rv) causes.push(invalid('status.resourceVersion', rv, 'cannot be updated'));
  const conditionsCause = (message: string): StatusCause => ({ reason: 'FieldValueInvalid', field: 'status.conditions', message: `Invalid value: ${shownConditions(obj)}: ${message}` });
  const succeeded = isTrue(obj, 'Succeeded');
  const failed = isTrue(obj, 'Failed');
  const running = isTrue(obj, 'Running');
  if (succeeded && failed) causes.push(conditionsCause('Both success and failed conditions cannot be true at the same time'));
  if (succeeded && running) causes.push(conditionsCause('Running condition cannot be true when success condition is true'));
  if (failed && running) causes.push(conditionsCause('Running condition cannot be true when failed condition is true'));
  if (isTrue(old, 'Succeeded') && !succeeded) causes.push(conditionsCause('Success condition cannot be set to false once it is true'));
  if (isTrue(old, 'Failed') && !failed) causes.push(conditionsCause('Failed condition cannot be set to false once it is true'));
  return causes;
}

/** Upstream refuses writes without metadata.resourceVersion: the migrator must not lose a race. */
export function storageVersionMigrationStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = { ...base.main, allowUnconditionalUpdate: () => false };
  const status: Strategy = {
    ...(base.subresources.status as Strategy),
    allowUnconditionalUpdate: () => false,
    validateUpdate: (obj, old) => [...def.validator.validateUpdate(obj, old), ...migrationStatusCauses(obj, old)],
  };
  return { ...base, main, subresources: { ...base.subresources, status } };
}

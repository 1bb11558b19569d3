// ConfigMap: besides the rules its spec states, the whole payload is capped. kube's
// ValidateConfigMap adds up the bytes of every data value (Go len of the UTF-8 string) and every
// decoded binaryData value, and refuses more than MaxSecretSize as TooLong at the root path,
// which kube's field path prints as `[]`.

import type { StatusCause } from '../../errors/status-error.js';
import * as fe from '../../validation/field-errors.js';
import type { ResourceDefinition } from '../definition.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, withRules, type ResourceStrategies } from '../strategy.js';
import { MAX_SECRET_SIZE } from './secret.js';

/** kube builds this path with field.NewPath(""), whose String() is "[]". */
export const ROOT_FIELD_PATH = '[]';

function payloadBytes(obj: KubeObject): number {
  let total = 0;
  if (isPlainObject(obj.data)) {
    for (const value of Object.values(obj.data)) if (typeof value === 'string') total += Buffer.byteLength(value, 'utf8');
  }
  if (isPlainObject(obj.binaryData)) {
    for (const value of Object.values(obj.binaryData)) if (typeof value === 'string') total += Buffer.from(value, 'base64').length;
  }
  return total;
}

function sizeCauses(obj: KubeObject): StatusCause[] {
  return payloadBytes(obj) > MAX_SECRET_SIZE ? [fe.tooLong(ROOT_FIELD_PATH, MAX_SECRET_SIZE)] : [];
}

export function configMapStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  return { ...base, main: withRules(base.main, { onWrite: sizeCauses }) };
}

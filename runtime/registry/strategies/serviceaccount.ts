// ServiceAccount: kube's strategy keeps only the name of each `secrets` entry (the list names
// Secrets in the account's own namespace, so kind, namespace, uid and the rest are noise), on
// create and on update. It also warns, on every write, about the deprecated annotation that
// limited pods to the listed Secrets.

import type { ResourceDefinition } from '../definition.js';
import { isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';

export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';
const ENFORCE_MOUNTABLE_SECRETS_WARNING = `metadata.annotations[${ENFORCE_MOUNTABLE_SECRETS_ANNOTATION}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`;

/** cleanSecretReferences: each entry becomes {name} (no key at all when the name is empty, as Go's omitempty prints it). */
function cleanSecretReferences(obj: KubeObject): void {
  if (!Array.isArray(obj.secrets)) return;
  obj.secrets = obj.secrets.map((ref) => {
    const name = isPlainObject(ref) ? ref.name : undefined;
    return typeof name === 'string' && name !== '' ? { name } : {};
  });
}

/** The annotation's presence warns, whatever its value. */
function serviceAccountWarnings(obj: KubeObject): string[] {
  const annotations = metaOf(obj).annotations;
  return isPlainObject(annotations) && Object.hasOwn(annotations, ENFORCE_MOUNTABLE_SECRETS_ANNOTATION) ? [ENFORCE_MOUNTABLE_SECRETS_WARNING] : [];
}

export function serviceAccountStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      base.main.prepareForCreate(obj);
      cleanSecretReferences(obj);
    },
    prepareForUpdate(obj, old) {
      base.main.prepareForUpdate(obj, old);
      cleanSecretReferences(obj);
    },
    warningsOnCreate: (obj) => [...base.main.warningsOnCreate(obj), ...serviceAccountWarnings(obj)],
    warningsOnUpdate: (obj, old) => [...base.main.warningsOnUpdate(obj, old), ...serviceAccountWarnings(obj)],
  };
  return { ...base, main };
}

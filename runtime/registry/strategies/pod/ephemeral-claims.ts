// An ephemeral volume's claim is named <pod name>-<volume name>. kube-apiserver checks two things
// about it once the pod's name is known, both in ValidateVolumes / validateVolumeSource:
// - the claim name must be a valid PersistentVolumeClaim name (a DNS subdomain, so in practice at
//   most 253 characters), reported at the volume's name while its ephemeral source is validated:
//   after the source's own causes, before the name's DNS-label cause, and an error of the volume;
// - no persistentVolumeClaim volume may name a claim an ephemeral volume of the pod creates (the
//   controller would never make it), reported after the volume's causes and its Duplicate, and
//   not an error of the volume for the Duplicate rule.
// The claim template's spec gets the claim's own resource rules (a storage request, no request
// above its limit), which compare quantities and so live beside the PersistentVolumeClaim
// strategy rather than in CEL.

import type { StatusCause } from '../../../errors/status-error.js';
import { validateClaimSpecResources } from '../../../validation/claim-resources.js';
import { placeInElement } from '../../../validation/element-order.js';
import { invalid } from '../../../validation/field-errors.js';
import { FORMAT_CHECKS } from '../../../machinery/formats.js';
import { asObject, asObjectList } from '../../../machinery/object.js';
import { firstSource } from './volume-sources.js';

type Obj = Record<string, unknown>;

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** validateVolumeSource looks inside the ephemeral source only when it is the volume's first. */
export function ephemeralClaimNameCauses(podName: unknown, spec: Obj, sources: readonly string[]): StatusCause[] {
  if (typeof podName !== 'string' || podName === '') return [];
  const check = FORMAT_CHECKS.dns1123Subdomain;
  if (!check) return [];
  const causes: StatusCause[] = [];
  asObjectList(spec.volumes).forEach((volume, i) => {
    if (firstSource(volume, sources) !== 'ephemeral' || typeof volume.name !== 'string' || volume.name === '') return;
    const claim = `${podName}-${volume.name}`;
    for (const msg of check(claim)) {
      causes.push(placeInElement(invalid(`spec.volumes[${i}].name`, volume.name, `PVC name ${JSON.stringify(claim)}: ${msg}`), { ranksWith: 'ephemeral' }));
    }
  });
  return causes;
}

/** A persistentVolumeClaim volume naming a claim one of the pod's ephemeral volumes creates. */
export function ephemeralClaimReferenceCauses(podName: unknown, spec: Obj): StatusCause[] {
  if (typeof podName !== 'string' || podName === '') return [];
  const volumes = asObjectList(spec.volumes);
  const created = new Set(volumes.filter((v) => isSet(v.ephemeral)).map((v) => `${podName}-${typeof v.name === 'string' ? v.name : ''}`));
  if (created.size === 0) return [];
  const causes: StatusCause[] = [];
  volumes.forEach((volume, i) => {
    if (!isSet(volume.persistentVolumeClaim)) return;
    const claimName = asObject(volume.persistentVolumeClaim).claimName;
    if (typeof claimName !== 'string' || !created.has(claimName)) return;
    const cause = invalid(`spec.volumes[${i}].persistentVolumeClaim.claimName`, claimName, 'must not reference a PVC that gets created for an ephemeral volume');
    causes.push(placeInElement(cause, { afterElement: true }));
  });
  return causes;
}

/** ValidatePersistentVolumeClaimSpec's resource rules for every ephemeral volume's claim template. */
export function ephemeralClaimSpecCauses(spec: Obj): StatusCause[] {
  return asObjectList(spec.volumes).flatMap((volume, i) => {
    const template = asObject(volume.ephemeral).volumeClaimTemplate;
    if (template === undefined || template === null) return [];
    return validateClaimSpecResources(asObject(template).spec, `spec.volumes[${i}].ephemeral.volumeClaimTemplate.spec`);
  });
}

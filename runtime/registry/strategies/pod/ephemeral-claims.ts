// An ephemeral volume's claim is named <pod name>-<volume name>; kube-apiserver checks, when the
// pod's name is known, that this makes a valid PersistentVolumeClaim name (a DNS subdomain, so
// in practice at most 253 characters) and reports it at the volume's name. The claim template's
// spec gets the claim's own resource rules (a storage request, no request above its limit), which
// compare quantities and so live beside the PersistentVolumeClaim strategy rather than in CEL.

import type { StatusCause } from '../../../errors/status-error.js';
import { validateClaimSpecResources } from '../../../validation/claim-resources.js';
import { invalid } from '../../../validation/field-errors.js';
import { FORMAT_CHECKS } from '../../../validation/formats.js';
import { asObject, asObjectList } from '../../object.js';

type Obj = Record<string, unknown>;

export function ephemeralClaimNameCauses(podName: unknown, spec: Obj): StatusCause[] {
  if (typeof podName !== 'string' || podName === '') return [];
  const check = FORMAT_CHECKS.dns1123Subdomain;
  if (!check) return [];
  const causes: StatusCause[] = [];
  asObjectList(spec.volumes).forEach((volume, i) => {
    if (volume.ephemeral === undefined || typeof volume.name !== 'string' || volume.name === '') return;
    const claim = `${podName}-${volume.name}`;
    for (const msg of check(claim)) causes.push(invalid(`spec.volumes[${i}].name`, volume.name, `PVC name ${JSON.stringify(claim)}: ${msg}`));
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

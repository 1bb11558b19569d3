// validateProjectionSources' path bookkeeping: the files a projected volume's secret,
// configMap, downwardAPI and clusterTrustBundle sources write must not share a path (token
// paths are not counted). Each repeat is one cause at the volume's `projected`, showing the
// source's name for secrets and configMaps and the path otherwise, as kube-apiserver does.

import type { StatusCause } from '../../../errors/status-error.js';
import { invalid } from '../../../validation/field-errors.js';
import { asObject, asObjectList, asString } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

export function projectedPathCauses(spec: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  asObjectList(spec.volumes).forEach((volume, v) => {
    if (volume.projected === undefined) return;
    const at = `spec.volumes[${v}].projected`;
    const seen = new Set<string>();
    const note = (path: string, shown: string): void => {
      if (!path) return;
      if (seen.has(path)) causes.push(invalid(at, shown, 'conflicting duplicate paths'));
      seen.add(path);
    };
    for (const source of asObjectList(asObject(volume.projected).sources)) {
      if (source.secret !== undefined) for (const item of asObjectList(asObject(source.secret).items)) note(asString(item.path), asString(asObject(source.secret).name));
      if (source.configMap !== undefined) for (const item of asObjectList(asObject(source.configMap).items)) note(asString(item.path), asString(asObject(source.configMap).name));
      if (source.downwardAPI !== undefined) for (const item of asObjectList(asObject(source.downwardAPI).items)) note(asString(item.path), asString(item.path));
      if (source.clusterTrustBundle !== undefined) note(asString(asObject(source.clusterTrustBundle).path), asString(asObject(source.clusterTrustBundle).path));
    }
  });
  return causes;
}

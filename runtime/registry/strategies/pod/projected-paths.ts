// validateProjectionSources' path bookkeeping: the files a projected volume's secret,
// configMap, downwardAPI and clusterTrustBundle sources write must not share a path (token
// paths are not counted). Each repeat is one cause at the volume's `projected`, showing the
// source's name for secrets and configMaps and the path otherwise, as kube-apiserver does.

import type { StatusCause } from '../../../errors/status-error.js';
import { invalid } from '../../../validation/field-errors.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function projectedPathCauses(spec: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  list(spec.volumes).forEach((volume, v) => {
    if (volume.projected === undefined) return;
    const at = `spec.volumes[${v}].projected`;
    const seen = new Set<string>();
    const note = (path: string, shown: string): void => {
      if (!path) return;
      if (seen.has(path)) causes.push(invalid(at, shown, 'conflicting duplicate paths'));
      seen.add(path);
    };
    for (const source of list(obj(volume.projected).sources)) {
      if (source.secret !== undefined) for (const item of list(obj(source.secret).items)) note(str(item.path), str(obj(source.secret).name));
      if (source.configMap !== undefined) for (const item of list(obj(source.configMap).items)) note(str(item.path), str(obj(source.configMap).name));
      if (source.downwardAPI !== undefined) for (const item of list(obj(source.downwardAPI).items)) note(str(item.path), str(item.path));
      if (source.clusterTrustBundle !== undefined) note(str(obj(source.clusterTrustBundle).path), str(obj(source.clusterTrustBundle).path));
    }
  });
  return causes;
}

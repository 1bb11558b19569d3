// EndpointSlice: deprecatedTopology is read-only in v1. kube-apiserver drops what a v1 client
// writes there (unless an update leaves the endpoints exactly as stored), first moving a
// kubernetes.io/hostname the stored slice already had into an endpoint's unset nodeName, so
// partial updates keep what v1beta1 writers recorded. A label change also bumps
// metadata.generation, as EndpointSlice's PrepareForUpdate counts labels as part of the slice.

import { isDNS1123Subdomain } from '../../machinery/formats.js';
import type { ResourceDefinition } from '../definition.js';
import { asObjectList, deepEqual, isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';

const HOSTNAME_LABEL = 'kubernetes.io/hostname';

const endpointsOf = (obj: KubeObject | undefined): Record<string, unknown>[] => asObjectList(obj?.endpoints);

/** The node names the stored slice's endpoints recorded in deprecatedTopology. */
function topologyNodeNames(old: KubeObject | undefined): Set<string> {
  const names = new Set<string>();
  for (const ep of endpointsOf(old)) {
    const topology = ep.deprecatedTopology;
    if (isPlainObject(topology) && typeof topology[HOSTNAME_LABEL] === 'string') names.add(topology[HOSTNAME_LABEL] as string);
  }
  return names;
}

/** Drops deprecatedTopology writes in place; `old` is the stored slice on update. */
export function dropDeprecatedTopology(obj: KubeObject, old?: KubeObject): void {
  if (old && deepEqual(obj.endpoints, old.endpoints)) return;
  const known = topologyNodeNames(old);
  for (const ep of endpointsOf(obj)) {
    const topology = ep.deprecatedTopology;
    const host = isPlainObject(topology) ? topology[HOSTNAME_LABEL] : undefined;
    if ((ep.nodeName === undefined || ep.nodeName === null) && typeof host === 'string' && known.has(host) && isDNS1123Subdomain(host).length === 0) {
      ep.nodeName = host;
    }
    delete ep.deprecatedTopology;
  }
}

export function endpointSliceStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      base.main.prepareForCreate(obj);
      dropDeprecatedTopology(obj);
    },
    prepareForUpdate(obj, old) {
      base.main.prepareForUpdate(obj, old);
      const meta = metaOf(obj);
      const oldMeta = metaOf(old);
      if (meta.generation === oldMeta.generation && !deepEqual(meta.labels ?? {}, oldMeta.labels ?? {})) {
        meta.generation = (oldMeta.generation ?? 0) + 1;
      }
      dropDeprecatedTopology(obj, old);
    },
  };
  return { ...base, main };
}

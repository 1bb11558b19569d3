// Strategy modules by the name a ResourceDefinition gives in `strategy`; every other kind gets
// the default strategies built from its definition. Whatever the module, feature-gated fields
// whose gate is off are dropped from writes first, as kube-apiserver's strategies all begin
// PrepareForCreate and PrepareForUpdate with dropDisabledFields.

import { withDeclarativeValidation, type DeclarativeMismatchReporter } from '../declarative.js';
import type { ResourceDefinition } from '../definition.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { customResourceStrategies } from '../custom-resources/strategy.js';
import { configMapStrategies } from './configmap.js';
import { csiNodeStrategies } from './csinode.js';
import { customResourceDefinitionStrategies } from './customresourcedefinition.js';
import { endpointsStrategies } from './endpoints.js';
import { endpointSliceStrategies } from './endpointslice.js';
import { eventStrategies } from './event.js';
import { limitRangeStrategies } from './limitrange.js';
import { namespaceStrategies } from './namespace.js';
import { nodeStrategies } from './node.js';
import { podStrategies } from './pod.js';
import { persistentVolumeStrategies } from './persistentvolume.js';
import { persistentVolumeClaimStrategies } from './persistentvolumeclaim.js';
import { resourceSliceStrategies } from './resourceslice.js';
import { clusterRoleStrategies, csiStorageCapacityStrategies } from './selector-ratcheting.js';
import { secretStrategies } from './secret.js';
import { serviceAccountStrategies } from './serviceaccount.js';
import { storageClassStrategies } from './storageclass.js';
import { storageVersionMigrationStrategies } from './storageversionmigration.js';

/** Whether a feature gate is on. */
export type FeatureGateCheck = (gate: string) => boolean;

/** A module gets the gates too: some rules change with them (a claim's resize recovery). */
const MODULES: Record<string, (def: ResourceDefinition, enabled: FeatureGateCheck) => ResourceStrategies> = {
  configmap: configMapStrategies,
  secret: secretStrategies,
  serviceaccount: serviceAccountStrategies,
  csinode: csiNodeStrategies,
  storageclass: storageClassStrategies,
  namespace: namespaceStrategies,
  node: nodeStrategies,
  endpoints: endpointsStrategies,
  endpointslice: endpointSliceStrategies,
  limitrange: limitRangeStrategies,
  persistentvolume: persistentVolumeStrategies,
  persistentvolumeclaim: persistentVolumeClaimStrategies,
  resourceslice: resourceSliceStrategies,
  event: eventStrategies,
  storageversionmigration: storageVersionMigrationStrategies,
  pod: podStrategies,
  clusterrole: clusterRoleStrategies,
  csistoragecapacity: csiStorageCapacityStrategies,
  customresource: customResourceStrategies,
  customresourcedefinition: customResourceDefinitionStrategies,
};

/**
 * Without a gate source every field gate counts as off: the field gates the specs name are all
 * alpha (off by default) in Kubernetes 1.33.
 */
const allFieldGatesOff: FeatureGateCheck = () => false;

function droppingDisabledFields(def: ResourceDefinition, strategy: Strategy, enabled: FeatureGateCheck): Strategy {
  const drop = def.validator.dropDisabledFields?.bind(def.validator);
  if (!drop) return strategy;
  return {
    ...strategy,
    prepareForCreate(obj) {
      drop(obj, undefined, enabled);
      strategy.prepareForCreate(obj);
    },
    prepareForUpdate(obj, old) {
      drop(obj, old, enabled);
      strategy.prepareForUpdate(obj, old);
    },
  };
}

/**
 * `report` hears of each disagreement between a declared rule and its hand-written twin
 * (declarative.ts); without it they go unheard.
 */
export function strategiesFor(def: ResourceDefinition, enabled: FeatureGateCheck = allFieldGatesOff, report: DeclarativeMismatchReporter = () => {}): ResourceStrategies {
  return withDeclarativeValidation(def, gatedStrategies(def, enabled), enabled, report);
}

function gatedStrategies(def: ResourceDefinition, enabled: FeatureGateCheck): ResourceStrategies {
  let strategies: ResourceStrategies;
  if (!def.strategy) strategies = defaultStrategies(def);
  else {
    const make = MODULES[def.strategy];
    if (!make) throw new Error(`${def.plural}: unknown strategy module "${def.strategy}"`);
    strategies = make(def, enabled);
  }
  if (strategies.dropsDisabledFields) return strategies;
  return {
    ...strategies,
    main: droppingDisabledFields(def, strategies.main, enabled),
    subresources: Object.fromEntries(Object.entries(strategies.subresources).map(([name, s]) => [name, droppingDisabledFields(def, s, enabled)])),
  };
}

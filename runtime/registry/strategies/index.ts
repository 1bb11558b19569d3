// Strategy modules by the name a ResourceDefinition gives in `strategy`; every other kind gets
// the default strategies built from its definition.

import type { ResourceDefinition } from '../definition.js';
import { defaultStrategies, type ResourceStrategies } from '../strategy.js';
import { namespaceStrategies } from './namespace.js';
import { secretStrategies } from './secret.js';

const MODULES: Record<string, (def: ResourceDefinition) => ResourceStrategies> = {
  secret: secretStrategies,
  namespace: namespaceStrategies,
};

export function strategiesFor(def: ResourceDefinition): ResourceStrategies {
  if (!def.strategy) return defaultStrategies(def);
  const make = MODULES[def.strategy];
  if (!make) throw new Error(`${def.plural}: unknown strategy module "${def.strategy}"`);
  return make(def);
}

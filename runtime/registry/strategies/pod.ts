// Pod: placeholder until the pod rules land.
import type { ResourceDefinition } from '../definition.js';
import { defaultStrategies, type ResourceStrategies } from '../strategy.js';

export function podStrategies(def: ResourceDefinition): ResourceStrategies {
  return defaultStrategies(def);
}

// Label selector ratcheting on update. kube-apiserver 1.27 tightened selector validation to
// check each matchExpressions value as a label value; objects stored before that may hold values
// that no longer pass. Their strategies therefore validate an update with
// AllowInvalidLabelValueInSelector set when the stored object's selector already fails
// ValidateLabelSelector (any cause), which skips only the per-value check at
// `...matchExpressions[i].values[j]`. ClusterRole (aggregationRule.clusterRoleSelectors) and
// CSIStorageCapacity (nodeTopology) do this; the selector paths are named per kind below.

import type { StatusCause } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import type { KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies } from '../strategy.js';

const escape = (s: string) => s.replace(/[.[\]]/g, (c) => `\\${c}`);

/**
 * A kind's selectors by field path; `listOf` marks a list of selectors (each at `[i]`).
 * `causes` tells what lies in a selector, `values` the per-value check the option skips.
 */
function selectorPaths(path: string, listOf: boolean): { causes: RegExp; values: RegExp } {
  const selector = `^${escape(path)}${listOf ? '\\[\\d+\\]' : ''}`;
  return { causes: new RegExp(`${selector}\\.`), values: new RegExp(`${selector}\\.matchExpressions\\[\\d+\\]\\.values\\[\\d+\\]$`) };
}

function ratchetingStrategies(def: ResourceDefinition, path: string, listOf: boolean): ResourceStrategies {
  const base = defaultStrategies(def);
  const paths = selectorPaths(path, listOf);
  // hasInvalidLabelValueInLabelSelector: the stored selector fails strict validation.
  const storedSelectorFails = (old: KubeObject): boolean => def.validator.validateFields(old).some((c) => paths.causes.test(c.field ?? ''));
  const skipsValueCheck = (c: StatusCause): boolean => c.reason === 'FieldValueInvalid' && paths.values.test(c.field ?? '');
  return {
    ...base,
    main: {
      ...base.main,
      validateUpdate(obj, old) {
        const causes = base.main.validateUpdate(obj, old);
        if (!causes.some(skipsValueCheck) || !storedSelectorFails(old)) return causes;
        return causes.filter((c) => !skipsValueCheck(c));
      },
    },
  };
}

export const clusterRoleStrategies = (def: ResourceDefinition): ResourceStrategies => ratchetingStrategies(def, 'aggregationRule.clusterRoleSelectors', true);

export const csiStorageCapacityStrategies = (def: ResourceDefinition): ResourceStrategies => ratchetingStrategies(def, 'nodeTopology', false);

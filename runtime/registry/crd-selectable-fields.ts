// The field selector fields of a custom resource (a CRD version's `selectableFields`), as kube
// 1.33 serves them (apiextensions-apiserver conversion.crConverter.ConvertFieldLabel and the
// strategy's selectableFields): `metadata.name`, `metadata.namespace` for namespaced kinds only,
// and each listed path without its leading dot, valued as Go's fmt.Sprint prints the path's one
// result, or '' when it has none. Any other field is refused with `field label not supported`,
// which the returned keys drive (selection.ts asks for the keys of an empty object).

import { JSONPathError, findJSONPathResults, goPrint, parseColumnJSONPath, type ParsedJSONPath } from '../machinery/jsonpath.js';
import { metaOf, type KubeObject } from '../machinery/object.js';

/** One entry of `spec.versions[*].selectableFields`. */
export interface SelectableField {
  jsonPath: string;
}

interface CompiledField {
  name: string;
  path?: ParsedJSONPath;
}

function valueOf(field: CompiledField, obj: KubeObject): string {
  if (!field.path) return '';
  let results: unknown[][];
  try {
    results = findJSONPathResults(field.path, obj, { allowMissingKeys: true });
  } catch {
    // kube fails the whole selection here; CRD validation admits only paths to scalar schema fields, so this is unreachable in practice.
    return '';
  }
  const value = results[0]?.[0];
  return value === undefined || value === null ? '' : goPrint(value);
}

/** The Strategy.selectableFields of a custom resource kind; paths are parsed once, here. */
export function customResourceSelectableFields(
  namespaced: boolean,
  selectableFields: SelectableField[] | undefined,
): (obj: KubeObject) => Record<string, string> {
  const fields: CompiledField[] = (selectableFields ?? []).map((sf) => {
    const name = sf.jsonPath.startsWith('.') ? sf.jsonPath.slice(1) : sf.jsonPath;
    try {
      return { name, path: parseColumnJSONPath(sf.jsonPath) };
    } catch (e) {
      if (e instanceof JSONPathError) return { name };
      throw e;
    }
  });
  return (obj) => {
    const meta = metaOf(obj);
    const set: Record<string, string> = { 'metadata.name': meta.name ?? '' };
    if (namespaced) set['metadata.namespace'] = meta.namespace ?? '';
    for (const field of fields) set[field.name] = valueOf(field, obj);
    return set;
  };
}

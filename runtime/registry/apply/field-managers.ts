// One FieldManager per served kind and endpoint, built from the generated schema, and the hook
// the store calls on every non-apply write to record the writer as an Update manager.

import type { ResourceDefinition } from '../definition.js';
import type { KubeObject } from '../../machinery/object.js';
import { generatedSchemaIndex } from '../../machinery/openapi-schema.js';
import { FieldSet, fieldElement } from './fieldpath.js';
import { FieldManager, managerOrUserAgent } from './field-manager.js';
import { TypedSchema } from './schema.js';
import { convertFieldsV1 } from '../stored-form.js';

let typedSchema: TypedSchema | undefined;
const managers = new Map<string, FieldManager>();

/**
 * The fields a write through this endpoint may not own, because the strategy resets them:
 * status on the main resource of a kind with a status subresource, everything but status on
 * the status subresource.
 */
function resetFields(definition: ResourceDefinition, subresource: string | undefined): FieldSet {
  const statusField = definition.statusField ?? 'status';
  const hasStatus = definition.subresources.some((s) => s.name === 'status');
  if (!subresource) return hasStatus ? FieldSet.of([fieldElement(statusField)]) : new FieldSet();
  if (subresource !== 'status') return new FieldSet();
  const props = generatedSchemaIndex().component(definition.openAPIName)?.properties ?? {};
  const others = Object.keys(props).filter((f) => !['apiVersion', 'kind', 'metadata', statusField].includes(f));
  return FieldSet.of(...others.map((f) => [fieldElement(f)]));
}

export function fieldManagerFor(definition: ResourceDefinition, subresource?: string): FieldManager {
  const apiVersion = definition.group ? `${definition.group}/${definition.version}` : definition.version;
  const key = `${apiVersion}/${definition.plural}/${subresource ?? ''}`;
  let manager = managers.get(key);
  if (!manager) {
    typedSchema ??= new TypedSchema(generatedSchemaIndex());
    manager = new FieldManager({
      node: typedSchema.forComponent(definition.openAPIName),
      apiVersion,
      subresource: subresource || undefined,
      resetFields: resetFields(definition, subresource),
      convertSet: (set, from, to) => {
        const fieldsV1 = set.toFieldsV1();
        const converted = convertFieldsV1(definition.kind, fieldsV1, from, to);
        return converted === fieldsV1 ? set : FieldSet.fromFieldsV1(converted);
      },
    });
    managers.set(key, manager);
  }
  return manager;
}

export interface WriterInfo {
  fieldManager?: string;
  userAgent?: string;
  subresource?: string;
}

/**
 * Called by the store on create, update and non-apply patch: returns `next` with managedFields
 * that record the writer (fieldManager, else the User-Agent's product name) as an Update manager.
 */
export function recordUpdate(definition: ResourceDefinition, live: KubeObject | undefined, next: KubeObject, writer: WriterInfo): KubeObject {
  const manager = managerOrUserAgent(writer.fieldManager, writer.userAgent);
  return fieldManagerFor(definition, writer.subresource).update(live, next, manager);
}

/** The managedFields entries `recordUpdate` gives `next` (undefined: none), without copying `next`. */
export function managedFieldsOfUpdate(definition: ResourceDefinition, live: KubeObject | undefined, next: KubeObject, writer: WriterInfo): unknown[] | undefined {
  const manager = managerOrUserAgent(writer.fieldManager, writer.userAgent);
  return fieldManagerFor(definition, writer.subresource).managedFieldsAfterUpdate(live, next, manager);
}

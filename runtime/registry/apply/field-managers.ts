// One FieldManager per served kind and endpoint, built from the generated schema, and the hook
// the store calls on every non-apply write to record the writer as an Update manager.

import type { ResourceDefinition } from '../definition.js';
import type { KubeObject } from '../../machinery/object.js';
import { generatedSchemaIndex, SchemaIndex, type JsonSchema } from '../../machinery/openapi-schema.js';
import { FieldSet, fieldElement } from './fieldpath.js';
import { FieldManager, managerOrUserAgent } from './field-manager.js';
import { TypedSchema } from './schema.js';
import { convertFieldsV1 } from '../stored-form.js';

let typedSchema: TypedSchema | undefined;
const managers = new Map<string, FieldManager>();
/** Custom resources' managers, by the definition built from one state of their CRD (a changed CRD is a new definition). */
const customManagers = new WeakMap<ResourceDefinition, Map<string, FieldManager>>();

/** The kind's schema: the generated component, or a custom resource's schema from its CRD. */
function kindSchema(definition: ResourceDefinition): JsonSchema | undefined {
  return (definition.openAPISchema as JsonSchema | undefined) ?? generatedSchemaIndex().component(definition.openAPIName);
}

/**
 * A custom resource's schema typed as the generated kinds are: its own schema with metadata as
 * meta/v1 ObjectMeta, which it refers to among the generated components.
 */
function customTypedSchema(definition: ResourceDefinition, schema: JsonSchema): TypedSchema {
  const properties = {
    ...schema.properties,
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  };
  const root: JsonSchema = { ...schema, type: 'object', properties };
  return new TypedSchema(new SchemaIndex({ ...generatedSchemaIndex().all(), [definition.openAPIName]: root }));
}

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
  const props = kindSchema(definition)?.properties ?? {};
  const others = Object.keys(props).filter((f) => !['apiVersion', 'kind', 'metadata', statusField].includes(f));
  return FieldSet.of(...others.map((f) => [fieldElement(f)]));
}

/** The manager of each definition's main resource, found without building the key (every create and update asks). */
const mainManagers = new WeakMap<ResourceDefinition, FieldManager>();

export function fieldManagerFor(definition: ResourceDefinition, subresource?: string): FieldManager {
  if (!subresource) {
    let manager = mainManagers.get(definition);
    if (!manager) mainManagers.set(definition, (manager = managerByKey(definition, undefined)));
    return manager;
  }
  return managerByKey(definition, subresource);
}

function managerByKey(definition: ResourceDefinition, subresource: string | undefined): FieldManager {
  const apiVersion = definition.group ? `${definition.group}/${definition.version}` : definition.version;
  const key = `${apiVersion}/${definition.plural}/${subresource ?? ''}`;
  const custom = definition.openAPISchema as JsonSchema | undefined;
  let byKey = managers;
  if (custom) {
    byKey = customManagers.get(definition) ?? new Map();
    if (byKey.size === 0) customManagers.set(definition, byKey);
  }
  let manager = byKey.get(key);
  if (!manager) {
    const typed = custom ? customTypedSchema(definition, custom) : (typedSchema ??= new TypedSchema(generatedSchemaIndex()));
    manager = new FieldManager({
      node: typed.forComponent(definition.openAPIName),
      apiVersion,
      subresource: subresource || undefined,
      resetFields: resetFields(definition, subresource),
      convertSet: (set, from, to) => {
        const fieldsV1 = set.toFieldsV1();
        const converted = convertFieldsV1(definition.kind, fieldsV1, from, to);
        return converted === fieldsV1 ? set : FieldSet.fromFieldsV1(converted);
      },
    });
    byKey.set(key, manager);
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

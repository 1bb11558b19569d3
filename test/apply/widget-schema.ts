// A small made-up kind whose schema has every list and map type the apply engine must handle.
import { SchemaIndex, type JsonSchema } from '../../runtime/machinery/openapi-schema.js';
import { FieldManager } from '../../runtime/registry/apply/field-manager.js';
import { TypedSchema } from '../../runtime/registry/apply/schema.js';

const ref = (name: string) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });

const components = {
  'test.ObjectMeta': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      namespace: { type: 'string' },
      uid: { type: 'string' },
      resourceVersion: { type: 'string' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      managedFields: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'atomic' },
    },
  },
  'test.Port': {
    type: 'object',
    properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string' } },
  },
  'test.Container': {
    type: 'object',
    properties: { name: { type: 'string' }, image: { type: 'string' }, args: { type: 'array', items: { type: 'string' } } },
  },
  'test.WidgetSpec': {
    type: 'object',
    properties: {
      replicas: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
      flags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      ports: { type: 'array', items: ref('test.Port'), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'] },
      containers: { type: 'array', items: ref('test.Container'), 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  'test.Widget': {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: ref('test.ObjectMeta'),
      spec: ref('test.WidgetSpec'),
      data: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
} as unknown as Record<string, JsonSchema>;

export const widgetSchema = new TypedSchema(new SchemaIndex(components));
export const widgetNode = widgetSchema.forComponent('test.Widget');

export function widgetManager(): FieldManager {
  return new FieldManager({ node: widgetNode, apiVersion: 'example.com/v1' });
}

export function widget(body: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', ...body };
}

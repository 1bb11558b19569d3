import { describe, expect, it } from 'vitest';
import { SchemaIndex, generatedSchemaIndex, type JsonSchema } from '../../runtime/machinery/openapi-schema.js';
import { isPlainObject } from '../../runtime/machinery/object.js';
import { omitEmptyCollections } from '../../runtime/registry/omit-empty.js';
import { forEachStructMember } from '../../runtime/registry/struct-members.js';

const index = new SchemaIndex({
  'test.Obj': {
    required: ['items'],
    properties: {
      metadata: { allOf: [{ $ref: '#/components/schemas/test.Meta' }] },
      data: { additionalProperties: { type: 'string' } },
      items: { items: { properties: { tags: { items: { type: 'string' } } } } },
      spec: { properties: { finalizers: { items: { type: 'string' } } } },
      raw: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  'test.Meta': { properties: { annotations: { additionalProperties: { type: 'string' } }, finalizers: { items: { type: 'string' } } } },
});

describe('omitting empty collections as a Go round trip does', () => {
  it('drops empty optional maps and lists at every depth, keeping structs, required fields and free-form data', () => {
    const obj: Record<string, unknown> = {
      metadata: { annotations: {}, finalizers: [] },
      data: {},
      items: [{ tags: [] }],
      spec: { finalizers: [] },
      raw: { empty: {} },
    };
    omitEmptyCollections(obj, index.component('test.Obj')!, index);
    expect(obj).toEqual({ metadata: {}, items: [{}], spec: {}, raw: { empty: {} } });
  });

  it('keeps a required list even when empty, and non-empty collections', () => {
    const obj: Record<string, unknown> = { items: [], data: { a: 'b' } };
    omitEmptyCollections(obj, index.component('test.Obj')!, index);
    expect(obj).toEqual({ items: [], data: { a: 'b' } });
  });
});

/** The rule as a visit over every struct member (the walk null handling uses), for comparison. */
function omitByVisit(obj: Record<string, unknown>, schema: JsonSchema, idx: SchemaIndex, kept?: WeakMap<object, Set<string>>): void {
  forEachStructMember(obj, schema, idx, (m) => {
    const emptyMap = isPlainObject(m.value) && Object.keys(m.value).length === 0 && !m.schema.properties && isPlainObject(m.schema.additionalProperties);
    const empty = Array.isArray(m.value) ? m.value.length === 0 : emptyMap;
    if (!m.required && empty && !kept?.get(m.holder)?.has(m.key)) delete m.holder[m.key];
  });
}

describe('omitting empty collections of generated kinds', () => {
  const generated = generatedSchemaIndex();
  it('removes exactly what a visit of every struct member removes, keeping what kept names', () => {
    const pod = () => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: {}, annotations: { a: '' }, finalizers: [], managedFields: [{ manager: 'm', fieldsType: 'FieldsV1', fieldsV1: {} }] },
      spec: {
        containers: [
          { name: 'c', args: [], env: [{ name: 'e', valueFrom: { configMapKeyRef: { name: 'x', key: 'k' } } }], resources: { limits: {}, requests: { cpu: '1' } }, ports: [] },
          { name: 'd', volumeMounts: [], securityContext: { capabilities: { add: [], drop: ['ALL'] } } },
        ],
        volumes: [{ name: 'v', configMap: { items: [] } }, { name: 'w', emptyDir: {} }],
        nodeSelector: {},
        tolerations: [],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [] }] } } },
      },
      status: { conditions: [], containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'i', imageID: '' }] },
    });
    const schema = generated.component('io.k8s.api.core.v1.Pod')!;
    const byVisit = pod();
    omitByVisit(byVisit, schema, generated);
    const omitted = pod();
    omitEmptyCollections(omitted, schema, generated);
    expect(JSON.stringify(omitted)).toBe(JSON.stringify(byVisit));
    expect((omitted.spec as Record<string, unknown>).nodeSelector).toBeUndefined();

    const withKept = pod();
    const kept = new WeakMap<object, Set<string>>([[withKept.spec, new Set(['tolerations'])]]);
    omitEmptyCollections(withKept, schema, generated, kept);
    expect(withKept.spec.tolerations).toEqual([]);

    const configMap = () => ({ metadata: { name: 'c', labels: {}, ownerReferences: [] }, data: {}, binaryData: { b: '' } });
    const cmSchema = generated.component('io.k8s.api.core.v1.ConfigMap')!;
    const cmByVisit = configMap();
    omitByVisit(cmByVisit, cmSchema, generated);
    const cm = configMap();
    omitEmptyCollections(cm, cmSchema, generated);
    expect(cm).toEqual(cmByVisit);
    expect(cm).toEqual({ metadata: { name: 'c' }, binaryData: { b: '' } });
  });
});

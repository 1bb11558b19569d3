// The generated TypeScript types of apiextensions.k8s.io/v1 give JSONSchemaProps' members their
// JSON names (`$ref`, `x-kubernetes-*`) and the schema unions their JSON forms, so a CRD written
// against them type-checks (tsc runs over the tests) and is what the server takes.
import { describe, expect, it } from 'vitest';
import type { apiextensionsV1 } from '../../generated/types/index.js';
import { CustomResourceDefinition } from '../../generated/validators/apiextensions.k8s.io.v1.js';

describe('apiextensions.k8s.io/v1 types', () => {
  it('type a CRD with every JSON form of the schema unions, which the validator accepts', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                'x-kubernetes-preserve-unknown-fields': true,
                properties: {
                  list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer', default: 1 }] },
                  map: { type: 'object', additionalProperties: { type: 'string', $ref: '#/x' } },
                  open: { type: 'object', additionalProperties: true },
                  deps: { type: 'object', dependencies: { a: ['b'], c: { type: 'object' } } },
                  any: { enum: ['a', 1, null, { k: [true] }] },
                },
              },
            },
          },
        ],
      },
    } satisfies apiextensionsV1.CustomResourceDefinition;
    expect(CustomResourceDefinition.validate(crd)).toEqual([]);
  });
});

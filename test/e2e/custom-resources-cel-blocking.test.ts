// Which schema errors keep a custom resource's x-kubernetes-validations rules from running, as
// kube-apiserver 1.33's customResourceStrategy.Validate decides (apiextensions-apiserver
// pkg/registry/customresource/strategy.go, hasBlockingErr): only errors of type NotSupported,
// Required, TooLong, TooMany and TypeInvalid block them, and then kube adds one Invalid cause at
// path <nil> ("some validation rules were not checked ..."); any other schema error (a minimum,
// a pattern) is reported beside the rules' own errors.

import { describe, expect, it } from 'vitest';
import { createCRD } from '../support/crds.js';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>;

const server = useMemoryServer();
const GROUP = 'blocking.example.com';
const BASE = `/apis/${GROUP}/v1/namespaces/default/gizmos`;
const NOT_CHECKED = {
  reason: 'FieldValueInvalid',
  field: '<nil>',
  message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};
const ODD = { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": size must be even' };

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', maximum: 10 },
                  label: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
                  color: { type: 'string', enum: ['red', 'blue'] },
                },
                'x-kubernetes-validations': [{ rule: '!has(self.size) || self.size % 2 == 0', message: 'size must be even' }],
              },
            },
          },
        },
      },
    ],
  },
};

const gizmo = (name: string, spec: Obj): Obj => ({ apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name }, spec });

async function causesOf(name: string, spec: Obj): Promise<Obj[]> {
  const res = await server.send<Obj>('POST', BASE, gizmo(name, spec));
  expect(res.status).toBe(422);
  expect(res.body.reason).toBe('Invalid');
  // Nothing was stored.
  expect((await server.raw('GET', `${BASE}/${name}`)).status).toBe(404);
  return res.body.details.causes;
}

describe('x-kubernetes-validations beside schema errors (hasBlockingErr)', () => {
  it('runs the rules beside a non-blocking schema error and skips them after a blocking one', async () => {
    await createCRD(server, crd, BASE);

    // maximum and pattern errors are of type Invalid: kube runs the rules too.
    const beside = await causesOf('beside', { size: 13, label: 'ABC' });
    expect(beside.map((c) => c.field)).toEqual(['spec.size', 'spec.label', 'spec']);
    expect(beside[2]).toEqual(ODD);
    expect(beside).not.toContainEqual(NOT_CHECKED);

    // maxLength is TooLong, enum is NotSupported: the rules are not run, one cause says so.
    for (const [name, spec] of [
      ['too-long', { size: 3, label: 'abcdefgh' }],
      ['not-supported', { size: 3, color: 'green' }],
      ['wrong-type', { size: 'three' }],
    ] as const) {
      const blocked = await causesOf(name, spec);
      expect(blocked).not.toContainEqual(ODD);
      expect(blocked[blocked.length - 1]).toEqual(NOT_CHECKED);
      expect(blocked.length).toBe(2);
    }

    // A rule's error alone, and a valid object, as before.
    expect(await causesOf('odd', { size: 3 })).toEqual([ODD]);
    expect((await server.send('POST', BASE, gizmo('even', { size: 4, label: 'abc', color: 'red' }))).status).toBe(201);
    expect((await server.send<Obj>('GET', BASE)).body.items.map((i: Obj) => i.metadata.name)).toEqual(['even']);
  });
});

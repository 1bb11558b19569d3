// Ownership through a custom resource's scale subresource, over HTTPS against the real server:
// server-side apply of a Scale (conflicts over the replicas field with its other owners, force),
// update and merge patch recording their manager, and the parent's managedFields after each step
// as kube's ScaleHandler leaves them: the replicas field (at the CRD's specReplicasPath, nested
// here) moves to the Scale's owner, recorded with subresource `scale` in the parent's version and
// without a time; every other field stays with its owner. Hostile bodies are refused as kube
// refuses them and leave the stored object as it was.

import { encode, Tag } from 'cbor2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCRD } from '../support/crds.js';
import { useMemoryServer, type TestServer } from '../support/memory-server.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

type JsonObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const server: TestServer = useMemoryServer();
const pools = '/apis/scale.example.com/v1/namespaces/default/pools';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'pools.scale.example.com' },
  spec: {
    group: 'scale.example.com',
    names: { plural: 'pools', kind: 'Pool' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.scaling.replicas', statusReplicasPath: '.status.replicas' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { image: { type: 'string' }, scaling: { type: 'object', properties: { replicas: { type: 'integer' } } } },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

const pool = (name: string, replicas: number) => `apiVersion: scale.example.com/v1
kind: Pool
metadata: {name: ${name}}
spec: {image: nginx, scaling: {replicas: ${replicas}}}
`;

const scale = (name: string, replicas: number) => JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name, namespace: 'default' }, spec: { replicas } });

/** The parent's managedFields without times, and which entries have one. */
async function managed(name: string): Promise<{ entries: JsonObject[]; timed: string[]; replicas: unknown }> {
  const got = await server.send<JsonObject>('GET', `${pools}/${name}`);
  expect(got.status).toBe(200);
  const entries: JsonObject[] = got.body.metadata.managedFields ?? [];
  return {
    entries: entries.map(({ time: _, ...rest }) => rest),
    timed: entries.filter((e) => e.time).map((e) => e.manager),
    replicas: got.body.spec?.scaling?.replicas,
  };
}

const applierEntry = (fieldsV1: JsonObject) => ({ apiVersion: 'scale.example.com/v1', fieldsType: 'FieldsV1', fieldsV1, manager: 'apply_test', operation: 'Apply' });
const scaleEntry = (manager: string, operation: 'Apply' | 'Update') => ({
  apiVersion: 'scale.example.com/v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:scaling': { 'f:replicas': {} } } },
  manager,
  operation,
  subresource: 'scale',
});
const APPLIED_ALL = { 'f:spec': { 'f:image': {}, 'f:scaling': { 'f:replicas': {} } } };
// Without its only member, .spec.scaling is no node of the set at all.
const APPLIED_REST = { 'f:spec': { 'f:image': {} } };

describe('server-side apply and ownership through a custom resource\'s scale subresource', () => {
  it('moves the replicas field between the parent\'s and the Scale\'s managers as kube does', async () => {
    await createCRD(server, crd, pools);
    const created = await server.raw('PATCH', `${pools}/p1?fieldManager=apply_test`, pool('p1', 1), APPLY);
    expect(created.status, created.body).toBe(201);
    expect((await managed('p1')).entries).toEqual([applierEntry(APPLIED_ALL)]);

    // A merge patch through /scale: the writer takes the replicas field from the applier.
    const merged = await server.raw('PATCH', `${pools}/p1/scale?fieldManager=scale_test`, '{"spec":{"replicas":5}}', MERGE);
    expect(merged.status, merged.body).toBe(200);
    expect(merged.json<JsonObject>().spec).toEqual({ replicas: 5 });
    expect(merged.json<JsonObject>().metadata.managedFields).toBeUndefined();
    let now = await managed('p1');
    expect(now.replicas).toBe(5);
    expect(now.entries).toEqual([applierEntry(APPLIED_REST), scaleEntry('scale_test', 'Update')]);
    // kube's handler gives a manager new to the parent the parent's time for it: none.
    expect(now.timed).toEqual(['apply_test']);

    // Re-applying the original replicas through the parent conflicts with the scaler; force takes it back.
    const conflict = await server.raw('PATCH', `${pools}/p1?fieldManager=apply_test`, pool('p1', 1), APPLY);
    expect(conflict.status).toBe(409);
    expect(conflict.json<JsonObject>().message).toBe('Apply failed with 1 conflict: conflict with "scale_test" with subresource "scale" using scale.example.com/v1: .spec.scaling.replicas');
    const forced = await server.raw('PATCH', `${pools}/p1?fieldManager=apply_test&force=true`, pool('p1', 1), APPLY);
    expect(forced.status, forced.body).toBe(200);
    expect((await managed('p1')).entries).toEqual([applierEntry(APPLIED_ALL)]);

    // Applying a Scale with other replicas conflicts with the parent's applier, named on Scale's field.
    const scaleConflict = await server.raw('PATCH', `${pools}/p1/scale?fieldManager=apply_scale`, scale('p1', 17), APPLY);
    expect(scaleConflict.status).toBe(409);
    const status = scaleConflict.json<JsonObject>();
    expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 });
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "apply_test": .spec.replicas');
    expect(status.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "apply_test"', field: '.spec.replicas' }]);
    now = await managed('p1');
    expect(now.replicas).toBe(1);
    expect(now.entries).toEqual([applierEntry(APPLIED_ALL)]);

    // Forced: only the Scale's applier owns the replicas field.
    const scaleForced = await server.raw('PATCH', `${pools}/p1/scale?fieldManager=apply_scale&force=true`, scale('p1', 17), APPLY);
    expect(scaleForced.status, scaleForced.body).toBe(200);
    expect(scaleForced.json<JsonObject>()).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 17 }, status: { replicas: 0 } });
    now = await managed('p1');
    expect(now.replicas).toBe(17);
    expect(now.entries).toEqual([scaleEntry('apply_scale', 'Apply'), applierEntry(APPLIED_REST)]);

    // A PUT of the Scale: its writer becomes the owner.
    const current = (await server.send<JsonObject>('GET', `${pools}/p1/scale`)).body;
    expect(current.metadata.managedFields).toBeUndefined();
    const put = await server.raw('PUT', `${pools}/p1/scale?fieldManager=replace_test`, JSON.stringify({ ...current, spec: { replicas: 7 } }), { 'content-type': 'application/json' });
    expect(put.status, put.body).toBe(200);
    now = await managed('p1');
    expect(now.replicas).toBe(7);
    expect(now.entries).toEqual([applierEntry(APPLIED_REST), scaleEntry('replace_test', 'Update')]);

    // Applying the same replicas shares the field; the next scale makes its writer the only owner.
    const shared = await server.raw('PATCH', `${pools}/p1/scale?fieldManager=co_owning_test`, scale('p1', 7), APPLY);
    expect(shared.status, shared.body).toBe(200);
    now = await managed('p1');
    expect(now.entries).toEqual([scaleEntry('co_owning_test', 'Apply'), applierEntry(APPLIED_REST), scaleEntry('replace_test', 'Update')]);
    const again = await server.raw('PATCH', `${pools}/p1/scale?fieldManager=scale_test`, '{"spec":{"replicas":5}}', MERGE);
    expect(again.status).toBe(200);
    now = await managed('p1');
    expect(now.replicas).toBe(5);
    expect(now.entries).toEqual([applierEntry(APPLIED_REST), scaleEntry('scale_test', 'Update')]);
  });

  it('leaves the replicas field with its owner when a scale write changes only the status', async () => {
    await server.raw('PATCH', `${pools}/p2?fieldManager=apply_test`, pool('p2', 1), APPLY);
    const patched = await server.raw('PATCH', `${pools}/p2/scale?fieldManager=scale_test`, '{"status":{"replicas":42}}', MERGE);
    expect(patched.status, patched.body).toBe(200);
    const now = await managed('p2');
    expect(now.replicas).toBe(1);
    expect(now.entries).toEqual([applierEntry(APPLIED_ALL)]);
  });

  it('refuses bad apply bodies on /scale as kube does and stores nothing', async () => {
    await server.raw('PATCH', `${pools}/p3?fieldManager=apply_test`, pool('p3', 2), APPLY);
    const before = (await server.send<JsonObject>('GET', `${pools}/p3`)).body;
    const url = `${pools}/p3/scale?fieldManager=bad`;

    const noManager = await server.raw('PATCH', `${pools}/p3/scale`, scale('p3', 3), APPLY);
    expect(noManager.status).toBe(422);
    expect(noManager.json<JsonObject>().message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');

    // kube's field manager checks the whole group, version and kind first (versionCheckManager).
    const wrongVersion = await server.raw('PATCH', url, JSON.stringify({ apiVersion: 'autoscaling/v2', kind: 'Scale', spec: { replicas: 3 } }), APPLY);
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.json<JsonObject>().message).toBe('invalid object type: autoscaling/v2, Kind=Scale');
    // kubectl apply --server-side --subresource=scale sends the parent's own manifest.
    const parentBody = await server.raw('PATCH', url, pool('p3', 5), APPLY);
    expect(parentBody.status).toBe(400);
    expect(parentBody.json<JsonObject>().message).toBe('invalid object type: scale.example.com/v1, Kind=Pool');
    const noVersion = await server.raw('PATCH', url, JSON.stringify({ kind: 'Scale', spec: { replicas: 3 } }), APPLY);
    expect(noVersion.json<JsonObject>().message).toBe('invalid object type: /, Kind=Scale');

    const wrongKind = await server.raw('PATCH', url, JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Pool', spec: { replicas: 3 } }), APPLY);
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.json<JsonObject>().message).toBe('invalid object type: autoscaling/v1, Kind=Pool');

    const withManaged = await server.raw('PATCH', url, JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { managedFields: [{ manager: 'x' }] } }), APPLY);
    expect(withManaged.status).toBe(400);
    expect(withManaged.json<JsonObject>().message).toBe('metadata.managedFields must be nil');

    const notYaml = await server.raw('PATCH', url, 'spec: [', APPLY);
    expect(notYaml.status).toBe(400);
    expect(notYaml.json<JsonObject>().message).toMatch(/^error decoding YAML: /);

    const text = await server.raw('PATCH', url, JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'p3' }, spec: { replicas: 'many' } }), APPLY);
    expect(text.status).toBe(500);
    // A plain error upstream: a Status without a reason.
    expect(text.json<JsonObject>().reason).toBeUndefined();
    expect(text.json<JsonObject>()).toMatchObject({
      message: 'failed to create typed patch object (/p3; autoscaling/v1, Kind=Scale): .spec.replicas: expected numeric (int or float), got string',
    });

    const forceOnMerge = await server.raw('PATCH', `${url}&force=true`, '{"spec":{"replicas":3}}', MERGE);
    expect(forceOnMerge.status).toBe(422);
    expect(forceOnMerge.json<JsonObject>().message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');

    const missing = await server.raw('PATCH', `${pools}/nope/scale?fieldManager=bad`, scale('nope', 3), APPLY);
    expect(missing.status).toBe(404);
    expect(missing.json<JsonObject>().message).toBe('pools.scale.example.com "nope" not found');

    const strategic = await server.raw('PATCH', url, '{"spec":{"replicas":6}}', { 'content-type': 'application/strategic-merge-patch+json' });
    expect(strategic.status).toBe(415);
    expect(strategic.json<JsonObject>().message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );

    const after = (await server.send<JsonObject>('GET', `${pools}/p3`)).body;
    expect(after).toEqual(before);
    expect((await server.raw('GET', '/readyz')).status).toBe(200);
  });

  it('answers a dry-run apply on /scale without storing it', async () => {
    await server.raw('PATCH', `${pools}/p4?fieldManager=apply_test`, pool('p4', 2), APPLY);
    const before = (await server.send<JsonObject>('GET', `${pools}/p4`)).body;
    const dry = await server.raw('PATCH', `${pools}/p4/scale?fieldManager=hpa&force=true&dryRun=All`, scale('p4', 9), APPLY);
    expect(dry.status, dry.body).toBe(200);
    expect(dry.json<JsonObject>().spec).toEqual({ replicas: 9 });
    expect((await server.send<JsonObject>('GET', `${pools}/p4`)).body).toEqual(before);
  });
});

describe('server-side apply of a Scale as CBOR (CBORServingAndStorage on)', () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
  });
  afterAll(() => wire?.close());

  it('takes application/apply-patch+cbor on /scale and lists it among the patch types', async () => {
    const json = { 'content-type': 'application/json' };
    expect((await wire.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: json, body: JSON.stringify(crd) })).status).toBe(201);
    let created = 0;
    for (let i = 0; i < 400 && created !== 201; i++) {
      created = (await wire.call('POST', pools, { headers: json, body: JSON.stringify({ apiVersion: 'scale.example.com/v1', kind: 'Pool', metadata: { name: 'c' }, spec: { scaling: { replicas: 1 } } }) })).status;
      if (created !== 201) await new Promise((r) => setTimeout(r, 25));
    }
    expect(created).toBe(201);
    const body = encode(new Tag(55799, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'c' }, spec: { replicas: 6 } }));
    const applied = await wire.call('PATCH', `${pools}/c/scale?fieldManager=cbor-scaler&force=true`, { headers: { 'content-type': 'application/apply-patch+cbor', accept: 'application/json' }, body });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.json<JsonObject>().spec).toEqual({ replicas: 6 });
    const parent = (await wire.call('GET', `${pools}/c`, { headers: { accept: 'application/json' } })).json<JsonObject>();
    expect(parent.spec.scaling.replicas).toBe(6);
    expect(parent.metadata.managedFields.find((e: JsonObject) => e.manager === 'cbor-scaler')).toMatchObject({ operation: 'Apply', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:scaling': { 'f:replicas': {} } } } });
    const strategic = await wire.call('PATCH', `${pools}/c/scale`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: '{}' });
    expect(strategic.status).toBe(415);
    expect(strategic.json<JsonObject>().message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
    );
  });
});

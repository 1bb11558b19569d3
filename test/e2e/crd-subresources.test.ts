// The parts of custom resources a CRD's version declares beyond its schema, over HTTPS against
// the real server: server-side Tables from additionalPrinterColumns, field selectors from
// selectableFields (list and watch), and the scale subresource (autoscaling/v1 Scale), with the
// hostile requests kube refuses and a check that nothing was stored wrongly after each.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createCRD } from '../support/crds.js';
import { useMemoryServer, type TestServer } from '../support/memory-server.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

type JsonObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const server: TestServer = useMemoryServer();
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

function upstream(file: string): JsonObject {
  return parse(readFileSync(join(UPSTREAM_DIR, 'crds', file), 'utf8'));
}

async function table(path: string, accept = TABLE): Promise<JsonObject> {
  const res = await server.raw('GET', path, undefined, { accept });
  expect(res.status, res.body).toBe(200);
  return res.json();
}

describe.runIf(upstreamAvailable())('custom resources: printer columns, selectable fields and scale', () => {
  const certs = '/apis/cert-manager.io/v1/namespaces/default/certificates';
  const rollouts = '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts';

  it('serves the Certificate Table with its printer columns, -o wide ones at priority 1', async () => {
    await createCRD(server, upstream('cert-manager.io_certificates.yaml'), certs);
    const sample = upstream('cert-manager.io_certificates.sample.yaml');
    expect((await server.send<JsonObject>('POST', certs, sample)).status).toBe(201);
    const got = await table(certs);
    expect(got.columnDefinitions.map((c: JsonObject) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Secret', 'string', 0],
      ['Issuer', 'string', 1],
      ['Status', 'string', 1],
      ['Expiration', 'string', 1],
      ['Age', 'date', 0],
    ]);
    expect(got.rows).toHaveLength(1);
    expect(got.rows[0].cells.slice(0, 6)).toEqual(['test1', null, 'test1', 'selfsigned-issuer', null, null]);
    expect(got.rows[0].cells[6]).toMatch(/^\d+s$/);

    // The Ready filter column follows the status once a controller writes it.
    const current = (await server.send<JsonObject>(`GET`, `${certs}/test1`)).body;
    current.status = { conditions: [{ type: 'Ready', status: 'True', message: 'Certificate is up to date and has not expired', reason: 'Ready' }] };
    expect((await server.send<JsonObject>('PUT', `${certs}/test1/status`, current)).status).toBe(200);
    const one = await table(`${certs}/test1`);
    expect(one.rows[0].cells.slice(0, 5)).toEqual(['test1', 'True', 'test1', 'selfsigned-issuer', 'Certificate is up to date and has not expired']);
  });

  it('selects Certificates by their selectableFields, and refuses other fields as kube does', async () => {
    const second = upstream('cert-manager.io_certificates.sample.yaml');
    second.metadata.name = 'test2';
    second.spec.secretName = 'test2';
    second.spec.issuerRef = { name: 'other-issuer', kind: 'ClusterIssuer', group: 'cert-manager.io' };
    expect((await server.send<JsonObject>('POST', certs, second)).status).toBe(201);
    const names = async (selector: string) =>
      ((await server.send<JsonObject>(`GET`, `${certs}?fieldSelector=${encodeURIComponent(selector)}`)).body.items as JsonObject[]).map((o) => o.metadata.name);
    expect(await names('spec.issuerRef.name=selfsigned-issuer')).toEqual(['test1']);
    expect(await names('spec.issuerRef.kind!=Issuer')).toEqual(['test2']);
    expect(await names('spec.issuerRef.group=cert-manager.io,metadata.name=test2')).toEqual(['test2']);

    const refused = await server.send<JsonObject>('GET', `${certs}?fieldSelector=spec.secretName%3Dtest1`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'field label not supported: spec.secretName' });
    const watchRefused = await server.send<JsonObject>('GET', `${certs}?watch=true&fieldSelector=spec.secretName%3Dtest1`);
    expect(watchRefused.status).toBe(400);
    expect(watchRefused.body.message).toBe('field label not supported: spec.secretName');

    // A watch with a selectable field sees only the matching object's events.
    const res = await server.raw('GET', `${certs}?watch=true&timeoutSeconds=1&fieldSelector=spec.issuerRef.name%3Dother-issuer`);
    const events = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e: JsonObject) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'test2']]);
  });

  it('serves the Rollout\'s scale subresource: GET, PUT and PATCH through the custom resource', async () => {
    const crd = upstream('argoproj.io_rollouts.yaml');
    await createCRD(server, crd, rollouts);
    const sample = upstream('argoproj.io_rollouts.sample.yaml');
    const name = sample.metadata.name;
    const created = await server.send<JsonObject>('POST', rollouts, sample);
    expect(created.status, JSON.stringify(created.body).slice(0, 800)).toBe(201);

    const scale = await server.send<JsonObject>('GET', `${rollouts}/${name}/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name,
        namespace: 'default',
        uid: created.body.metadata.uid,
        resourceVersion: created.body.metadata.resourceVersion,
        creationTimestamp: created.body.metadata.creationTimestamp,
      },
      spec: { replicas: sample.spec.replicas },
      status: { replicas: 0 },
    });

    // Status written by the controller shows in the Scale, selector included.
    const cr = (await server.send<JsonObject>('GET', `${rollouts}/${name}`)).body;
    cr.status = { HPAReplicas: 2, selector: 'app=rollouts-demo', replicas: 2 };
    expect((await server.send<JsonObject>('PUT', `${rollouts}/${name}/status`, cr)).status).toBe(200);
    const withStatus = (await server.send<JsonObject>('GET', `${rollouts}/${name}/scale`)).body;
    expect(withStatus.status).toEqual({ replicas: 2, selector: 'app=rollouts-demo' });

    const put = await server.send<JsonObject>('PUT', `${rollouts}/${name}/scale`, { ...withStatus, spec: { replicas: 7 } });
    expect(put.status).toBe(200);
    expect(put.body.spec).toEqual({ replicas: 7 });
    const afterPut = (await server.send<JsonObject>('GET', `${rollouts}/${name}`)).body;
    expect(afterPut.spec.replicas).toBe(7);
    expect(afterPut.metadata.generation).toBe(2);
    expect(afterPut.status.HPAReplicas).toBe(2);

    const patched = await server.raw('PATCH', `${rollouts}/${name}/scale`, JSON.stringify({ spec: { replicas: 3 } }), { 'content-type': 'application/merge-patch+json' });
    expect(patched.status, patched.body).toBe(200);
    expect(patched.json<JsonObject>().spec).toEqual({ replicas: 3 });
    const jsonPatched = await server.raw('PATCH', `${rollouts}/${name}/scale`, JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 0 }]), {
      'content-type': 'application/json-patch+json',
    });
    expect(jsonPatched.status, jsonPatched.body).toBe(200);
    expect(jsonPatched.json<JsonObject>().spec).toEqual({});
    expect((await server.send<JsonObject>('GET', `${rollouts}/${name}`)).body.spec.replicas).toBe(0);

    // The Table of a Rollout shows the replicas columns.
    const rows = await table(rollouts);
    expect(rows.columnDefinitions.map((c: JsonObject) => c.name)).toEqual(['Name', 'Desired', 'Current', 'Up-to-date', 'Available', 'Age']);
    expect(rows.rows[0].cells.slice(0, 5)).toEqual([name, 0, 2, null, null]);
  });

  it('refuses stale, invalid and hostile Scale writes, leaving the custom resource as it was', async () => {
    const name = upstream('argoproj.io_rollouts.sample.yaml').metadata.name;
    const before = (await server.send<JsonObject>('GET', `${rollouts}/${name}`)).body;
    const scale = (await server.send<JsonObject>('GET', `${rollouts}/${name}/scale`)).body;

    const stale = await server.send<JsonObject>('PUT', `${rollouts}/${name}/scale`, { ...scale, metadata: { ...scale.metadata, resourceVersion: '1' }, spec: { replicas: 9 } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on rollouts.argoproj.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    });

    const negative = await server.send<JsonObject>('PUT', `${rollouts}/${name}/scale`, { ...scale, spec: { replicas: -1 } });
    expect(negative.status).toBe(422);
    expect(negative.body.details.causes).toContainEqual({ reason: 'FieldValueInvalid', field: '.spec.replicas', message: 'Invalid value: -1: should be a non-negative integer' });

    const text = await server.send<JsonObject>('PUT', `${rollouts}/${name}/scale`, { ...scale, spec: { replicas: 'many' } });
    expect(text.status).toBe(400);
    expect(text.body.message).toBe('Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32');

    const wrongName = await server.send<JsonObject>('PUT', `${rollouts}/${name}/scale`, { ...scale, metadata: { ...scale.metadata, name: 'other' }, spec: { replicas: 4 } });
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.message).toBe(`the name of the object (other) does not match the name on the URL (${name})`);

    const wrongKind = await server.send<JsonObject>('PUT', `${rollouts}/${name}/scale`, { ...scale, apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(wrongKind.status).toBe(400);

    const smp = await server.raw('PATCH', `${rollouts}/${name}/scale`, '{"spec":{"replicas":"x"}}', { 'content-type': 'application/merge-patch+json' });
    expect(smp.status).toBe(422);
    // Apply is served on /scale (crd-scale-apply.test.ts); without a fieldManager it is refused.
    const apply = await server.raw('PATCH', `${rollouts}/${name}/scale`, '{}', { 'content-type': 'application/apply-patch+yaml' });
    expect(apply.status).toBe(422);
    // kube's crdHandler gives a custom resource's subresources the patch types of custom
    // resources: no strategic merge patch, even of the built-in Scale.
    const strategic = await server.raw('PATCH', `${rollouts}/${name}/scale`, '{"spec":{"replicas":6}}', { 'content-type': 'application/strategic-merge-patch+json' });
    expect(strategic.status).toBe(415);
    expect(strategic.json<JsonObject>().reason).toBe('UnsupportedMediaType');

    const missing = await server.send<JsonObject>('GET', `${rollouts}/nope/scale`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('rollouts.argoproj.io "nope" not found');

    const after = (await server.send<JsonObject>('GET', `${rollouts}/${name}`)).body;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec).toEqual(before.spec);
  });

  it('answers the scale of a resource without its spec replicas field as kube does', async () => {
    const sample = upstream('argoproj.io_rollouts.sample.yaml');
    sample.metadata.name = 'no-replicas';
    delete sample.spec.replicas;
    const created = await server.send<JsonObject>('POST', rollouts, sample);
    expect(created.status).toBe(201);
    expect(created.body.spec.replicas).toBeUndefined();
    const got = await server.send<JsonObject>('GET', `${rollouts}/no-replicas/scale`);
    expect(got.status).toBe(500);
    expect(got.body.message).toBe('Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
    // A patch that leaves the replicas unset cannot scale; a PUT names them (0 when left out).
    const patch = await server.raw('PATCH', `${rollouts}/no-replicas/scale`, '{"metadata":{"labels":{"a":"b"}}}', { 'content-type': 'application/merge-patch+json' });
    expect(patch.status).toBe(400);
    expect(patch.json<JsonObject>().message).toBe('the spec replicas field ".spec.replicas" cannot be empty');
    expect((await server.send<JsonObject>('GET', `${rollouts}/no-replicas`)).body.spec.replicas).toBeUndefined();
    const put = await server.send<JsonObject>('PUT', `${rollouts}/no-replicas/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'no-replicas' }, spec: {} });
    expect(put.status).toBe(200);
    expect((await server.send<JsonObject>('GET', `${rollouts}/no-replicas`)).body.spec.replicas).toBe(0);
  });
});

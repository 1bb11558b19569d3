// On a CRD update kube-apiserver 1.33 does not refuse a rule for its own estimated cost when the
// update leaves that version's schema as it was (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go: findVersionsWithUnchangedSchemas and
// suppressExpressionCostForUnchangedSchema): a CRD stored under another cost estimator stays
// updatable (labels, other versions), while a change to that schema is checked in full. The
// stored CRD is written to etcd directly here, as an older server would have stored it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

type Obj = Record<string, any>;

const etcd = etcdBinary();
const GROUP = 'ratchet.example.com';
const NAME = `lists.${GROUP}`;
const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${NAME}`;
const ETCD_KEY = `/registry/apiextensions.k8s.io/customresourcedefinitions/${NAME}`;
const RULE = 'self.names.all(x, self.names.all(y, x == y))';
// kube validates the internal form: a lone version's schema is reported at spec.validation.
const LIFTED_RULE_PATH = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule';
const RULE_PATH = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule';

const listSchema = (maxItems: number): Obj => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { names: { type: 'array', maxItems, items: { type: 'string', maxLength: 10 } } },
        'x-kubernetes-validations': [{ rule: RULE }],
      },
    },
  },
});

describe.skipIf(!etcd)('per-expression cost of unchanged schemas on CRD update', () => {
  let etcdProcess: EtcdProcess;
  let server: RunningServer;
  let creds: Credentials;
  let raw: Etcd3;
  let dir: string;

  beforeAll(async () => {
    etcdProcess = await startEtcd(etcd!);
    dir = mkdtempSync(join(tmpdir(), 'crd-cost-'));
    server = await startServer({ etcdServers: etcdProcess.endpoints, dataDir: join(dir, 'data') });
    creds = kubeconfigCredentials(server.kubeconfig);
    raw = new Etcd3({ hosts: etcdProcess.endpoints });
  });
  afterAll(async () => {
    raw?.close();
    await server?.close();
    await etcdProcess?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Obj }> => {
    const res = await call(server.url, path, creds, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: res.json<Obj>() };
  };

  /** GET, change, PUT; again on a conflict with the naming and establishing controllers' status writes. */
  const update = async (change: (crd: Obj) => void): Promise<{ status: number; body: Obj }> => {
    for (;;) {
      const crd = structuredClone((await send('GET', CRD_PATH)).body);
      change(crd);
      const res = await send('PUT', CRD_PATH, crd);
      if (res.status !== 409) return res;
    }
  };

  it('keeps a too-expensive rule of an unchanged schema and refuses it once that schema changes', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: NAME },
      spec: { group: GROUP, scope: 'Namespaced', names: { plural: 'lists', kind: 'List' }, versions: [{ name: 'v1', served: true, storage: true, schema: listSchema(20) }] },
    };
    expect((await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    // The same rule over lists of 2,000 names costs 3.6 times the per-expression limit: refused when written ...
    const costly = await update((c) => (c.spec.versions[0].schema = listSchema(2000)));
    expect(costly.status).toBe(422);
    expect(costly.body.details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: LIFTED_RULE_PATH,
        message: 'Forbidden: estimated rule cost exceeds budget by factor of 3.6x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
      },
    ]);

    // ... but stored so by a server whose estimator let it through.
    const stored = JSON.parse((await raw.get(ETCD_KEY).string())!);
    stored.spec.versions[0].schema = listSchema(2000);
    await raw.put(ETCD_KEY).value(JSON.stringify(stored));
    for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
      const seen = await send('GET', CRD_PATH);
      if (seen.body.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.names.maxItems === 2000) break;
      if (Date.now() > end) throw new Error('the server never saw the stored CRD');
    }

    // An update that leaves the schema alone is accepted: a label, then a second version.
    expect((await update((c) => (c.metadata.labels = { team: 'a' }))).status).toBe(200);
    const v2 = { name: 'v2', served: true, storage: false, schema: listSchema(20) };
    expect((await update((c) => c.spec.versions.push(v2))).status).toBe(200);

    // A change to that schema (only a description) is checked in full.
    const refused = await update((c) => (c.spec.versions[0].schema.openAPIV3Schema.description = 'lists of names'));
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes.map((c: Obj) => [c.field, c.reason])).toEqual([[RULE_PATH, 'FieldValueForbidden']]);
    const after = (await send('GET', CRD_PATH)).body;
    expect(after.spec.versions.map((v: Obj) => v.name)).toEqual(['v1', 'v2']);
    expect(after.spec.versions[0].schema.openAPIV3Schema.description).toBeUndefined();
    expect(after.metadata.labels).toEqual({ team: 'a' });
  });
});

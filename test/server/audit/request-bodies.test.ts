// The request object of every write in the audit log, at the levels that keep it (Request and
// RequestResponse), as kube's handlers log it: a create or update's object as decoded from JSON,
// YAML or protobuf (LogRequestObject, written as JSON); a patch's body as JSON (LogRequestPatch:
// JSON, merge and strategic merge patches as sent, an apply body's YAML transcoded); a DELETE's
// DeleteOptions body as decoded, in the version it named; nothing for a DELETE without a body, nor
// below Request. Hostile bodies (a patch that is no JSON, an apply body nested past the limit)
// are refused as ever, their events carry no request object, and the server goes on serving.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../runtime/index.js';
import type { AuditEvent } from '../../../runtime/server/audit/event.js';
import { kubeconfigCredentials, type Credentials } from '../../support/https-client.js';
import { loadUpstreamRoot, upstreamAvailable } from '../../support/proto-fields-descriptor.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-bodies-'));
const policyFile = join(dir, 'policy.yaml');
const logFile = join(dir, 'audit.log');
writeFileSync(
  policyFile,
  `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Request
  resources: [{ group: "", resources: ["configmaps"] }]
- level: RequestResponse
  omitManagedFields: true
  resources: [{ group: "", resources: ["secrets"] }]
- level: Metadata
`,
);

const NS = '/api/v1/namespaces/default';
let server: RunningServer;
let creds: Credentials;

beforeAll(async () => {
  server = await startServer({ storage: 'memory', auditPolicyFile: policyFile, auditLogPath: logFile });
  creds = kubeconfigCredentials(server.kubeconfig);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Sent {
  status: number;
  body: string;
  event: AuditEvent;
}

/** Sends one request and returns its ResponseComplete event. */
function send(method: string, path: string, body?: string | Uint8Array, contentType = 'application/json'): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) };
    const req = httpsRequest(new URL(path, server.url), { method, headers, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const id = res.headers['audit-id'];
        const events = readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as AuditEvent)
          .filter((e) => e.auditID === id);
        expect(events.map((e) => e.stage)).toEqual(['ResponseComplete']);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), event: events[0] });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('request objects in the audit log', () => {
  it('logs a create and an update as decoded, from JSON and YAML', async () => {
    const created = await send('POST', `${NS}/configmaps`, JSON.stringify({ metadata: { name: 'from-json' }, data: { a: '1' } }));
    expect(created.status).toBe(201);
    // Decoded: the endpoint's type fields filled in, as kube's decoder fills them.
    expect(created.event.requestObject).toEqual(cm('from-json', { a: '1' }));
    expect(created.event.objectRef).toMatchObject({ name: 'from-json', namespace: 'default' });

    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  n: "2"\n';
    const fromYaml = await send('POST', `${NS}/configmaps`, yaml, 'application/yaml');
    expect(fromYaml.status).toBe(201);
    expect(fromYaml.event.requestObject).toEqual(cm('from-yaml', { n: '2' }));

    const current = JSON.parse(fromYaml.body) as { metadata: { resourceVersion: string } };
    const put = { ...cm('from-yaml', { n: '3' }), metadata: { name: 'from-yaml', resourceVersion: current.metadata.resourceVersion } };
    const updated = await send('PUT', `${NS}/configmaps/from-yaml`, JSON.stringify(put));
    expect(updated.status).toBe(200);
    expect(updated.event.requestObject).toEqual(put);
  });

  it('logs each patch type as JSON: JSON patch, merge patch, strategic merge patch and an apply body in YAML', async () => {
    expect((await send('POST', `${NS}/configmaps`, JSON.stringify(cm('patched', { a: '1' })))).status).toBe(201);
    const ops = [{ op: 'add', path: '/data/b', value: '2' }];
    const jsonPatch = await send('PATCH', `${NS}/configmaps/patched`, JSON.stringify(ops), 'application/json-patch+json');
    expect(jsonPatch.status).toBe(200);
    expect(jsonPatch.event.requestObject).toEqual(ops);

    const merge = await send('PATCH', `${NS}/configmaps/patched`, JSON.stringify({ data: { c: '3', a: null } }), 'application/merge-patch+json');
    expect(merge.status).toBe(200);
    expect(merge.event.requestObject).toEqual({ data: { c: '3', a: null } });

    const strategic = await send('PATCH', `${NS}/configmaps/patched`, JSON.stringify({ metadata: { labels: { tier: 'web' } } }), 'application/strategic-merge-patch+json');
    expect(strategic.status).toBe(200);
    expect(strategic.event.requestObject).toEqual({ metadata: { labels: { tier: 'web' } } });

    const applyYaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  port: "8080"\n  # a comment YAML may carry\n  debug: "true"\n';
    const applied = await send('PATCH', `${NS}/configmaps/applied?fieldManager=audit-test`, applyYaml, 'application/apply-patch+yaml');
    expect(applied.status).toBe(201);
    expect(applied.event.requestObject).toEqual(cm('applied', { port: '8080', debug: 'true' }));
  });

  it('logs a DELETE\'s DeleteOptions body as decoded, in the version it names, and nothing without a body', async () => {
    for (const name of ['del-json', 'del-yaml', 'del-query']) expect((await send('POST', `${NS}/configmaps`, JSON.stringify(cm(name, {})))).status).toBe(201);
    const json = await send('DELETE', `${NS}/configmaps/del-json`, JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }));
    expect(json.status).toBe(200);
    expect(json.event.requestObject).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });

    const yaml = await send('DELETE', `${NS}/configmaps/del-yaml`, 'gracePeriodSeconds: 0\n', 'application/yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.event.requestObject).toEqual({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0 });

    const query = await send('DELETE', `${NS}/configmaps/del-query?propagationPolicy=Orphan`);
    expect(query.status).toBe(200);
    expect(query.event.requestObject).toBeUndefined();
  });

  it('keeps request objects out below Request, and drops managedFields where the rule says so', async () => {
    const ns = await send('PATCH', '/api/v1/namespaces/default', JSON.stringify({ metadata: { labels: { audited: 'no' } } }), 'application/merge-patch+json');
    expect(ns.status).toBe(200);
    expect(ns.event.level).toBe('Metadata');
    expect(ns.event.requestObject).toBeUndefined();

    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'applied-secret' }, stringData: { k: 'v' } };
    const applied = await send('PATCH', `${NS}/secrets/applied-secret?fieldManager=audit-test`, JSON.stringify(secret), 'application/apply-patch+yaml');
    expect(applied.status).toBe(201);
    expect(applied.event.level).toBe('RequestResponse');
    expect(applied.event.requestObject).toEqual(secret);
    expect((applied.event.responseObject as { metadata: Record<string, unknown> }).metadata.managedFields).toBeUndefined();
  });

  it('refuses hostile patch bodies as ever, logs no request object for them, and goes on serving', async () => {
    expect((await send('POST', `${NS}/configmaps`, JSON.stringify(cm('target', { a: '1' })))).status).toBe(201);
    const notJson = await send('PATCH', `${NS}/configmaps/target`, '{"data": {', 'application/merge-patch+json');
    expect(notJson.status, notJson.body).toBe(400);
    expect(notJson.event.requestObject).toBeUndefined();
    expect(notJson.event.responseStatus?.code).toBe(400);

    // Nested past the 256 levels bodies may have (composing YAML that deep recurses).
    const deep = `${'{k: '.repeat(1000)}1${'}'.repeat(1000)}`;
    const tooDeep = await send('PATCH', `${NS}/configmaps/target?fieldManager=audit-test`, deep, 'application/apply-patch+yaml');
    expect(tooDeep.status, tooDeep.body).toBe(400);
    expect(tooDeep.event.requestObject).toBeUndefined();

    // Nothing of either reached the object, and the server still answers.
    const after = await send('GET', `${NS}/configmaps/target`);
    expect(after.status).toBe(200);
    expect((JSON.parse(after.body) as { data: Record<string, string> }).data).toEqual({ a: '1' });
  });
});

describe.runIf(upstreamAvailable())('request objects decoded from protobuf', () => {
  let root: protobuf.Root;
  beforeAll(() => {
    root = loadUpstreamRoot();
  });

  it('logs a protobuf create as the JSON of the object decoded', async () => {
    const ConfigMap = root.lookupType('k8s.io.api.core.v1.ConfigMap');
    const raw = ConfigMap.encode(ConfigMap.fromObject({ metadata: { name: 'from-proto' }, data: { p: 'q' } })).finish();
    const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').encode({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw }).finish();
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
    const created = await send('POST', `${NS}/configmaps`, body, 'application/vnd.kubernetes.protobuf');
    expect(created.status).toBe(201);
    expect(created.event.requestObject).toEqual(cm('from-proto', { p: 'q' }));
  });
});

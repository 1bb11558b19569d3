// The audit log end to end: a real server over HTTPS with a policy file and a log file, each
// request checked against the events it left (stages, levels, users, objects, annotations).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../runtime/server/audit/event.js';
import { useMemoryServer } from '../../support/memory-server.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
const policyFile = join(dir, 'policy.yaml');
const logFile = join(dir, 'audit', 'audit.log');
writeFileSync(
  policyFile,
  `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  omitManagedFields: true
  resources: [{ group: "", resources: ["configmaps"] }]
- level: Request
  resources: [{ group: "", resources: ["serviceaccounts"] }]
- level: Metadata
  omitStages: ["RequestReceived"]
  resources: [{ group: "", resources: ["namespaces"] }]
- level: Metadata
`,
);

const server = useMemoryServer({ auditPolicyFile: policyFile, auditLogPath: logFile });

function events(auditID?: string): AuditEvent[] {
  const all = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
  return auditID === undefined ? all : all.filter((e) => e.auditID === auditID);
}

async function eventually<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  return read();
}

const auditId = (headers: Record<string, string | string[] | undefined>) => headers['audit-id'] as string;

describe('the audit log', () => {
  it('records a create at RequestResponse: both stages, the objects, the user and the decision', async () => {
    const res = await server.raw('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'audited' }, data: { a: 'b' } }, { 'user-agent': 'audit-test/1.0' });
    expect(res.status).toBe(201);
    const id = auditId(res.headers);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [received, complete, ...rest] = events(id);
    expect(rest).toEqual([]);
    expect(received).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      stage: 'RequestReceived',
      requestURI: '/api/v1/namespaces/default/configmaps',
      verb: 'create',
      user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test/1.0',
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
    });
    expect(received.requestObject).toBeUndefined();
    // The name comes from the decoded body, after RequestReceived was written.
    expect(received.objectRef?.name).toBeUndefined();
    expect(complete.objectRef?.name).toBe('audited');
    expect(received.annotations).toBeUndefined();
    expect(complete).toMatchObject({
      stage: 'ResponseComplete',
      objectRef: { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      requestObject: { metadata: { name: 'audited' }, data: { a: 'b' } },
      responseObject: { kind: 'ConfigMap', metadata: { name: 'audited', namespace: 'default' } },
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
    });
    expect(complete.requestReceivedTimestamp).toBe(received.requestReceivedTimestamp);
    expect(complete.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // omitManagedFields: the client sees them, the log does not.
    expect((res.json().metadata as Record<string, unknown>).managedFields).toBeDefined();
    expect((complete.responseObject as { metadata: Record<string, unknown> }).metadata.managedFields).toBeUndefined();
  });

  it('keeps the Audit-Id the client sent', async () => {
    const res = await server.raw('GET', '/api/v1/namespaces/default/configmaps/audited', undefined, { 'audit-id': 'client-chosen-id' });
    expect(res.status).toBe(200);
    expect(auditId(res.headers)).toBe('client-chosen-id');
    expect(events('client-chosen-id').map((e) => `${e.stage} ${e.verb} ${e.objectRef?.name}`)).toEqual([
      'RequestReceived get audited',
      'ResponseComplete get audited',
    ]);
  });

  it('records a list with its response object', async () => {
    const res = await server.raw('GET', '/api/v1/namespaces/default/configmaps?limit=500');
    const complete = events(auditId(res.headers)).find((e) => e.stage === 'ResponseComplete')!;
    expect(complete.verb).toBe('list');
    expect(complete.requestURI).toBe('/api/v1/namespaces/default/configmaps?limit=500');
    expect(complete.objectRef).toEqual({ resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
    expect((complete.responseObject as { kind: string }).kind).toBe('ConfigMapList');
  });

  it('records the request but not the response at level Request', async () => {
    const res = await server.raw('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } });
    expect(res.status).toBe(201);
    const complete = events(auditId(res.headers)).find((e) => e.stage === 'ResponseComplete')!;
    expect(complete.level).toBe('Request');
    // The object as decoded: its type filled from the endpoint, as kube's decoder fills it.
    expect(complete.requestObject).toEqual({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    expect(complete.objectRef).toEqual({ resource: 'serviceaccounts', namespace: 'default', name: 'robot', apiVersion: 'v1' });
    expect(complete.responseObject).toBeUndefined();
  });

  it('records no objects at Metadata, and omits the stages the rule omits', async () => {
    const res = await server.raw('GET', '/api/v1/namespaces/default');
    expect(res.status).toBe(200);
    const written = events(auditId(res.headers));
    expect(written.map((e) => e.stage)).toEqual(['ResponseComplete']);
    expect(written[0]).toMatchObject({ level: 'Metadata', verb: 'get', objectRef: { resource: 'namespaces', name: 'default', apiVersion: 'v1' } });
    expect(written[0].requestObject).toBeUndefined();
    expect(written[0].responseObject).toBeUndefined();
  });

  it("records a failure's Status", async () => {
    const res = await server.raw('GET', '/api/v1/namespaces/default/configmaps/missing');
    expect(res.status).toBe(404);
    const complete = events(auditId(res.headers)).find((e) => e.stage === 'ResponseComplete')!;
    expect(complete.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'configmaps "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', kind: 'configmaps' },
      code: 404,
    });
  });

  it('records the impersonated user beside the one who asked, and a forbidden decision', async () => {
    const res = await server.raw('GET', '/api/v1/namespaces/default/configmaps/audited', undefined, {
      'impersonate-user': 'jane',
      'impersonate-group': 'developers',
    });
    expect(res.status).toBe(403);
    const written = events(auditId(res.headers));
    // Authorization's refusal is the response the event records, never a Panic.
    expect(written.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    const [received, complete] = written;
    // The policy saw the authenticated user; impersonation comes after RequestReceived, as in kube.
    expect(received.user.username).toBe('admin');
    expect(received.impersonatedUser).toBeUndefined();
    expect(complete.user.username).toBe('admin');
    expect(complete.impersonatedUser).toEqual({ username: 'jane', groups: ['developers', 'system:authenticated'] });
    expect(complete.annotations?.['authorization.k8s.io/decision']).toBe('forbid');
    expect(complete.annotations).toHaveProperty(['authorization.k8s.io/reason']);
    expect(complete.responseStatus).toMatchObject({ code: 403, reason: 'Forbidden' });
  });

  it('records non-resource requests with the lowercased method, and none the policy excludes', async () => {
    const version = await server.raw('GET', '/version');
    const written = events(auditId(version.headers));
    expect(written.map((e) => `${e.stage} ${e.verb} ${e.requestURI}`)).toEqual(['RequestReceived get /version', 'ResponseComplete get /version']);
    expect(written[1].objectRef).toBeUndefined();
    const health = await server.raw('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(events(auditId(health.headers))).toEqual([]);
  });

  it('records a watch as RequestReceived, ResponseStarted, then ResponseComplete when it ends, without the stream', async () => {
    const res = await server.raw('GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    expect(res.status).toBe(200);
    const id = auditId(res.headers);
    const written = await eventually(() => events(id), (e) => e.length >= 3);
    expect(written.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(written[1]).toMatchObject({ verb: 'watch', responseStatus: { metadata: {}, code: 200 } });
    for (const e of written) expect(e.responseObject).toBeUndefined();
  });

  it('writes the log file with mode 0600', async () => {
    const { statSync } = await import('node:fs');
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
  });
});

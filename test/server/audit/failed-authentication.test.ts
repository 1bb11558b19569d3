// Requests that fail authentication are audited as kube's WithFailedAuthenticationAudit audits
// them: the policy is asked for a request with no user (rules naming users or groups do not
// match), and at any level but None one event is written, at ResponseStarted (the 401 is the
// whole response; the RequestReceived and ResponseComplete of WithAudit never happen, as that
// filter sits behind authentication), with `user: {}`, the request's metadata and a status that
// names the credentials tried. omitStages of the rule apply. The server goes on serving, and the
// refused request stored nothing.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueCertificate } from '../../../runtime/auth/pki.js';
import { startServer, type RunningServer } from '../../../runtime/index.js';
import type { AuditEvent } from '../../../runtime/server/audit/event.js';
import { call, kubeconfigCredentials, type Credentials } from '../../support/https-client.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-authn-'));
const policyFile = join(dir, 'policy.yaml');
const logFile = join(dir, 'audit.log');
writeFileSync(
  policyFile,
  `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*"]
- level: Metadata
  userGroups: ["system:unauthenticated", "system:masters"]
- level: RequestResponse
  resources: [{ group: "", resources: ["secrets"] }]
- level: Metadata
  omitStages: ["ResponseStarted"]
  resources: [{ group: "", resources: ["configmaps"] }]
- level: Request
`,
);

let server: RunningServer;
let admin: Credentials;
let ca: string;

beforeAll(async () => {
  server = await startServer({ storage: 'memory', auditPolicyFile: policyFile, auditLogPath: logFile });
  admin = kubeconfigCredentials(server.kubeconfig);
  ca = admin.ca;
});
afterAll(() => server?.close());

function events(auditID: string): AuditEvent[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.auditID === auditID);
}

const auditId = (headers: Record<string, string | string[] | undefined>) => headers['audit-id'] as string;

describe('failed authentication in the audit log', () => {
  it('writes one ResponseStarted event at the level of a request without a user, with an empty user and the 401', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/secrets?limit=5', { ca, token: 'not-a-token' }, { headers: { 'user-agent': 'authn-audit/1.0' } });
    expect(res.status).toBe(401);
    const all = events(auditId(res.headers));
    expect(all).toHaveLength(1);
    const [event] = all;
    expect(event).toEqual({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      // The group rule (system:unauthenticated) does not match: kube asks the policy with no user at all.
      level: 'RequestResponse',
      auditID: auditId(res.headers),
      stage: 'ResponseStarted',
      requestURI: '/api/v1/namespaces/default/secrets?limit=5',
      verb: 'list',
      user: {},
      sourceIPs: ['127.0.0.1'],
      userAgent: 'authn-audit/1.0',
      objectRef: { resource: 'secrets', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 },
      requestReceivedTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      stageTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
    expect(event.stageTimestamp >= event.requestReceivedTimestamp).toBe(true);
  });

  it('names each kind of credential tried, or none', async () => {
    const message = async (path: string, creds: Credentials, headers: Record<string, string> = {}) => {
      const res = await call(server.url, path, creds, { headers });
      expect(res.status).toBe(401);
      return events(auditId(res.headers)).map((e) => [e.stage, e.level, e.responseStatus?.message]);
    };
    expect(await message('/version', { ca })).toEqual([['ResponseStarted', 'Request', 'Authentication failed, no credentials provided']]);
    const basic = `Basic ${Buffer.from('alice:secret').toString('base64')}`;
    expect(await message('/version?access_token=abc', { ca }, { authorization: basic })).toEqual([
      ['ResponseStarted', 'Request', 'Authentication failed, attempted: basic, access_token'],
    ]);
    const foreign = await issueCertificate(await createCertificateAuthority('foreign-ca'), { subject: 'CN=mallory', usage: 'clientAuth' });
    expect(await message('/version', { ca, cert: foreign.certPem, key: foreign.keyPem, token: 'nope' })).toEqual([
      ['ResponseStarted', 'Request', 'Authentication failed, attempted: bearer, x509'],
    ]);
  });

  it('writes nothing where the policy says None or omits ResponseStarted, and stores nothing refused', async () => {
    const healthz = await call(server.url, '/healthz', { ca, token: 'nope' });
    expect(healthz.status).toBe(401);
    expect(events(auditId(healthz.headers))).toEqual([]);

    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sneaky' } });
    const create = await call(server.url, '/api/v1/namespaces/default/configmaps', { ca, token: 'nope' }, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(create.status).toBe(401);
    expect(events(auditId(create.headers))).toEqual([]);

    // The server still serves, and the refused create left nothing behind.
    const got = await call(server.url, '/api/v1/namespaces/default/configmaps/sneaky', admin);
    expect(got.status).toBe(404);
    // The admin's own request is audited by WithAudit as ever, at the group rule's level.
    const stages = events(auditId(got.headers)).map((e) => [e.stage, e.level, e.user.username]);
    expect(stages).toEqual([
      ['RequestReceived', 'Metadata', 'admin'],
      ['ResponseComplete', 'Metadata', 'admin'],
    ]);
  });
});

// The review kinds end to end, on one server per authorization mode (AlwaysAllow, AlwaysDeny)
// with a token-file user: SubjectAccessReview, SelfSubjectAccessReview and
// LocalSubjectAccessReview answered by the server's authorizer chain, SelfSubjectRulesReview by
// its rule listing, TokenReview by its authenticator chain; kube-apiserver's 400s and 422s for
// reviews with missing or conflicting fields; nothing stored; and kubectl 1.33's `auth can-i`
// (with --list, --subresource, a non-resource URL) and `auth reconcile -f`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpsRequest } from 'node:https';
import { decodeObject, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { kubectlVersions, runKubectl, writeKubeconfig } from '../support/kubectl.js';

const AUTHZ = '/apis/authorization.k8s.io/v1';
const SAR = `${AUTHZ}/subjectaccessreviews`;
const SSAR = `${AUTHZ}/selfsubjectaccessreviews`;
const SSRR = `${AUTHZ}/selfsubjectrulesreviews`;
const LSAR = `${AUTHZ}/namespaces/default/localsubjectaccessreviews`;
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const TOKEN = 'reviews-carol-token';
const GET_PODS = { verb: 'get', resource: 'pods', namespace: 'default' };

let allow: RunningServer;
let deny: RunningServer;
let dir: string;
let admin: Credentials;
let carolOnAllow: Credentials;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'e2e-reviews-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},carol,uid-carol,"developers"\n`);
  allow = await startServer({ storage: 'memory', dataDir: join(dir, 'allow'), tokenAuthFile: tokenFile, authorizationMode: 'AlwaysAllow' });
  deny = await startServer({ storage: 'memory', dataDir: join(dir, 'deny'), tokenAuthFile: tokenFile, authorizationMode: 'AlwaysDeny' });
  admin = kubeconfigCredentials(deny.kubeconfig);
  carolOnAllow = { ca: allow.caCert, token: TOKEN };
});

afterAll(async () => {
  await allow?.close();
  await deny?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Body = Record<string, unknown>;

async function post(server: RunningServer, creds: Credentials, path: string, body: Body) {
  const res = await call(server.url, path, creds, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: res.json<Body>() };
}

/**
 * The answer without the Update entry every create records in managedFields (its time varies);
 * one test below checks the entry itself.
 */
function withoutManagedFields(body: Body): Body {
  const metadata = body.metadata as Body | undefined;
  if (!metadata?.managedFields) return body;
  const { managedFields: _recorded, ...rest } = metadata;
  return { ...body, metadata: rest };
}

const review = (kind: string, spec: Body, extra: Body = {}): Body => ({ apiVersion: 'authorization.k8s.io/v1', kind, ...extra, spec });

/** The list resourceVersion is the store's revision: unchanged means nothing was written. */
async function revision(server: RunningServer, creds: Credentials): Promise<string> {
  const res = await call(server.url, '/api/v1/namespaces', creds);
  return (res.json<{ metadata: { resourceVersion: string } }>()).metadata.resourceVersion;
}

describe('SubjectAccessReview', () => {
  it.each([
    ['a user denied by AlwaysDeny', { resourceAttributes: GET_PODS, user: 'bob' }, { allowed: false, reason: 'Everything is forbidden.' }],
    ['a member of system:masters', { resourceAttributes: GET_PODS, groups: ['system:masters'] }, { allowed: true }],
    ['a non-resource path', { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'bob', uid: 'u', extra: { scopes: ['a'] } }, { allowed: false, reason: 'Everything is forbidden.' }],
  ])('%s', async (_name, spec, status) => {
    const before = await revision(deny, admin);
    const res = await post(deny, admin, SAR, review('SubjectAccessReview', spec));
    expect(res.status).toBe(201);
    expect(withoutManagedFields(res.body)).toEqual({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec, status });
    expect(await revision(deny, admin)).toBe(before);
  });

  it.each([
    ['a field selector that does not parse', { fieldSelector: { rawSelector: 'a' } }, 'spec.resourceAttributes.fieldSelector ignored due to parse error'],
    ['a label selector that does not parse', { labelSelector: { rawSelector: 'a in (' } }, 'spec.resourceAttributes.labelSelector ignored due to parse error'],
    [
      'field requirements only partly usable',
      { fieldSelector: { requirements: [{ key: 'a', operator: 'In', values: ['x'] }, { key: 'b', operator: 'Exists' }] } },
      'spec.resourceAttributes.fieldSelector partially ignored due to parse error',
    ],
    ['field requirements not usable at all', { fieldSelector: { requirements: [{ key: 'a', operator: 'In', values: ['x', 'y'] }] } }, 'spec.resourceAttributes.fieldSelector ignored due to parse error'],
  ])('reports %s in evaluationError', async (_name, selectors, evaluationError) => {
    const res = await post(deny, admin, SAR, review('SubjectAccessReview', { resourceAttributes: { ...GET_PODS, ...selectors }, groups: ['system:masters'] }));
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ allowed: true, evaluationError });
  });
});

describe('without the AuthorizeWithSelectors gate', () => {
  let gated: RunningServer;
  beforeAll(async () => {
    gated = await startServer({ storage: 'memory', dataDir: join(dir, 'gated'), authorizationMode: 'AlwaysDeny', featureGates: 'AuthorizeWithSelectors=false,AuthorizeNodeWithSelectors=false' });
  });
  afterAll(() => gated?.close());

  it('drops the selectors before anything looks at them, as kube-apiserver does', async () => {
    const creds = kubeconfigCredentials(gated.kubeconfig);
    const spec = { resourceAttributes: { ...GET_PODS, fieldSelector: { rawSelector: 'a' }, labelSelector: {} } };
    for (const [path, kind] of [[SSAR, 'SelfSubjectAccessReview'], [SAR, 'SubjectAccessReview']] as const) {
      const res = await post(gated, creds, path, review(kind, kind === 'SubjectAccessReview' ? { ...spec, user: 'bob' } : spec));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect((res.body.spec as Body).resourceAttributes).toEqual(GET_PODS);
      expect((res.body.status as Body).evaluationError).toBeUndefined();
    }
  });
});

describe('protobuf', () => {
  it('takes a SubjectAccessReview and answers it in protobuf', async () => {
    const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
    const spec = { resourceAttributes: { ...GET_PODS, labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }] } }, groups: ['system:masters'], extra: { scopes: ['a'] } };
    const body = Buffer.from(encodeObject(root, 'k8s.io.api.authorization.v1.SubjectAccessReview', review('SubjectAccessReview', spec, { metadata: {} })));
    const res = await new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
      const headers = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf' };
      const req = httpsRequest(new URL(SAR, deny.url), { method: 'POST', ca: admin.ca, cert: admin.cert, key: admin.key, agent: false, headers }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(res.status).toBe(201);
    expect(withoutManagedFields(decodeObject(root, res.bytes, messageNameResolver(root)).object as Body)).toEqual({ ...review('SubjectAccessReview', spec), metadata: {}, status: { allowed: true } });
  });
});

describe('SelfSubjectAccessReview and LocalSubjectAccessReview', () => {
  it('judges the caller', async () => {
    expect((await post(deny, admin, SSAR, review('SelfSubjectAccessReview', { resourceAttributes: GET_PODS }))).body.status).toEqual({ allowed: true });
    expect((await post(allow, carolOnAllow, SSAR, review('SelfSubjectAccessReview', { nonResourceAttributes: { path: '/metrics', verb: 'get' } }))).body.status).toEqual({ allowed: true });
  });

  it('fills the namespace of the path in, and judges the given subject there', async () => {
    const res = await post(deny, admin, LSAR, review('LocalSubjectAccessReview', { resourceAttributes: GET_PODS, user: 'bob' }));
    expect(res.status).toBe(201);
    expect(withoutManagedFields(res.body)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { creationTimestamp: null, namespace: 'default' },
      spec: { resourceAttributes: GET_PODS, user: 'bob' },
      status: { allowed: false, reason: 'Everything is forbidden.' },
    });
  });

  it('refuses another namespace in metadata with the create handler 400', async () => {
    const res = await post(deny, admin, LSAR, review('LocalSubjectAccessReview', { resourceAttributes: GET_PODS, user: 'bob' }, { metadata: { namespace: 'other' } }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' });
  });
});

const NULL_ATTRIBUTES = 'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified';
const BOTH = 'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: cannot be specified in combination with resourceAttributes';
const NO_SUBJECT = 'spec.user: Invalid value: "": at least one of user or group must be specified';
// The metadata printed is the posted one with the writer's managedFields entry, recorded (as by
// kube's create handler) before the review is validated: its time is the request's.
const EMPTY_META = new RegExp(
  `^${escapeRegExp(
    'metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string{"a":"b"}, Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry{v1.ManagedFieldsEntry{Manager:"", Operation:"Update", APIVersion:"authorization.k8s.io/v1", Time:time.Date(',
  )}\\d{4}, time\\.[A-Z][a-z]+, (\\d{1,2}, ){4}0, time\\.Local\\), FieldsType:"FieldsV1", FieldsV1:&v1\\.FieldsV1\\{Raw:\\[\\]uint8\\(".*"\\)\\}, Subresource:""\\}\\}\\}: must be empty$`,
);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('reviews with missing or conflicting fields: 422 Invalid', () => {
  it.each([
    ['SubjectAccessReview', SAR, {}, {}, [NULL_ATTRIBUTES, NO_SUBJECT]],
    ['SubjectAccessReview', SAR, { resourceAttributes: GET_PODS, nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'bob' }, {}, [BOTH]],
    ['SubjectAccessReview', SAR, { resourceAttributes: GET_PODS, user: 'bob' }, { metadata: { name: 'x', labels: { a: 'b' } } }, [EMPTY_META]],
    [
      'SubjectAccessReview',
      SAR,
      { resourceAttributes: { ...GET_PODS, fieldSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] }, labelSelector: {} }, user: 'bob' },
      {},
      [
        'spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements',
        'spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required',
      ],
    ],
    ['SubjectAccessReview', SAR, { resourceAttributes: { ...GET_PODS, fieldSelector: { requirements: [{ operator: 'Exists', values: ['x'] }] } }, user: 'bob' }, {}, [
      'spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified',
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]],
    ['SelfSubjectAccessReview', SSAR, {}, {}, [NULL_ATTRIBUTES]],
    ['LocalSubjectAccessReview', LSAR, { resourceAttributes: { ...GET_PODS, namespace: 'other' }, groups: ['g'] }, {}, ['spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace']],
    [
      'LocalSubjectAccessReview',
      LSAR,
      { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
      {},
      [NO_SUBJECT, 'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: disallowed on this kind of request'],
    ],
  ])('%s %#', async (kind, path, spec, extra, messages: (string | RegExp)[]) => {
    const before = await revision(deny, admin);
    const res = await post(deny, admin, path, review(kind, spec, extra));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { name: '', group: 'authorization.k8s.io', kind } });
    const causes = (res.body.details as { causes: { field: string; message: string }[] }).causes.map((c) => `${c.field}: ${c.message}`);
    expect(causes).toHaveLength(messages.length);
    messages.forEach((m, i) => expect(causes[i]).toMatch(typeof m === 'string' ? new RegExp(`^${escapeRegExp(m)}$`) : m));
    const summary = causes.length === 1 ? causes[0] : `[${causes.join(', ')}]`;
    expect(res.body.message).toBe(`${kind}.authorization.k8s.io "" is invalid: ${summary}`);
    expect(await revision(deny, admin)).toBe(before);
  });
});

describe('reviews of the wrong shape: a 4xx Status, never a 500', () => {
  it.each([
    ['a null resourceAttributes, taken as absent', SSAR, review('SelfSubjectAccessReview', { resourceAttributes: null }), 422],
    ['a string for resourceAttributes', SSAR, review('SelfSubjectAccessReview', { resourceAttributes: 'pods' }), undefined],
    ['a list for spec', SAR, { ...review('SubjectAccessReview', {}), spec: [] }, undefined],
    ['extra values that are no list', SAR, review('SubjectAccessReview', { resourceAttributes: GET_PODS, user: 'bob', extra: { k: 'v' } }), undefined],
    ['a number for the token', TOKEN_REVIEWS, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 5 } }, undefined],
    ['a list for the namespace', SSRR, review('SelfSubjectRulesReview', { namespace: ['default'] }), undefined],
    ['no spec at all', SAR, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview' }, 422],
  ])('%s', async (_name, path, body, code) => {
    const before = await revision(deny, admin);
    const res = await post(deny, admin, path, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    if (code) expect(res.status).toBe(code);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', code: res.status });
    expect(await revision(deny, admin)).toBe(before);
    expect((await call(deny.url, '/readyz', admin)).status).toBe(200);
  });
});

describe('managedFields', () => {
  it('record the writer of an access review, named by fieldManager or the User-Agent, as every create does', async () => {
    const body = JSON.stringify(review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'get', resource: 'pods' } }));
    const byAgent = await call(deny.url, SSAR, admin, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc' }, body });
    const entry = (res: { json: () => Body }) => ((res.json().metadata as Body).managedFields as Body[])[0];
    expect(entry(byAgent)).toEqual({
      manager: 'kubectl',
      operation: 'Update',
      apiVersion: 'authorization.k8s.io/v1',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      fieldsType: 'FieldsV1',
      fieldsV1: expect.objectContaining({ 'f:spec': expect.objectContaining({ 'f:resourceAttributes': { '.': {}, 'f:resource': {}, 'f:verb': {} } }) }),
    });
    const named = await call(deny.url, `${SSAR}?fieldManager=checker`, admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(entry(named).manager).toBe('checker');
  });

  it('are not part of the answers built afresh (SelfSubjectRulesReview)', async () => {
    const res = await post(deny, admin, SSRR, review('SelfSubjectRulesReview', { namespace: 'default' }));
    expect(res.body.metadata).toEqual({ creationTimestamp: null });
  });
});

describe('SelfSubjectRulesReview', () => {
  it('lists AlwaysAllow\'s rules: everything', async () => {
    const res = await post(allow, carolOnAllow, SSRR, review('SelfSubjectRulesReview', { namespace: 'default' }, { metadata: { name: 'dropped' } }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    });
  });

  it('lists nothing under AlwaysDeny, even for system:masters, whose bypass is no rule', async () => {
    const res = await post(deny, admin, SSRR, review('SelfSubjectRulesReview', { namespace: 'default' }));
    expect(res.body.status).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  it('needs a namespace: 400', async () => {
    const res = await post(deny, admin, SSRR, review('SelfSubjectRulesReview', {}));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'no namespace on request' });
  });
});

describe('TokenReview', () => {
  const tokenReview = (spec: Body): Body => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });

  it('finds the user of a token-file token', async () => {
    const res = await post(deny, admin, TOKEN_REVIEWS, tokenReview({ token: TOKEN }));
    expect(res.status).toBe(201);
    expect(withoutManagedFields(res.body)).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token: TOKEN },
      // --api-audiences defaults to the service account issuer; a token-file token is good for them.
      status: { authenticated: true, user: { username: 'carol', uid: 'uid-carol', groups: ['developers', 'system:authenticated'] }, audiences: ['https://kubernetes.default.svc.cluster.local'] },
    });
  });

  it.each([
    ['an unknown token', { token: 'no-such-token' }],
    // Token-file tokens are meant for the server's own API audiences only.
    ['another audience', { token: TOKEN, audiences: ['https://elsewhere.example'] }],
  ])('answers %s unauthenticated with the chain error', async (_name, spec) => {
    const res = await post(deny, admin, TOKEN_REVIEWS, tokenReview(spec));
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  it('needs a token: 400', async () => {
    const res = await post(deny, admin, TOKEN_REVIEWS, tokenReview({}));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'token is required for TokenReview in authentication' });
    expect((await call(deny.url, '/readyz', admin)).status).toBe(200);
  });
});

const ROLES = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: default}
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}
`;

describe.each(kubectlVersions().filter((v) => v.version === '1.33'))('kubectl $version', ({ path }) => {
  const ctx = (server: RunningServer, name: string) => ({ kubeconfig: writeKubeconfig(dir, server.kubeconfig, name), home: dir });

  it.runIf(path)('auth can-i answers from the authorizer chain', async () => {
    const onAllow = ctx(allow, 'kubeconfig-allow');
    for (const args of [['create', 'pods'], ['get', 'pods', '--subresource=log'], ['get', '/healthz'], ['list', 'secrets', '-n', 'kube-system', '--as=bob']]) {
      expect(await runKubectl(path!, ['auth', 'can-i', ...args], onAllow), args.join(' ')).toMatchObject({ code: 0, stdout: 'yes\n' });
    }
    // AlwaysDeny: system:masters still passes everything.
    const onDeny = ctx(deny, 'kubeconfig-deny');
    expect(await runKubectl(path!, ['auth', 'can-i', 'delete', 'nodes'], onDeny)).toMatchObject({ code: 0, stdout: 'yes\n' });
  });

  it.runIf(path)('auth can-i --list prints the rules SelfSubjectRulesReview lists', async () => {
    const all = await runKubectl(path!, ['auth', 'can-i', '--list'], ctx(allow, 'kubeconfig-allow'));
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.split('\n').map((l) => l.trim().split(/\s+/))).toEqual([
      ['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs'],
      ['*.*', '[]', '[]', '[*]'],
      ['[*]', '[]', '[*]'],
      [''],
    ]);
    const none = await runKubectl(path!, ['auth', 'can-i', '--list', '-n', 'kube-system'], ctx(deny, 'kubeconfig-deny'));
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout.trim().split(/\s+/)).toEqual(['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs']);
  });

  it.runIf(path)('auth reconcile -f creates, then leaves alone, then adds missing rules', async () => {
    const onAllow = ctx(allow, 'kubeconfig-allow');
    const first = await runKubectl(path!, ['auth', 'reconcile', '-f', '-'], onAllow, ROLES);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('role.rbac.authorization.k8s.io/reader reconciled');
    expect(first.stdout).toContain('rolebinding.rbac.authorization.k8s.io/reader reconciled');
    expect(first.stderr).toContain('reconciliation required create');
    const again = await runKubectl(path!, ['auth', 'reconcile', '-f', '-'], onAllow, ROLES);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('reconciliation required');
    const more = await runKubectl(path!, ['auth', 'reconcile', '-f', '-'], onAllow, ROLES.replace('[get, list]', '[get, list, watch]'));
    expect(more.code).toBe(0);
    expect(more.stderr).toContain('reconciliation required update');
    const role = await call(allow.url, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader', kubeconfigCredentials(allow.kubeconfig));
    expect(role.json<{ rules: unknown[] }>().rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['watch'] },
    ]);
  });
});

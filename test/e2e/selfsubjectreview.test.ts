// SelfSubjectReview end to end: a virtual kind. POST answers 201 with the caller's identity
// (admin certificate, token-file user), nothing is stored, only create is routed (GET on the
// collection 405, a named path 404), JSON/YAML/protobuf bodies work, and `kubectl auth whoami`
// of the oldest and newest supported kubectl prints the caller.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { decodeObject, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { kubectlVersions, runKubectl, writeKubeconfig } from '../support/kubectl.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const REVIEW = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const TOKEN = 'whoami-token-0123456789';

let server: RunningServer;
let dir: string;
let admin: Credentials;
let tokenUser: Credentials;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'e2e-ssr-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},jane,uid-jane,"developers,qa"\n`);
  server = await startServer({ port: 0, storage: 'memory', dataDir: join(dir, 'data'), tokenAuthFile: tokenFile });
  admin = kubeconfigCredentials(server.kubeconfig);
  tokenUser = { ca: admin.ca, token: TOKEN };
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const post = (creds: Credentials, body: string, contentType = 'application/json', query = '', accept = 'application/json') =>
  call(server.url, `${PATH}${query}`, creds, { method: 'POST', headers: { 'content-type': contentType, accept }, body });

describe('SelfSubjectReview over HTTPS', () => {
  it('answers 201 with the admin certificate user and only creationTimestamp in metadata', async () => {
    const before = Date.now() - 1000;
    const res = await post(admin, JSON.stringify({ ...REVIEW, metadata: { name: 'ignored', labels: { a: 'b' } }, status: { userInfo: { username: 'forged' } } }));
    expect(res.status).toBe(201);
    const body = res.json<{ metadata: Record<string, string>; status: unknown }>();
    expect(body).toEqual({
      ...REVIEW,
      metadata: { creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
      status: {
        userInfo: {
          username: 'admin',
          groups: ['system:masters', 'system:authenticated'],
          extra: { 'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^X509SHA256=[0-9a-f]{64}$/)] },
        },
      },
    });
    expect(Date.parse(body.metadata.creationTimestamp)).toBeGreaterThanOrEqual(before);
  });

  it('answers a token-file user with its uid and groups', async () => {
    const res = await post(tokenUser, JSON.stringify(REVIEW));
    expect(res.status).toBe(201);
    expect(res.json<{ status: unknown }>().status).toEqual({ userInfo: { username: 'jane', uid: 'uid-jane', groups: ['developers', 'qa', 'system:authenticated'] } });
  });

  it('accepts dryRun=All and an empty-typed body (the endpoint gives apiVersion and kind)', async () => {
    const dry = await post(admin, JSON.stringify(REVIEW), 'application/json', '?dryRun=All');
    expect(dry.status).toBe(201);
    const bare = await post(admin, '{}');
    expect(bare.status).toBe(201);
    expect(bare.json()).toMatchObject(REVIEW);
  });

  it('takes YAML and answers YAML', async () => {
    const res = await post(admin, 'apiVersion: authentication.k8s.io/v1\nkind: SelfSubjectReview\n', 'application/yaml', '', 'application/yaml');
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toContain('application/yaml');
    expect(parseYaml(res.body)).toMatchObject({ ...REVIEW, status: { userInfo: { username: 'admin' } } });
  });

  it('takes and answers protobuf', async () => {
    const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
    const names = messageNameResolver(root);
    const body = Buffer.from(encodeObject(root, 'k8s.io.api.authentication.v1.SelfSubjectReview', { ...REVIEW, metadata: {} }));
    const res = await new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
      void import('node:https').then(({ request }) => {
        const req = request(new URL(PATH, server.url), { method: 'POST', ca: admin.ca, cert: admin.cert, key: admin.key, agent: false, headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf' } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end(body);
      });
    });
    expect(res.status).toBe(201);
    const decoded = decodeObject(root, res.bytes, names).object as { status: unknown };
    expect(decoded).toMatchObject({ ...REVIEW, status: { userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] } } });
  });

  it('refuses a body of another kind with 400 and unknown fields under Strict with 400', async () => {
    const wrong = await post(admin, JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview' }));
    expect(wrong.status).toBe(400);
    expect(wrong.json()).toMatchObject({ reason: 'BadRequest', message: 'TokenReview in version "v1" cannot be handled as a SelfSubjectReview: no kind "TokenReview" is registered for version "authentication.k8s.io/v1"' });
    const strict = await post(admin, JSON.stringify({ ...REVIEW, spec: {} }), 'application/json', '?fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.json<{ message: string }>().message).toBe('SelfSubjectReview in version "v1" cannot be handled as a SelfSubjectReview: strict decoding error: unknown field "spec"');
    const garbage = await post(admin, '{not json');
    expect(garbage.status).toBe(400);
  });

  it('refuses wrongly typed fields with the decoder\'s 400 (the first one), but applies no ObjectMeta rules', async () => {
    const res = await post(admin, JSON.stringify({ ...REVIEW, metadata: 'x', status: { userInfo: { groups: 'g' } } }));
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({
      reason: 'BadRequest',
      message: 'SelfSubjectReview in version "v1" cannot be handled as a SelfSubjectReview: json: cannot unmarshal string into Go struct field SelfSubjectReview.metadata of type v1.ObjectMeta',
    });
    const groups = await post(admin, JSON.stringify({ ...REVIEW, status: { userInfo: { groups: 'g' } } }));
    expect(groups.json()).toMatchObject({
      reason: 'BadRequest',
      message: 'SelfSubjectReview in version "v1" cannot be handled as a SelfSubjectReview: json: cannot unmarshal string into Go struct field UserInfo.status.userInfo.groups of type []string',
    });
    // A name no DNS subdomain allows is of no concern: the posted metadata is dropped anyway.
    expect((await post(admin, JSON.stringify({ ...REVIEW, metadata: { name: 'Not A Name' } }))).status).toBe(201);
  });

  it('refuses a bad dryRun value with 422 as other creates do', async () => {
    const res = await post(admin, JSON.stringify(REVIEW), 'application/json', '?dryRun=Some');
    expect(res.status).toBe(422);
    expect(res.json()).toMatchObject({ reason: 'Invalid', details: { kind: 'CreateOptions' } });
  });

  it('routes only the collection POST: GET and DELETE there are 405, named paths 404', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await call(server.url, PATH, admin, { method });
      expect(res.status, method).toBe(405);
      expect(res.json(), method).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 });
    }
    for (const [method, path] of [['GET', `${PATH}/x`], ['PUT', `${PATH}/x`], ['POST', '/apis/authentication.k8s.io/v1/namespaces/default/selfsubjectreviews']]) {
      const res = await call(server.url, path, admin, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : JSON.stringify(REVIEW) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json(), `${method} ${path}`).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource' });
    }
  });

  it('shows in discovery with verbs [create] and no storageVersionHash, beside TokenReview', async () => {
    const res = await call(server.url, '/apis/authentication.k8s.io/v1', admin);
    expect(res.status).toBe(200);
    expect(res.json<{ resources: unknown[] }>().resources).toEqual([
      { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
      { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
    ]);
  });
});

// kube-apiserver 1.33 serves SelfSubjectReview only at v1 (authentication.k8s.io/v1beta1 and
// v1alpha1 are off by default). kubectl 1.33 posts to v1. kubectl 1.27 predates v1: it posts to
// v1beta1, then on 404 to v1alpha1, and on a second 404 reports the API as not enabled, which is
// what it reports against a default kube-apiserver 1.33 too.
describe('kubectl auth whoami', () => {
  const run = (bin: string, kubeconfig: string, args: string[]) => runKubectl(bin, args, { kubeconfig, home: dir });
  const kubeconfigs = () => {
    const adminPath = writeKubeconfig(dir, server.kubeconfig, 'kubeconfig-admin');
    const doc = parseYaml(server.kubeconfig) as { users: { user: Record<string, unknown> }[] };
    doc.users[0].user = { token: TOKEN };
    const janePath = writeKubeconfig(dir, JSON.stringify(doc), 'kubeconfig-jane');
    return { adminPath, janePath };
  };
  const versions = kubectlVersions();

  const v133 = versions.find((v) => v.version === '1.33')?.path;
  it.runIf(v133)('kubectl 1.33 prints the admin user and a token-file user', async () => {
    const { adminPath, janePath } = kubeconfigs();
    const mine = await run(v133!, adminPath, ['auth', 'whoami', '-o', 'json']);
    expect(mine.stderr).toBe('');
    expect(mine.code).toBe(0);
    expect(JSON.parse(mine.stdout)).toMatchObject({ ...REVIEW, status: { userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] } } });
    const table = await run(v133!, adminPath, ['auth', 'whoami']);
    expect(table.code).toBe(0);
    // kube 1.32+ names the client certificate in the credential-id extra, which kubectl prints as a row.
    expect(table.stdout).toMatch(
      /^ATTRIBUTE +VALUE\nUsername +admin\nGroups +\[system:masters system:authenticated\]\nExtra: authentication\.kubernetes\.io\/credential-id +\[X509SHA256=[0-9a-f]{64}\]\n$/,
    );
    const jane = await run(v133!, janePath, ['auth', 'whoami']);
    expect(jane.stderr).toBe('');
    expect(jane.stdout).toBe('ATTRIBUTE   VALUE\nUsername    jane\nUID         uid-jane\nGroups      [developers qa system:authenticated]\n');
  });

  const v127 = versions.find((v) => v.version === '1.27')?.path;
  it.runIf(v127)('kubectl 1.27 finds no v1beta1 or v1alpha1 and says so, as against kube-apiserver 1.33', async () => {
    const { adminPath } = kubeconfigs();
    const res = await run(v127!, adminPath, ['auth', 'whoami', '-v=6']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/POST https:\/\/[^ ]+\/apis\/authentication\.k8s\.io\/v1beta1\/selfsubjectreviews 404 Not Found/);
    expect(res.stderr).toMatch(/POST https:\/\/[^ ]+\/apis\/authentication\.k8s\.io\/v1alpha1\/selfsubjectreviews 404 Not Found/);
    expect(res.stderr).toContain('error: the selfsubjectreviews API is not enabled in the cluster\nenable APISelfSubjectReview feature gate and authentication.k8s.io/v1alpha1 or authentication.k8s.io/v1beta1 API');
  });
});

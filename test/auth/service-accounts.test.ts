// Service accounts end to end over HTTPS: the `default` account and kube-root-ca.crt in every
// namespace, TokenRequest (kubectl create token, the raw subresource, its 400/404/409/422s), the
// tokens authenticating (SelfSubjectReview, kubectl auth whoami, @kubernetes/client-node) until
// their account or bound pod is gone, the hostile token table (always 401, never 500, never
// logged), pod admission, legacy token Secrets and issuer discovery.

import { createHmac, createPublicKey, createSign, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_SIGNING_KEY_FILE } from '../../runtime/auth/service-account-keys.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { Logger } from '../../runtime/server/context.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { findKubectl, runKubectl, writeKubeconfig } from '../support/kubectl.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Obj = Record<string, any>;

function claimsOf(token: string): Obj {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}
function headerOf(token: string): Obj {
  return JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
}

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function tokenKubeconfig(server: RunningServer, token: string): string {
  const cluster = Buffer.from(server.caCert).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: c\n  cluster:\n    server: ${server.url}\n    certificate-authority-data: ${cluster}`,
    'users:',
    `- name: u\n  user:\n    token: ${token}`,
    'contexts:',
    '- name: x\n  context:\n    cluster: c\n    user: u',
    'current-context: x',
    '',
  ].join('\n');
}

describe('service accounts over HTTPS', () => {
  let server: RunningServer;
  let admin: Credentials;
  let dir: string;
  const logged: string[] = [];
  const capture = (m: string, ...a: unknown[]) => logged.push([m, ...a.map((x) => (x instanceof Error ? `${x.message}\n${x.stack}` : String(x)))].join(' '));
  const logger: Logger = { debug: capture, info: capture, error: capture };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sa-'));
    // No token cache: these tests watch a token die the moment what backs it goes
    // (test/auth/token-cache.test.ts covers the 10 s kube-apiserver keeps a success).
    server = await startServer({ storage: 'memory', dataDir: join(dir, 'data'), logger, tokenSuccessCacheTTLMs: 0 });
    admin = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, body?: unknown, creds: Credentials = admin) => {
    const res = await call(server.url, path, creds, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: res.status, body: res.body ? (JSON.parse(res.body) as Obj) : {}, headers: res.headers };
  };
  const whoami = (token: string) => send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { ca: server.caCert, token });
  const requestToken = (ns: string, name: string, spec: Obj = {}) =>
    send('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });

  /** Waits for a controller's object to show up. */
  async function eventually(path: string): Promise<Obj> {
    for (let i = 0; i < 100; i++) {
      const res = await send('GET', path);
      if (res.status === 200) return res.body;
      await sleep(50);
    }
    throw new Error(`${path} never appeared`);
  }

  async function namespace(name: string): Promise<void> {
    expect((await send('POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
    await eventually(`/api/v1/namespaces/${name}/serviceaccounts/default`);
  }

  describe('controllers', () => {
    it('gives every namespace, system ones included, a default service account and kube-root-ca.crt', async () => {
      await namespace('ctl');
      for (const ns of ['default', 'kube-system', 'kube-public', 'ctl']) {
        const sa = await eventually(`/api/v1/namespaces/${ns}/serviceaccounts/default`);
        expect(sa.metadata.name).toBe('default');
        const cm = await eventually(`/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
        expect(cm.data).toEqual({ 'ca.crt': server.caCert });
        expect(cm.metadata.annotations['kubernetes.io/description']).toMatch(/^Contains a CA bundle that can be used to verify the kube-apiserver/);
      }
    });

    it('puts back a deleted default account and a deleted root CA ConfigMap', async () => {
      const before = await eventually('/api/v1/namespaces/ctl/serviceaccounts/default');
      expect((await send('DELETE', '/api/v1/namespaces/ctl/serviceaccounts/default')).status).toBe(200);
      let after: Obj = {};
      for (let i = 0; i < 100; i++) {
        after = await eventually('/api/v1/namespaces/ctl/serviceaccounts/default');
        if (after.metadata.uid !== before.metadata.uid) break;
        await sleep(50);
      }
      expect(after.metadata.uid).not.toBe(before.metadata.uid);

      expect((await send('DELETE', '/api/v1/namespaces/ctl/configmaps/kube-root-ca.crt')).status).toBe(200);
      expect((await eventually('/api/v1/namespaces/ctl/configmaps/kube-root-ca.crt')).data).toEqual({ 'ca.crt': server.caCert });
    });
  });

  describe('TokenRequest', () => {
    beforeAll(() => namespace('tr'));

    it('issues a JWT with kube\'s claims and header, audiences and lifetime as asked', async () => {
      const sa = await eventually('/api/v1/namespaces/tr/serviceaccounts/default');
      const before = Math.floor(Date.now() / 1000);
      const res = await requestToken('tr', 'default', { audiences: ['x', 'y'], expirationSeconds: 7200 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name: 'default', namespace: 'tr' },
        spec: { audiences: ['x', 'y'], expirationSeconds: 7200 },
      });
      const token: string = res.body.status.token;
      const claims = claimsOf(token);
      expect(Object.keys(claims)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
      expect(claims).toMatchObject({
        aud: ['x', 'y'],
        iss: ISSUER,
        sub: 'system:serviceaccount:tr:default',
        'kubernetes.io': { namespace: 'tr', serviceaccount: { name: 'default', uid: sa.metadata.uid } },
      });
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(claims.nbf).toBe(claims.iat);
      expect(claims.exp).toBe(claims.iat + 7200);
      expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(res.body.status.expirationTimestamp) / 1000).toBe(claims.exp);
      // The key id is the base64url SHA-256 of the PKIX public key, as kube-apiserver names keys.
      const publicKey = createPublicKey(readFileSync(join(server.dataDir, GENERATED_SIGNING_KEY_FILE), 'utf8'));
      const { createHash } = await import('node:crypto');
      expect(headerOf(token)).toEqual({ alg: 'RS256', kid: createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url') });
    });

    it('defaults audiences to the server\'s and the lifetime to an hour', async () => {
      const res = await requestToken('tr', 'default');
      expect(res.body.spec).toEqual({ audiences: [ISSUER], expirationSeconds: 3600 });
      const claims = claimsOf(res.body.status.token);
      expect(claims.aud).toEqual([ISSUER]);
      expect(claims.exp - claims.iat).toBe(3600);
    });

    it('refuses lifetimes under ten minutes or over 2^32 seconds with kube\'s 422', async () => {
      const short = await requestToken('tr', 'default', { expirationSeconds: 599 });
      expect(short.status).toBe(422);
      expect(short.body).toMatchObject({
        reason: 'Invalid',
        message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
        details: { name: '', group: 'authentication.k8s.io', kind: 'TokenRequest', causes: [{ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds' }] },
      });
      const long = await requestToken('tr', 'default', { expirationSeconds: 2 ** 32 + 1 });
      expect(long.status).toBe(422);
      expect(long.body.message).toBe(`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: ${2 ** 32 + 1}: may not specify a duration larger than 2^32 seconds`);
      expect((await requestToken('tr', 'default', { expirationSeconds: 600 })).status).toBe(201);
    });

    it('answers kube\'s 404, 400, 409 and 422 for a missing account, bad bodies and bad bindings', async () => {
      const missing = await requestToken('tr', 'nobody');
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('serviceaccounts "nobody" not found');
      const wrongName = await send('POST', '/api/v1/namespaces/tr/serviceaccounts/default/token', { metadata: { name: 'other' }, spec: {} });
      expect(wrongName.status).toBe(422);
      expect(wrongName.body.message).toBe('TokenRequest.authentication.k8s.io "default" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified');
      const wrongType = await requestToken('tr', 'default', { expirationSeconds: 'long' });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.message).toMatch(/cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64/);
      const wrongKind = await send('POST', '/api/v1/namespaces/tr/serviceaccounts/default/token', { apiVersion: 'v1', kind: 'Pod' });
      expect(wrongKind.status).toBe(400);
      const boundToConfigMap = await requestToken('tr', 'default', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'kube-root-ca.crt' } });
      expect(boundToConfigMap.status).toBe(400);
      expect(boundToConfigMap.body.message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
      const noPod = await requestToken('tr', 'default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'ghost' } });
      expect(noPod.status).toBe(404);
      expect(noPod.body.message).toBe('pods "ghost" not found');
      const secret = await send('POST', '/api/v1/namespaces/tr/secrets', { metadata: { name: 's1' } });
      const wrongUid = await requestToken('tr', 'default', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's1', uid: 'not-it' } });
      expect(wrongUid.status).toBe(409);
      expect(wrongUid.body.message).toContain('the UID in the bound object reference (not-it) does not match the UID in record. The object might have been deleted and then recreated');
      const bound = await requestToken('tr', 'default', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's1', uid: secret.body.metadata.uid } });
      expect(bound.status).toBe(201);
      expect(claimsOf(bound.body.status.token)['kubernetes.io'].secret).toEqual({ name: 's1', uid: secret.body.metadata.uid });
    });

    it('binds to a pod running as the account, naming its node, and refuses a pod of another account', async () => {
      // Nodes are not served here: the pod's node is named without a uid, as kube names a missing one.
      const pod = await send('POST', '/api/v1/namespaces/tr/pods', { metadata: { name: 'p1' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } });
      expect(pod.status).toBe(201);
      const res = await requestToken('tr', 'default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1' } });
      expect(res.status).toBe(201);
      const kube = claimsOf(res.body.status.token)['kubernetes.io'];
      expect(Object.keys(kube)).toEqual(['namespace', 'node', 'pod', 'serviceaccount']);
      expect(kube.pod).toEqual({ name: 'p1', uid: pod.body.metadata.uid });
      expect(kube.node).toEqual({ name: 'n1' });
      const review = await whoami(res.body.status.token);
      expect(review.body.status.userInfo.extra).toEqual({
        'authentication.kubernetes.io/credential-id': [`JTI=${claimsOf(res.body.status.token).jti}`],
        'authentication.kubernetes.io/node-name': ['n1'],
        'authentication.kubernetes.io/pod-name': ['p1'],
        'authentication.kubernetes.io/pod-uid': [pod.body.metadata.uid],
      });
      await send('POST', '/api/v1/namespaces/tr/serviceaccounts', { metadata: { name: 'other' } });
      const wrong = await requestToken('tr', 'other', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toBe('cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.');
      // kubelet's 3607 s pod tokens last a year, with warnafter at the requested hour and the status saying 3607 s.
      const extended = await requestToken('tr', 'default', { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1' } });
      const long = claimsOf(extended.body.status.token);
      expect(long.exp - long.iat).toBe(365 * 24 * 3600);
      expect(long['kubernetes.io'].warnafter).toBe(long.iat + 3607);
      expect(Date.parse(extended.body.status.expirationTimestamp) / 1000).toBe(long.iat + 3607);
      const notKube = claimsOf((await requestToken('tr', 'default', { audiences: ['x'], expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1' } })).body.status.token);
      expect(notKube.exp - notKube.iat).toBe(3607);
      const toNode = await requestToken('tr', 'default', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } });
      expect(toNode.status).toBe(404);
      expect(toNode.body.message).toBe('nodes "n1" not found');
    });
  });

  describe('authentication with service account tokens', () => {
    beforeAll(() => namespace('authn'));

    it('authenticates as the account, in its groups, until the account is deleted', async () => {
      const sa = await send('POST', '/api/v1/namespaces/authn/serviceaccounts', { metadata: { name: 'robot' } });
      const token = (await requestToken('authn', 'robot')).body.status.token;
      const review = await whoami(token);
      expect(review.status).toBe(201);
      expect(review.body.status.userInfo).toEqual({
        username: 'system:serviceaccount:authn:robot',
        uid: sa.body.metadata.uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:authn', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claimsOf(token).jti}`] },
      });
      expect((await send('DELETE', '/api/v1/namespaces/authn/serviceaccounts/robot')).status).toBe(200);
      expect((await whoami(token)).status).toBe(401);
      // A new account of the same name is another account: the old token stays dead.
      await send('POST', '/api/v1/namespaces/authn/serviceaccounts', { metadata: { name: 'robot' } });
      expect((await whoami(token)).status).toBe(401);
    });

    it('lets a pod-bound token die with its pod', async () => {
      await send('POST', '/api/v1/namespaces/authn/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
      const token = (await requestToken('authn', 'default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } })).body.status.token;
      expect((await whoami(token)).status).toBe(201);
      expect((await send('DELETE', '/api/v1/namespaces/authn/pods/p?gracePeriodSeconds=0')).status).toBe(200);
      expect((await whoami(token)).status).toBe(401);
    });

    it('refuses a token meant for another audience', async () => {
      const token = (await requestToken('authn', 'default', { audiences: ['vault'] })).body.status.token;
      expect((await whoami(token)).status).toBe(401);
    });

    it('works from kubectl 1.33 create token and auth whoami', async () => {
      const kubectl = findKubectl('1.33');
      if (!kubectl) {
        if (process.env.REQUIRE_KUBECTL === '1') throw new Error('kubectl 1.33 not found');
        console.warn('skipping kubectl create token: kubectl 1.33 not found');
        return;
      }
      const admin = { kubeconfig: writeKubeconfig(dir, server.kubeconfig, 'admin'), home: dir };
      const created = await runKubectl(kubectl, ['create', 'token', 'default', '-n', 'authn', '--audience', ISSUER, '--audience', 'x', '--duration', '1h'], admin);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const token = created.stdout.trim();
      const claims = claimsOf(token);
      expect(claims.aud).toEqual([ISSUER, 'x']);
      expect(claims.exp - claims.iat).toBe(3600);
      const asToken = { kubeconfig: writeKubeconfig(dir, tokenKubeconfig(server, token), 'sa'), home: dir };
      const who = await runKubectl(kubectl, ['auth', 'whoami', '-o', 'json'], asToken);
      expect(who.code).toBe(0);
      expect(JSON.parse(who.stdout).status.userInfo.username).toBe('system:serviceaccount:authn:default');
    });

    it('works from @kubernetes/client-node with a token kubeconfig', async () => {
      const token = (await requestToken('authn', 'default')).body.status.token;
      const config = new k8s.KubeConfig();
      config.loadFromString(tokenKubeconfig(server, token));
      const review = await config.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
      expect(review.status?.userInfo?.username).toBe('system:serviceaccount:authn:default');
    });
  });

  describe('hostile tokens', () => {
    let good: string;
    let privatePem: string;
    beforeAll(async () => {
      await namespace('hostile');
      good = (await requestToken('hostile', 'default')).body.status.token;
      privatePem = readFileSync(join(server.dataDir, GENERATED_SIGNING_KEY_FILE), 'utf8');
    });

    const rs256 = (header: Obj, claims: Obj, pem = privatePem) => {
      const input = `${b64url(header)}.${b64url(claims)}`;
      return `${input}.${createSign('RSA-SHA256').update(input).sign(pem).toString('base64url')}`;
    };

    it('answers every forged, expired, early, misdirected or oversized token with 401, never a 500, and never logs one', async () => {
      const claims = claimsOf(good);
      const header = headerOf(good);
      const now = Math.floor(Date.now() / 1000);
      const publicPem = createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }).toString();
      const hs256Input = `${b64url({ alg: 'HS256', kid: header.kid })}.${b64url(claims)}`;
      const { privateKey: otherKey } = (await import('node:crypto')).generateKeyPairSync('rsa', { modulusLength: 2048 });
      const [h, p, s] = good.split('.');
      const table: Record<string, string> = {
        'the good token': good,
        malformed: 'not.a.jwt',
        'two parts': `${h}.${p}`,
        'unsigned (alg none)': `${b64url({ alg: 'none' })}.${p}.`,
        'HS256 keyed with the public key': `${hs256Input}.${createHmac('sha256', publicPem).update(hs256Input).digest('base64url')}`,
        'wrong signature': `${h}.${p}.${Buffer.from(s, 'base64url').reverse().toString('base64url')}`,
        'signed by another key': rs256(header, claims, otherKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
        'tampered payload': `${h}.${b64url({ ...claims, sub: 'system:serviceaccount:kube-system:admin' })}.${s}`,
        expired: rs256(header, { ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 }),
        'not yet valid': rs256(header, { ...claims, nbf: now + 3600, exp: now + 7200 }),
        'issued in the future': rs256(header, { ...claims, iat: now + 3600, exp: now + 7200 }),
        'wrong audience': rs256(header, { ...claims, aud: ['someone-else'] }),
        'wrong issuer': rs256(header, { ...claims, iss: 'https://evil.example' }),
        'claims not an object': rs256(header, ['a'] as unknown as Obj),
        'no kubernetes.io claim': rs256(header, { ...claims, 'kubernetes.io': undefined }),
        'unknown account uid': rs256(header, { ...claims, 'kubernetes.io': { ...claims['kubernetes.io'], serviceaccount: { name: 'default', uid: 'x' } } }),
        'garbage base64': `${h}.@@@@.${s}`,
        '64 KiB token': `${h}.${'A'.repeat(64 * 1024)}.${s}`,
      };
      for (const [name, token] of Object.entries(table)) {
        const res = await whoami(token);
        if (name === 'the good token') {
          expect(res.status, name).toBe(201);
          continue;
        }
        expect(res.status, name).toBe(401);
        expect(res.body, name).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      }
      // The server still answers, and nothing it logged holds a token, a signature or the key.
      expect((await send('GET', '/api/v1/namespaces/hostile/serviceaccounts/default')).status).toBe(200);
      const log = logged.join('\n');
      for (const token of Object.values(table)) expect(log).not.toContain(token.split('.').pop()!.slice(0, 40) || '\u0000');
      expect(log).not.toContain(p);
      expect(log).not.toContain('PRIVATE KEY');
    });

    it('answers a 512 KiB token with 401 and a 1 MiB one with Go\'s 431, and keeps serving', async () => {
      const post = (token: string) =>
        call(server.url, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ca: server.caCert, token }, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      const half = await post(`${'a'.repeat(512 * 1024)}.${'b'.repeat(10)}.c`);
      expect(half.status).toBe(401);
      expect(half.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      expect((await post('a'.repeat(1 << 20))).status).toBe(431);
      expect((await send('GET', '/api/v1/namespaces/hostile/serviceaccounts/default')).status).toBe(200);
    });
  });

  describe('ServiceAccount admission', () => {
    beforeAll(() => namespace('adm'));

    it('gives a pod the default account and the kube-api-access projected volume, mounted in every container', async () => {
      const res = await send('POST', '/api/v1/namespaces/adm/pods', {
        metadata: { name: 'p' },
        spec: { initContainers: [{ name: 'i', image: 'i' }], containers: [{ name: 'c', image: 'i' }, { name: 'd', image: 'i', volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }], volumes: [{ name: 'own', emptyDir: {} }] },
      });
      expect(res.status).toBe(201);
      const spec = res.body.spec;
      expect(spec.serviceAccountName).toBe('default');
      expect(spec.serviceAccount).toBe('default');
      const volume = spec.volumes.find((v: Obj) => v.name.startsWith('kube-api-access-'));
      expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(volume.projected).toEqual({
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
        defaultMode: 420,
      });
      const mount = { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
      expect(spec.initContainers[0].volumeMounts).toEqual([mount]);
      expect(spec.containers[0].volumeMounts).toEqual([mount]);
      // A container with its own mount at the token path keeps it.
      expect(spec.containers[1].volumeMounts).toEqual([{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    });

    it('mounts nothing when the pod or its account turns automounting off, and takes the account\'s pull secrets', async () => {
      const off = await send('POST', '/api/v1/namespaces/adm/pods', { metadata: { name: 'off' }, spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i' }] } });
      expect(off.status).toBe(201);
      expect(off.body.spec.volumes).toBeUndefined();
      expect(off.body.spec.containers[0].volumeMounts).toBeUndefined();
      await send('POST', '/api/v1/namespaces/adm/serviceaccounts', { metadata: { name: 'quiet' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'reg' }] });
      const quiet = await send('POST', '/api/v1/namespaces/adm/pods', { metadata: { name: 'quiet' }, spec: { serviceAccountName: 'quiet', containers: [{ name: 'c', image: 'i' }] } });
      expect(quiet.status).toBe(201);
      expect(quiet.body.spec.volumes).toBeUndefined();
      expect(quiet.body.spec.imagePullSecrets).toEqual([{ name: 'reg' }]);
      // The pod's own true wins over the account's false.
      const on = await send('POST', '/api/v1/namespaces/adm/pods', { metadata: { name: 'on' }, spec: { serviceAccountName: 'quiet', automountServiceAccountToken: true, containers: [{ name: 'c', image: 'i' }] } });
      expect(on.body.spec.volumes).toHaveLength(1);
    });

    it('refuses a pod whose service account does not exist with kube\'s 403, storing nothing', async () => {
      const res = await send('POST', '/api/v1/namespaces/adm/pods', { metadata: { name: 'lost' }, spec: { serviceAccountName: 'nobody', containers: [{ name: 'c', image: 'i' }] } });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('pods "lost" is forbidden: error looking up service account adm/nobody: serviceaccount "nobody" not found');
      expect((await send('GET', '/api/v1/namespaces/adm/pods/lost')).status).toBe(404);
    });
  });

  describe('legacy token Secrets', () => {
    beforeAll(() => namespace('legacy'));

    it('fills in token, ca.crt and namespace; the token authenticates until the Secret or account goes', async () => {
      const sa = await send('POST', '/api/v1/namespaces/legacy/serviceaccounts', { metadata: { name: 'old' } });
      await send('POST', '/api/v1/namespaces/legacy/secrets', {
        metadata: { name: 'old-token', annotations: { 'kubernetes.io/service-account.name': 'old' } },
        type: 'kubernetes.io/service-account-token',
      });
      let secret: Obj = {};
      for (let i = 0; i < 100 && !secret.data?.token; i++) {
        await sleep(50);
        secret = (await send('GET', '/api/v1/namespaces/legacy/secrets/old-token')).body;
      }
      const data = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
      expect(data['ca.crt']).toBe(server.caCert);
      expect(data.namespace).toBe('legacy');
      expect(secret.metadata.annotations['kubernetes.io/service-account.uid']).toBe(sa.body.metadata.uid);
      expect(claimsOf(data.token)).toEqual({
        iss: 'kubernetes/serviceaccount',
        'kubernetes.io/serviceaccount/namespace': 'legacy',
        'kubernetes.io/serviceaccount/secret.name': 'old-token',
        'kubernetes.io/serviceaccount/service-account.name': 'old',
        'kubernetes.io/serviceaccount/service-account.uid': sa.body.metadata.uid,
        sub: 'system:serviceaccount:legacy:old',
      });
      const review = await whoami(data.token);
      expect(review.status).toBe(201);
      expect(review.body.status.userInfo.username).toBe('system:serviceaccount:legacy:old');

      // Deleting the account deletes its token Secret, and the token with it.
      expect((await send('DELETE', '/api/v1/namespaces/legacy/serviceaccounts/old')).status).toBe(200);
      let status = 200;
      for (let i = 0; i < 100 && status === 200; i++) {
        await sleep(50);
        status = (await send('GET', '/api/v1/namespaces/legacy/secrets/old-token')).status;
      }
      expect(status).toBe(404);
      expect((await whoami(data.token)).status).toBe(401);
    });
  });

  describe('issuer discovery', () => {
    it('serves the OpenID configuration and the JWK set as kube-apiserver does', async () => {
      const config = await call(server.url, '/.well-known/openid-configuration', admin);
      expect(config.status).toBe(200);
      expect(config.headers['content-type']).toBe('application/json');
      expect(config.headers['cache-control']).toBe('public, max-age=3600');
      expect(config.body).toBe(
        JSON.stringify({
          issuer: ISSUER,
          jwks_uri: `${server.url}/openid/v1/jwks`,
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
      const jwks = await call(server.url, '/openid/v1/jwks', admin);
      expect(jwks.headers['content-type']).toBe('application/jwk-set+json');
      const keys = jwks.json<{ keys: Obj[] }>().keys;
      expect(keys).toHaveLength(1);
      expect(Object.keys(keys[0])).toEqual(['use', 'kty', 'kid', 'alg', 'n', 'e']);
      expect(keys[0]).toMatchObject({ use: 'sig', kty: 'RSA', alg: 'RS256', e: 'AQAB' });
      const token = (await requestToken('default', 'default')).body.status.token;
      expect(keys[0].kid).toBe(headerOf(token).kid);
      // The published key verifies the token.
      const { jwtVerify, importJWK } = await import('jose');
      await expect(jwtVerify(token, await importJWK(keys[0], 'RS256'), { issuer: ISSUER })).resolves.toBeTruthy();
    });

    it('keeps them behind authentication', async () => {
      expect((await call(server.url, '/openid/v1/jwks', { ca: server.caCert })).status).toBe(401);
    });
  });
});

describe('service account flags', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sa-flags-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('signs with --service-account-signing-key-file, verifies with --service-account-key-file, writes --service-account-issuer, shortens to the max expiration', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    const server = await startServer({
      storage: 'memory',
      serviceAccountSigningKeyFile: join(dir, 'sa.key'),
      serviceAccountKeyFiles: [join(dir, 'sa.pub')],
      serviceAccountIssuers: ['https://issuer.example', 'https://old.example'],
      apiAudiences: ['api'],
      serviceAccountMaxTokenExpirationMs: 2 * 3600_000,
      // Authentication is what is tested: service account users are allowed everything here.
      authorizationMode: 'AlwaysAllow',
    });
    try {
      const admin = kubeconfigCredentials(server.kubeconfig);
      let res = await call(server.url, '/api/v1/namespaces/default/serviceaccounts/default', admin);
      for (let i = 0; i < 100 && res.status !== 200; i++) {
        await sleep(50);
        res = await call(server.url, '/api/v1/namespaces/default/serviceaccounts/default', admin);
      }
      const issued = await call(server.url, '/api/v1/namespaces/default/serviceaccounts/default/token', admin, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ spec: { expirationSeconds: 86400 } }),
      });
      expect(issued.status).toBe(201);
      expect(issued.headers.warning).toBe('299 - "requested expiration of 86400 seconds shortened to 7200 seconds"');
      const body = issued.json<Obj>();
      expect(body.spec).toEqual({ audiences: ['api'], expirationSeconds: 7200 });
      const token: string = body.status.token;
      expect(headerOf(token).alg).toBe('ES256');
      expect(claimsOf(token)).toMatchObject({ iss: 'https://issuer.example', aud: ['api'] });
      const review = await call(server.url, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ca: server.caCert, token }, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
      });
      expect(review.status).toBe(201);
      // A token of the second issuer is accepted too; one of an unknown issuer is not.
      const { SignJWT } = await import('jose');
      const claims = claimsOf(token);
      const sign = (iss: string) => new SignJWT({ ...claims, iss }).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
      const asOld = await call(server.url, '/api/v1/namespaces/default/serviceaccounts/default', { ca: server.caCert, token: await sign('https://old.example') });
      expect(asOld.status).toBe(200);
      const asOther = await call(server.url, '/api/v1/namespaces/default/serviceaccounts/default', { ca: server.caCert, token: await sign('https://other.example') });
      expect(asOther.status).toBe(401);
      expect(new X509Certificate(server.caCert).ca).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('refuses a max expiration under an hour as kube-apiserver does', async () => {
    await expect(startServer({ storage: 'memory', serviceAccountMaxTokenExpirationMs: 60_000 })).rejects.toThrow('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  });
});

describe('--service-account-jwks-uri and --service-account-extend-token-expiration=false', () => {
  it('publish the given jwks_uri and keep kubelet\'s 3607 s pod tokens at 3607 s', async () => {
    const server = await startServer({ storage: 'memory', serviceAccountJwksUri: 'https://keys.example/jwks', serviceAccountExtendTokenExpiration: false });
    try {
      const admin = kubeconfigCredentials(server.kubeconfig);
      const config = await call(server.url, '/.well-known/openid-configuration', admin);
      expect(config.json<Obj>().jwks_uri).toBe('https://keys.example/jwks');
      const post = (path: string, body: unknown) =>
        call(server.url, path, admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      // The pod's service account comes from the controller: wait for it.
      let account = await call(server.url, '/api/v1/namespaces/default/serviceaccounts/default', admin);
      for (let i = 0; i < 100 && account.status !== 200; i++) {
        await sleep(50);
        account = await call(server.url, '/api/v1/namespaces/default/serviceaccounts/default', admin);
      }
      expect((await post('/api/v1/namespaces/default/pods', { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })).status).toBe(201);
      const issued = await post('/api/v1/namespaces/default/serviceaccounts/default/token', {
        spec: { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1' } },
      });
      expect(issued.status).toBe(201);
      const claims = claimsOf(issued.json<Obj>().status.token);
      expect(claims.exp - claims.iat).toBe(3607);
      expect(claims['kubernetes.io'].warnafter).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

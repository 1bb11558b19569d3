import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnonymousAuthenticator } from '../../runtime/auth/anonymous.js';
import { authenticatedGroupAdder, failOnErrorAuthenticator, unionAuthenticator, type Authenticator, type AuthenticationRequest } from '../../runtime/auth/authenticator.js';
import { BearerTokenAuthenticator } from '../../runtime/auth/bearer-token.js';
import { parseCsv } from '../../runtime/auth/csv.js';
import { createCertificateAuthority, issueCertificate, type KeyedCert } from '../../runtime/auth/pki.js';
import { StaticTokenAuthenticator } from '../../runtime/auth/token-file.js';
import { verifyClientChain } from '../../runtime/auth/x509.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const req = (headers: Record<string, string> = {}, path = '/api/v1/namespaces'): AuthenticationRequest => ({
  header: (n) => headers[n],
  path,
});

describe('token file', () => {
  it('reads CSV with quoted group lists as Go encoding/csv does', () => {
    expect(parseCsv('a,b,c\n"x,y",z,"q""uote"\r\n\nlast,row,1,"g1,g2"')).toEqual([
      ['a', 'b', 'c'],
      ['x,y', 'z', 'q"uote'],
      ['last', 'row', '1', 'g1,g2'],
    ]);
    expect(() => parseCsv('a,b"c,d')).toThrow(/bare " in non-quoted-field/);
    expect(() => parseCsv('"a,b')).toThrow(/extraneous or missing "/);
  });

  it('maps tokens to users, uids and groups; skips empty tokens; rejects short rows', () => {
    const auth = StaticTokenAuthenticator.fromCsv('t1,alice,uid-1,"dev,ops"\nt2,bob,uid-2\n,nobody,0\n', 'tokens.csv');
    expect(auth.authenticateToken('t1')).toEqual({ name: 'alice', uid: 'uid-1', groups: ['dev', 'ops'], extra: {} });
    expect(auth.authenticateToken('t2')).toEqual({ name: 'bob', uid: 'uid-2', groups: [], extra: {} });
    expect(auth.authenticateToken('')).toBeUndefined();
    expect(auth.authenticateToken('t3')).toBeUndefined();
    expect(() => StaticTokenAuthenticator.fromCsv('t1,alice\n', 'tokens.csv')).toThrow(
      "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
  });
});

describe('authenticator chain', () => {
  const tokens = new BearerTokenAuthenticator([StaticTokenAuthenticator.fromCsv('good,alice,1,dev\n', 't')]);
  const chain: Authenticator = failOnErrorAuthenticator(
    authenticatedGroupAdder(unionAuthenticator([tokens])),
    new AnonymousAuthenticator(),
  );

  it('accepts a known bearer token and adds system:authenticated', async () => {
    const r = await chain.authenticate(req({ authorization: 'Bearer good' }));
    expect(r).toMatchObject({ kind: 'user', user: { name: 'alice', uid: '1', groups: ['dev', 'system:authenticated'] } });
  });

  it('rejects an unknown bearer token rather than falling back to anonymous', async () => {
    expect(await chain.authenticate(req({ authorization: 'Bearer bad' }))).toEqual({ kind: 'error', error: 'invalid bearer token' });
    expect((await chain.authenticate(req({ authorization: 'Bearer bad' }, '/healthz'))).kind).toBe('error');
  });

  it('sees no credential in other schemes or an empty token', async () => {
    for (const h of ['Basic abc', 'Bearer', 'Bearer  good', 'bearer']) {
      expect((await tokens.authenticate(req({ authorization: h }))).kind).toBe('none');
    }
    expect((await chain.authenticate(req({ authorization: 'bearer good' }))).kind).toBe('user');
  });

  it('lets anonymous in without credentials, without system:authenticated', async () => {
    expect(await chain.authenticate(req({}, '/healthz'))).toMatchObject({
      kind: 'user',
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    });
  });

  it('takes the first acceptance and passes over earlier rejections', async () => {
    const reject: Authenticator = { name: 'r', authenticate: () => ({ kind: 'error', error: 'nope' }) };
    const accept: Authenticator = { name: 'a', authenticate: () => ({ kind: 'user', authenticator: 'a', user: { name: 'u', uid: '', groups: [], extra: {} } }) };
    expect((await unionAuthenticator([reject, accept]).authenticate(req())).kind).toBe('user');
    // Go's aggregate: repeats dropped, several distinct messages in brackets.
    expect(await unionAuthenticator([reject, reject]).authenticate(req())).toEqual({ kind: 'error', error: 'nope' });
    const other: Authenticator = { name: 'o', authenticate: () => ({ kind: 'error', error: 'other' }) };
    expect(await unionAuthenticator([reject, other]).authenticate(req())).toEqual({ kind: 'error', error: '[nope, other]' });
  });
});

describe('client certificate chains', () => {
  let ca: KeyedCert;
  let roots: X509Certificate[];
  beforeAll(async () => {
    ca = await createCertificateAuthority('test-ca');
    roots = [new X509Certificate(ca.certPem)];
  });

  it('accepts a client certificate from the CA, and one without extended key usage', async () => {
    const ok = await issueCertificate(ca, { subject: 'CN=a', usage: 'clientAuth' });
    const noEku = await issueCertificate(ca, { subject: 'CN=a', usage: 'none' });
    expect(verifyClientChain(new X509Certificate(ok.certPem), [], roots)).toBeUndefined();
    expect(verifyClientChain(new X509Certificate(noEku.certPem), [], roots)).toBeUndefined();
  });

  it('rejects serverAuth-only, expired, not-yet-valid and foreign certificates', async () => {
    const server = await issueCertificate(ca, { subject: 'CN=a', usage: 'serverAuth' });
    const expired = await issueCertificate(ca, { subject: 'CN=a', usage: 'clientAuth', notBefore: new Date(Date.now() - 10 * 86400e3), notAfter: new Date(Date.now() - 86400e3) });
    const future = await issueCertificate(ca, { subject: 'CN=a', usage: 'clientAuth', notBefore: new Date(Date.now() + 86400e3), notAfter: new Date(Date.now() + 10 * 86400e3) });
    const foreign = await issueCertificate(await createCertificateAuthority('other'), { subject: 'CN=a', usage: 'clientAuth' });
    expect(verifyClientChain(new X509Certificate(server.certPem), [], roots)).toMatch(/incompatible key usage/);
    expect(verifyClientChain(new X509Certificate(expired.certPem), [], roots)).toMatch(/expired or is not yet valid/);
    expect(verifyClientChain(new X509Certificate(future.certPem), [], roots)).toMatch(/expired or is not yet valid/);
    expect(verifyClientChain(new X509Certificate(foreign.certPem), [], roots)).toMatch(/unknown authority/);
  });
});

describe('authentication over HTTPS', () => {
  let server: RunningServer;
  let dir: string;
  let admin: Credentials;
  let foreignCa: KeyedCert;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authn-'));
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,uid-alice,"dev,ops"\nbob-token,bob,uid-bob\n');
    server = await startServer({
      storage: 'memory',
      tokenAuthFile: join(dir, 'tokens.csv'),
      // This stub API has no RBAC to offer; authentication is what is tested here.
      authorizationMode: 'AlwaysAllow',
      // An API that answers with the caller, as SelfSubjectReview will.
      api: () => ({ handler: (c) => c.json(c.get('user')) }),
    });
    admin = kubeconfigCredentials(server.kubeconfig);
    foreignCa = await createCertificateAuthority('foreign');
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ca = () => server.caCert;
  const whoami = (creds: Credentials) => call(server.url, '/api/v1/namespaces', creds);

  it('takes user and groups from the admin client certificate', async () => {
    const res = await whoami(admin);
    expect(res.status).toBe(200);
    const fingerprint = createHash('sha256').update(new X509Certificate(admin.cert!).raw).digest('hex');
    expect(res.json()).toEqual({
      name: 'admin',
      uid: '',
      groups: ['system:masters', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${fingerprint}`] },
    });
  });

  it('takes repeated O values as groups', async () => {
    const pkiDir = server.dataDir;
    const { readFileSync } = await import('node:fs');
    const ownCa = { certPem: readFileSync(join(pkiDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pkiDir, 'ca.key'), 'utf8') };
    const cert = await issueCertificate(ownCa, { subject: 'CN=jane, O=team-a, O=team-b', usage: 'clientAuth' });
    const res = await whoami({ ca: ca(), cert: cert.certPem, key: cert.keyPem });
    expect(res.json()).toMatchObject({ name: 'jane', uid: '', groups: ['team-a', 'team-b', 'system:authenticated'] });
    expect(res.json<{ extra: Record<string, string[]> }>().extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^X509SHA256=[0-9a-f]{64}$/);
  });

  it('takes user, uid and groups from the token file', async () => {
    const res = await whoami({ ca: ca(), token: 'alice-token' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ name: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'], extra: {} });
    expect((await whoami({ ca: ca(), token: 'bob-token' })).json()).toMatchObject({ name: 'bob', groups: ['system:authenticated'] });
  });

  const unauthorizedStatus = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

  it('answers 401 Unauthorized to an unknown token', async () => {
    const res = await whoami({ ca: ca(), token: 'nope' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual(unauthorizedStatus);
  });

  it('answers 401 without any credential', async () => {
    const res = await whoami({ ca: ca() });
    expect(res.status).toBe(401);
    expect(res.json()).toEqual(unauthorizedStatus);
  });

  it('answers 401 to a certificate from another CA', async () => {
    const cert = await issueCertificate(foreignCa, { subject: 'CN=admin, O=system:masters', usage: 'clientAuth' });
    expect((await whoami({ ca: ca(), cert: cert.certPem, key: cert.keyPem })).status).toBe(401);
  });

  it('lets a valid certificate win over a bad token, as kube-apiserver tries certificates first', async () => {
    const res = await whoami({ ...admin, token: 'nope' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ name: 'admin' });
  });

  it('lets a valid token through beside an untrusted certificate', async () => {
    const cert = await issueCertificate(foreignCa, { subject: 'CN=mallory', usage: 'clientAuth' });
    const res = await whoami({ ca: ca(), cert: cert.certPem, key: cert.keyPem, token: 'alice-token' });
    expect(res.json()).toMatchObject({ name: 'alice' });
  });

  it('keeps every path behind authentication with --anonymous-auth off, health and version included, as kube-apiserver does', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version', '/api', '/apis', '/openapi/v2', '/healthz/ping', '/metrics', '/.well-known/openid-configuration']) {
      expect((await call(server.url, path, { ca: ca() })).status, path).toBe(401);
    }
  });

  it('rejects a bad token on a public path too', async () => {
    expect((await call(server.url, '/healthz', { ca: ca(), token: 'nope' })).status).toBe(401);
  });
});

// Audiences through the bearer-token authenticator, as kube-apiserver combines them: token-file
// (audience-agnostic) tokens are good for the API audiences only; an audience-aware authenticator
// (what service account tokens are) is asked with the request's audiences, or the API audiences.
describe('bearer token audiences', () => {
  const tokens = StaticTokenAuthenticator.fromCsv('tok,alice,uid-a\n', 'tokens.csv');
  const withAudiences = (audiences: string[] | undefined): AuthenticationRequest => ({ ...req({ authorization: 'Bearer tok' }), ...(audiences ? { audiences } : {}) });
  const alice = { name: 'alice', uid: 'uid-a', groups: [], extra: {} };

  it.each([
    ['no API audiences, none asked', [], undefined, { kind: 'user', user: alice, authenticator: 'bearer-token' }],
    ['API audiences, none asked', ['api'], undefined, { kind: 'user', user: alice, authenticator: 'bearer-token', audiences: ['api'] }],
    ['asked for an API audience among others', ['api', 'api2'], ['other', 'api2'], { kind: 'user', user: alice, authenticator: 'bearer-token', audiences: ['api2'] }],
    ['asked only for others', ['api'], ['other'], { kind: 'error', error: 'invalid bearer token' }],
    ['asked, with no API audiences', [], ['api'], { kind: 'error', error: 'invalid bearer token' }],
  ])('audience-agnostic tokens: %s', async (_name, apiAudiences, asked, expected) => {
    expect(await new BearerTokenAuthenticator([tokens], apiAudiences).authenticate(withAudiences(asked))).toEqual(expected);
  });

  it('asks an audience-aware authenticator with the request audiences, else the API audiences', async () => {
    const seen: (string[] | undefined)[] = [];
    const aware = {
      audienceAware: true,
      authenticateToken: (_token: string, audiences?: string[]) => {
        seen.push(audiences);
        return audiences?.includes('sts') ? { user: alice, audiences: ['sts'] } : undefined;
      },
    };
    const bearer = new BearerTokenAuthenticator([aware], ['api']);
    expect(await bearer.authenticate(withAudiences(['sts']))).toEqual({ kind: 'user', user: alice, authenticator: 'bearer-token', audiences: ['sts'] });
    expect(await bearer.authenticate(withAudiences(undefined))).toEqual({ kind: 'error', error: 'invalid bearer token' });
    expect(seen).toEqual([['sts'], ['api']]);
  });
});

// A token the token file knows is answered from the file's table, without the cache's digest; the
// answer is the one the cached union gives, whatever the cache's TTLs, and the table stays as read.
describe('token file answers', () => {
  const alice = { name: 'alice', uid: 'uid-a', groups: ['dev'], extra: {} };

  it.each([
    ['cache on', { successMs: 10_000, failureMs: 0 }],
    ['cache off', { successMs: 0, failureMs: 0 }],
  ])('answers a token-file user the same with the %s, every time', async (_name, ttls) => {
    const bearer = new BearerTokenAuthenticator([StaticTokenAuthenticator.fromCsv('tok,alice,uid-a,dev\n', 't')], ['api'], ttls);
    for (let i = 0; i < 3; i++) {
      expect(await bearer.authenticate(req({ authorization: 'Bearer tok' }))).toEqual({ kind: 'user', user: alice, authenticator: 'bearer-token', audiences: ['api'] });
    }
  });

  it('keeps the table as read when a caller changes the user it was given', async () => {
    const file = StaticTokenAuthenticator.fromCsv('tok,alice,uid-a,dev\n', 't');
    const bearer = new BearerTokenAuthenticator([file]);
    const given = await bearer.authenticate(req({ authorization: 'Bearer tok' }));
    if (given.kind !== 'user') throw new Error('expected a user');
    given.user.groups.push('system:masters');
    given.user.extra.scopes = ['all'];
    expect(file.authenticateToken('tok')).toEqual(alice);
    expect(file.known('tok')).toEqual(alice);
  });

  it('refuses near misses of a file token and asks the later authenticators about them', async () => {
    const asked: string[] = [];
    const later = { authenticateToken: (token: string) => (asked.push(token), token === 'TOK' ? { name: 'bob', uid: 'b', groups: [], extra: {} } : undefined) };
    const bearer = new BearerTokenAuthenticator([StaticTokenAuthenticator.fromCsv('tok,alice,uid-a\n', 't'), later]);
    for (const near of ['to', 'tok2', 'xtok', 'tok\u0000', 'tok%00']) {
      expect(await bearer.authenticate(req({ authorization: `Bearer ${near}` }))).toEqual({ kind: 'error', error: 'invalid bearer token' });
    }
    expect(await bearer.authenticate(req({ authorization: 'Bearer TOK' }))).toMatchObject({ kind: 'user', user: { name: 'bob' } });
    expect(asked).toEqual(['to', 'tok2', 'xtok', 'tok\u0000', 'tok%00', 'TOK']);
  });
});

describe('--anonymous-auth=true over HTTPS', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory', anonymousAuth: true, authorizationMode: 'AlwaysAllow', api: () => ({ handler: (c) => c.json(c.get('user')) }) });
  });
  afterAll(() => server.close());

  it('runs a request without credentials as system:anonymous in system:unauthenticated, on any path', async () => {
    for (const path of ['/api/v1/namespaces', '/healthz']) {
      const res = await call(server.url, path, { ca: server.caCert });
      expect(res.status, path).toBe(200);
      if (path !== '/healthz') expect(res.json()).toEqual({ name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} });
    }
  });

  it('never downgrades a bad token to anonymous', async () => {
    expect((await call(server.url, '/api/v1/namespaces', { ca: server.caCert, token: 'nope' })).status).toBe(401);
  });
});

// The transport's retry and re-authentication rules, against a loopback HTTPS server that answers
// what each case needs (client-go's rest/with_retry.go): 429 and 5xx with Retry-After are tried
// again for verbs that may be repeated; a POST or PATCH that got a 5xx is not; a 401 makes the
// credential source forget its credentials and the request goes once more; a new client
// certificate means a new TLS handshake.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, StatusError, type Client } from '../../client/index.js';
import type { Credentials, CredentialSource } from '../../client/config/types.js';
import { createCertificateAuthority, issueCertificate, type KeyedCert } from '../../runtime/auth/pki.js';

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  peer?: string;
}

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

const status = (code: number, reason: string, message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

function reply(code: number, body: string, headers: Record<string, string> = {}): Answer {
  return (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
}

const configMap = (name: string) => JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'ns' } });

/** Rotates through client certificates: each invalidate() moves to the next, as a plugin run again would. */
class RotatingCredentials implements CredentialSource {
  invalidated: Credentials[] = [];
  private index = 0;
  constructor(private readonly all: Credentials[]) {}
  async get(): Promise<Credentials> {
    return this.all[Math.min(this.index, this.all.length - 1)];
  }
  invalidate(used: Credentials): void {
    this.invalidated.push(used);
    this.index++;
  }
}

describe('transport retries', () => {
  let ca: KeyedCert;
  let server: Server;
  let url: string;
  let answers: Answer[] = [];
  let seen: Seen[] = [];
  let alice: KeyedCert;
  let bob: KeyedCert;

  beforeAll(async () => {
    ca = await createCertificateAuthority('retry-test-ca');
    const serving = await issueCertificate(ca, { subject: 'CN=loopback', usage: 'serverAuth', names: ['127.0.0.1'] });
    alice = await issueCertificate(ca, { subject: 'CN=alice', usage: 'clientAuth' });
    bob = await issueCertificate(ca, { subject: 'CN=bob', usage: 'clientAuth' });
    server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, peer: String(peer?.subject?.CN) });
      req.resume();
      req.on('end', () => (answers.shift() ?? reply(500, status(500, 'InternalError', 'no answer left')))(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    answers = [];
    seen = [];
  });

  const clientWith = (credentials: CredentialSource): Client => createClient({ server: url, tls: { ca: ca.certPem }, credentials, namespace: 'ns', source: 'inline' });
  const tokenClient = () => clientWith(new RotatingCredentials([{ token: 'first' }, { token: 'second' }]));

  it('tries a GET again after 429 with Retry-After, then returns the object', async () => {
    answers = [reply(429, status(429, 'TooManyRequests', 'slow down'), { 'retry-after': '1' }), reply(200, configMap('a'))];
    const cm = await tokenClient().coreV1.configMaps('ns').get('a');
    expect(cm.metadata?.name).toBe('a');
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET']);
  });

  it('tries a POST again after 429 (the server did not take it) but not after 503', async () => {
    answers = [reply(429, status(429, 'TooManyRequests', 'slow down'), { 'retry-after': '0' }), reply(201, configMap('b'))];
    expect((await tokenClient().coreV1.configMaps('ns').create({ metadata: { name: 'b' } })).metadata?.name).toBe('b');
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);

    seen = [];
    answers = [reply(503, status(503, 'ServiceUnavailable', 'busy'), { 'retry-after': '0' }), reply(201, configMap('c'))];
    const err = await tokenClient()
      .coreV1.configMaps('ns')
      .create({ metadata: { name: 'c' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(err).toMatchObject({ code: 503, reason: 'ServiceUnavailable', message: 'busy' });
    expect(seen.map((s) => s.method)).toEqual(['POST']);
  });

  it('does not repeat a PATCH after a 5xx, but repeats a PUT and a DELETE', async () => {
    answers = [reply(500, status(500, 'InternalError', 'oops'), { 'retry-after': '0' })];
    await expect(tokenClient().coreV1.configMaps('ns').patch('p', { data: {} }, { type: 'merge' })).rejects.toMatchObject({ code: 500 });
    expect(seen.map((s) => s.method)).toEqual(['PATCH']);

    seen = [];
    answers = [reply(504, status(504, 'Timeout', 'late'), { 'retry-after': '0' }), reply(200, configMap('u'))];
    await tokenClient().coreV1.configMaps('ns').update({ metadata: { name: 'u' } });
    answers = [reply(503, status(503, 'ServiceUnavailable', 'busy'), { 'retry-after': '0' }), reply(200, status(200, '', ''))];
    await tokenClient().coreV1.configMaps('ns').delete('u');
    expect(seen.map((s) => s.method)).toEqual(['PUT', 'PUT', 'DELETE', 'DELETE']);
  });

  it('does not retry a 5xx without Retry-After', async () => {
    answers = [reply(500, status(500, 'InternalError', 'broken')), reply(200, configMap('x'))];
    await expect(tokenClient().coreV1.configMaps('ns').get('x')).rejects.toMatchObject({ code: 500, reason: 'InternalError', message: 'broken' });
    expect(seen).toHaveLength(1);
  });

  it('gives up after client-go\'s 10 retries', async () => {
    answers = Array.from({ length: 12 }, () => reply(429, status(429, 'TooManyRequests', 'still busy'), { 'retry-after': '0' }));
    await expect(tokenClient().coreV1.configMaps('ns').get('x')).rejects.toMatchObject({ code: 429 });
    expect(seen).toHaveLength(11);
  });

  it('on 401 invalidates the token and sends the request once more with the next one', async () => {
    const credentials = new RotatingCredentials([{ token: 'old' }, { token: 'new' }, { token: 'newer' }]);
    answers = [reply(401, status(401, 'Unauthorized', 'Unauthorized')), reply(201, configMap('t'))];
    await clientWith(credentials).coreV1.configMaps('ns').create({ metadata: { name: 't' } });
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer old', 'Bearer new']);
    expect(credentials.invalidated).toEqual([{ token: 'old' }]);

    // A second 401 in a row is the answer: no third attempt.
    seen = [];
    answers = [reply(401, status(401, 'Unauthorized', 'Unauthorized')), reply(401, status(401, 'Unauthorized', 'Unauthorized'))];
    await expect(clientWith(credentials).coreV1.configMaps('ns').get('t')).rejects.toMatchObject({ code: 401, reason: 'Unauthorized' });
    expect(seen).toHaveLength(2);
  });

  it('handshakes again with a new client certificate after a 401', async () => {
    const credentials = new RotatingCredentials([
      { clientCertificate: { cert: alice.certPem, key: alice.keyPem } },
      { clientCertificate: { cert: bob.certPem, key: bob.keyPem } },
    ]);
    const client = clientWith(credentials);
    answers = [reply(200, configMap('one')), reply(401, status(401, 'Unauthorized', 'Unauthorized')), reply(200, configMap('one'))];
    await client.coreV1.configMaps('ns').get('one');
    await client.coreV1.configMaps('ns').get('one');
    expect(seen.map((s) => s.peer)).toEqual(['alice', 'alice', 'bob']);
    client.close();
  });

  it('turns a failure that is not a Status into a StatusError named after the code', async () => {
    answers = [(_req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('forbidden by a proxy');
    }];
    await expect(tokenClient().coreV1.configMaps('ns').get('x')).rejects.toMatchObject({ code: 403, reason: 'Forbidden', message: 'forbidden by a proxy' });
  });

  it('stops waiting out a Retry-After when the signal aborts', async () => {
    answers = [reply(429, status(429, 'TooManyRequests', 'slow down'), { 'retry-after': '3600' })];
    const controller = new AbortController();
    const pending = tokenClient().coreV1.configMaps('ns').get('x', { signal: controller.signal });
    await expect.poll(() => seen.length).toBe(1);
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });
});

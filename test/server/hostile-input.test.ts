// Hostile requests against the real server over HTTPS: oversized bodies, headers and URLs, warnings
// that are not plain ASCII or are huge, dot segments, held requests past the in-flight limits, and
// a client that never finishes its headers. Each test then checks the server still answers and
// that nothing was stored, or read, that should not have been.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { issueCertificate } from '../../runtime/auth/pki.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const LIMIT = 3 * 1024 * 1024;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Header values as the bytes on the wire, decoded as UTF-8. */
  warnings: string[];
  body: string;
}

/**
 * A request with its path exactly as given (node's URL parsing would resolve dot segments), an
 * optional body sent in pieces, and a reply even when the server stops reading the body early.
 */
function send(
  server: RunningServer,
  creds: Credentials,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer | string; chunks?: Buffer[] } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: server.port, method, path, headers: options.headers, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const warnings: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (res.rawHeaders[i].toLowerCase() === 'warning') warnings.push(Buffer.from(res.rawHeaders[i + 1], 'latin1').toString('utf8'));
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, warnings, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    // The server may close while the client is still sending a body it refused; the reply is what counts.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    if (options.body !== undefined) req.end(options.body);
    else if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else req.end();
  });
}

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tries until `done` holds (bounded), for states the server reaches asynchronously. */
async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let last!: T;
  for (let i = 0; i < 200; i++) {
    last = await attempt();
    if (done(last)) return last;
    await sleep(25);
  }
  return last;
}

async function expectHealthy(server: RunningServer, creds: Credentials): Promise<void> {
  for (const path of ['/readyz', '/livez', '/healthz']) {
    const res = await call(server.url, path, creds);
    expect(res.status, path).toBe(200);
    expect(res.body).toBe('ok');
  }
}

describe('hostile input', () => {
  let server: RunningServer;
  let admin: Credentials;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    admin = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  const json = { 'content-type': 'application/json' };

  describe('request bodies', () => {
    it('refuses a body over 3 MiB with 413 before reading it, and stores nothing', async () => {
      const body = JSON.stringify(configMap('too-big', { data: { k: 'x'.repeat(LIMIT) } }));
      const res = await send(server, admin, 'POST', CONFIGMAPS, { headers: { ...json, 'content-length': String(Buffer.byteLength(body)) }, body });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Request entity too large: limit is ${LIMIT}`, reason: 'RequestEntityTooLarge', code: 413,
      });
      expect(res.headers.connection).toBe('close');
      expect((await call(server.url, `${CONFIGMAPS}/too-big`, admin)).status).toBe(404);
      await expectHealthy(server, admin);
    });

    it('lets a client still sending a large declared body read the 413 (the connection lingers before it closes, as Go\'s does)', async () => {
      for (let i = 0; i < 3; i++) {
        const body = Buffer.alloc(16 * 1024 * 1024, ' ');
        const res = await send(server, admin, 'PUT', `${CONFIGMAPS}/huge`, { headers: { ...json, 'content-length': String(body.length) }, body });
        expect(res.status).toBe(413);
      }
      await expectHealthy(server, admin);
    });

    it('refuses a chunked body once it passes 3 MiB while reading it', async () => {
      const mib = Buffer.alloc(1024 * 1024, ' ');
      const res = await send(server, admin, 'POST', CONFIGMAPS, { headers: json, chunks: [Buffer.from('{"metadata":{"name":"chunked"}}'), mib, mib, mib, mib] });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ reason: 'RequestEntityTooLarge', message: `Request entity too large: limit is ${LIMIT}` });
      expect((await call(server.url, `${CONFIGMAPS}/chunked`, admin)).status).toBe(404);
      await expectHealthy(server, admin);
    });

    it('takes a body of exactly 3 MiB', async () => {
      const object = JSON.stringify(configMap('at-limit', { data: { k: 'v' } }));
      const body = object + ' '.repeat(LIMIT - object.length);
      const res = await send(server, admin, 'POST', CONFIGMAPS, { headers: json, body });
      expect(res.status).toBe(201);
      expect(JSON.parse((await call(server.url, `${CONFIGMAPS}/at-limit`, admin)).body)).toMatchObject({ data: { k: 'v' } });
    });

    it('limits the bodies of every verb that reads one (patch, update, delete)', async () => {
      const huge = ' '.repeat(LIMIT + 1);
      const cases: [string, string][] = [
        ['PATCH', 'application/merge-patch+json'],
        ['PUT', 'application/json'],
        ['DELETE', 'application/json'],
      ];
      for (const [method, type] of cases) {
        const res = await send(server, admin, method, `${CONFIGMAPS}/at-limit`, { headers: { 'content-type': type, 'content-length': String(huge.length) }, body: huge });
        expect(res.status, method).toBe(413);
      }
      expect((await call(server.url, `${CONFIGMAPS}/at-limit`, admin)).status).toBe(200);
    });

    it('does not decode a gzip-encoded body (as kube-apiserver does not), so it cannot expand past the limit', async () => {
      // 64 MiB of spaces around an object, 64 KiB once compressed.
      const bomb = gzipSync(Buffer.concat([Buffer.from(JSON.stringify(configMap('gzipped'))), Buffer.alloc(64 * 1024 * 1024, ' ')]));
      const res = await send(server, admin, 'POST', CONFIGMAPS, { headers: { ...json, 'content-encoding': 'gzip' }, body: bomb });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ reason: 'BadRequest' });
      expect((await call(server.url, `${CONFIGMAPS}/gzipped`, admin)).status).toBe(404);
      await expectHealthy(server, admin);
    });
  });

  describe('warnings', () => {
    it('sends a warning about a non-ASCII field as UTF-8 and answers 201 for the stored object', async () => {
      const body = JSON.stringify(configMap('jp', { 日本: 'x' }));
      const res = await send(server, admin, 'POST', `${CONFIGMAPS}?fieldValidation=Warn`, { headers: json, body });
      expect(res.status).toBe(201);
      expect(res.warnings).toEqual(['299 - "unknown field \\"日本\\""']);
      const list = JSON.parse((await call(server.url, CONFIGMAPS, admin)).body) as { items: { metadata: { name: string } }[] };
      expect(list.items.filter((i) => i.metadata.name === 'jp')).toHaveLength(1);
      await expectHealthy(server, admin);
    });

    it('truncates a 20 KB warning as kube does, and answers 201', async () => {
      const field = 'f'.repeat(20_000);
      const res = await send(server, admin, 'POST', `${CONFIGMAPS}?fieldValidation=Warn`, { headers: json, body: JSON.stringify(configMap('long-field', { [field]: 1 })) });
      expect(res.status).toBe(201);
      // Over 4096 characters in all: every warning is cut to its first 256.
      expect(res.warnings).toEqual([`299 - "${`unknown field \\"${field}`.slice(0, 256 + 1)}"`]);
      expect((await call(server.url, `${CONFIGMAPS}/long-field`, admin)).status).toBe(200);
      await expectHealthy(server, admin);
    });
  });

  describe('nothing after the write turns it into a failure', () => {
    it('refuses a write whose response the Accept header cannot take before writing, as kube negotiates first', async () => {
      const accept = { ...json, accept: 'application/foo' };
      const created = await send(server, admin, 'POST', CONFIGMAPS, { headers: accept, body: JSON.stringify(configMap('unacceptable')) });
      expect(created.status).toBe(406);
      expect(JSON.parse(created.body)).toMatchObject({ reason: 'NotAcceptable' });
      expect((await call(server.url, `${CONFIGMAPS}/unacceptable`, admin)).status).toBe(404);

      await send(server, admin, 'POST', CONFIGMAPS, { headers: json, body: JSON.stringify(configMap('kept', { data: { k: 'v' } })) });
      const patch = JSON.stringify({ data: { k: 'changed' } });
      expect((await send(server, admin, 'PATCH', `${CONFIGMAPS}/kept`, { headers: { ...accept, 'content-type': 'application/merge-patch+json' }, body: patch })).status).toBe(406);
      expect((await send(server, admin, 'DELETE', `${CONFIGMAPS}/kept`, { headers: { accept: 'application/foo' } })).status).toBe(406);
      expect(JSON.parse((await call(server.url, `${CONFIGMAPS}/kept`, admin)).body)).toMatchObject({ data: { k: 'v' } });
    });
  });

  describe('dot segments', () => {
    beforeAll(async () => {
      await call(server.url, '/api/v1/namespaces/default/secrets', admin, {
        method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { password: 'hunter2' } }),
      });
      await call(server.url, CONFIGMAPS, admin, { method: 'POST', headers: json, body: JSON.stringify(configMap('x')) });
    });

    const genericNotFound = { kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource', details: {}, code: 404 };

    it('keeps `..` and `%2e%2e` as segments, as kube-apiserver does: no route, so 404', async () => {
      for (const dots of ['..', '%2e%2e', '%2E%2E', '.%2e']) {
        for (const method of ['GET', 'DELETE']) {
          const res = await send(server, admin, method, `${CONFIGMAPS}/x/${dots}/${dots}/secrets/s1`);
          expect(res.status, `${method} ${dots}`).toBe(404);
          expect(JSON.parse(res.body)).toEqual({ apiVersion: 'v1', metadata: {}, status: 'Failure', ...genericNotFound });
        }
      }
      const secret = JSON.parse((await call(server.url, '/api/v1/namespaces/default/secrets/s1', admin)).body) as { kind: string };
      expect(secret.kind).toBe('Secret');
      await expectHealthy(server, admin);
    });

    it('refuses `.` and `..` as names the way the registry\'s key functions do', async () => {
      const cases: [string, string][] = [
        [`${CONFIGMAPS}/..`, 'Name parameter invalid: "..": may not be \'..\''],
        [`${CONFIGMAPS}/%2e%2e`, 'Name parameter invalid: "..": may not be \'..\''],
        [`${CONFIGMAPS}/.`, 'Name parameter invalid: ".": may not be \'.\''],
        [`${CONFIGMAPS}/a%25b`, 'Name parameter invalid: "a%b": may not contain \'%\''],
        ['/api/v1/namespaces/..', 'Name parameter invalid: "..": may not be \'..\''],
      ];
      for (const [path, message] of cases) {
        const res = await send(server, admin, 'GET', path);
        expect(res.status, path).toBe(400);
        expect(JSON.parse(res.body)).toMatchObject({ reason: 'BadRequest', message });
      }
      const del = await send(server, admin, 'DELETE', `${CONFIGMAPS}/..`);
      expect(del.status).toBe(400);
      expect((await call(server.url, `${CONFIGMAPS}/x`, admin)).status).toBe(200);
    });

    it('does not reach the health or API endpoints through dot segments', async () => {
      const viaApi = await send(server, admin, 'GET', '/api/v1/../../readyz');
      expect(viaApi.status).toBe(404);
      expect(viaApi.body).not.toBe('ok');
      const viaHealth = await send(server, admin, 'GET', '/readyz/../api/v1/namespaces/default/secrets/s1');
      expect(viaHealth.status).toBe(404);
      expect(viaHealth.body).not.toContain('hunter2');
      expect(viaHealth.body).not.toContain(Buffer.from('hunter2').toString('base64'));
    });
  });

  describe('request lines and headers', () => {
    it('serves a 20 KB URL (kube-apiserver reads up to 1 MiB of headers): a Status, not a bare 400', async () => {
      const name = 'n'.repeat(20_000);
      const res = await send(server, admin, 'GET', `${CONFIGMAPS}/${name}`);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', message: `configmaps "${name}" not found`, details: { name, kind: 'configmaps' } });
      await expectHealthy(server, admin);
    });

    it('answers a request line over 1 MiB as Go does: 431, plain text, connection closed', async () => {
      const res = await send(server, admin, 'GET', `${CONFIGMAPS}/${'n'.repeat(1_100_000)}`);
      expect(res.status).toBe(431);
      expect(res.body).toBe('431 Request Header Fields Too Large');
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers.connection).toBe('close');
      await expectHealthy(server, admin);
    });

    it('answers a malformed request line with Go\'s plain 400', async () => {
      const socket = await tlsConnect(server, admin);
      socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
      const reply = await readUntilClosed(socket);
      expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(reply).toMatch(/\r\n\r\n400 Bad Request$/);
      await expectHealthy(server, admin);
    });

    it('refuses an object name too long to be valid quickly and in full, then keeps serving', async () => {
      const name = 'a'.repeat(2_000_000);
      const res = await send(server, admin, 'POST', CONFIGMAPS, { headers: json, body: JSON.stringify(configMap(name)) });
      expect(res.status).toBe(422);
      expect(JSON.parse(res.body)).toMatchObject({ reason: 'Invalid', message: `ConfigMap "${name}" is invalid: metadata.name: Invalid value: "${name}": must be no more than 253 characters` });
      await expectHealthy(server, admin);
    });
  });
});

function tlsConnect(server: RunningServer, creds: Credentials): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: creds.ca, cert: creds.cert, key: creds.key }, () => resolve(socket));
    socket.on('error', reject);
  });
}

function readUntilClosed(socket: TLSSocket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('in-flight limits', () => {
  let server: RunningServer;
  let admin: Credentials;
  let carol: Credentials;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory', maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
    admin = kubeconfigCredentials(server.kubeconfig);
    const ca = { certPem: readFileSync(join(server.dataDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(server.dataDir, 'ca.key'), 'utf8') };
    const issued = await issueCertificate(ca, { subject: 'CN=carol', usage: 'clientAuth' });
    carol = { ca: server.caCert, cert: issued.certPem, key: issued.keyPem };
    // carol is no member of system:masters: under RBAC a binding lets her use the namespace.
    const binding = {
      metadata: { name: 'carol' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
    };
    const bound = await call(server.url, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(binding) });
    expect(bound.status).toBe(201);
    await vi.waitFor(async () => expect((await call(server.url, `${CONFIGMAPS}/nothing`, carol)).status).toBe(404));
    // A list too large to sit in socket buffers: a client that does not read it holds it in flight.
    for (let i = 0; i < 16; i++) {
      const res = await call(server.url, CONFIGMAPS, admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(configMap(`big-${i}`, { data: { k: 'x'.repeat(900_000) } })) });
      expect(res.status).toBe(201);
    }
  }, 60_000);
  afterAll(() => server?.close());

  const readOne = () => call(server.url, `${CONFIGMAPS}/big-0`, carol);

  it('counts a read until its response is written, sheds reads past the limit with 429, and keeps the health endpoints answered', async () => {
    const held = await tlsConnect(server, carol);
    // Never read: the server cannot finish writing the list.
    held.pause();
    held.write(`GET ${CONFIGMAPS} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);

    const shed = await eventually(readOne, (r) => r.status === 429);
    expect(shed.status).toBe(429);
    expect(shed.headers['retry-after']).toBe('1');
    expect(shed.json()).toMatchObject({ reason: 'TooManyRequests', message: 'Too many requests, please try again later.', details: { retryAfterSeconds: 1 }, code: 429 });
    await expectHealthy(server, carol);
    // Writes have their own limit; system:masters has none.
    const write = await call(server.url, CONFIGMAPS, carol, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(configMap('while-reads-held')) });
    expect(write.status).toBe(201);
    expect((await call(server.url, `${CONFIGMAPS}/big-0`, admin)).status).toBe(200);

    held.destroy();
    expect((await eventually(readOne, (r) => r.status === 200)).status).toBe(200);
  });

  it('sheds part of a burst of simultaneous reads, answers every request, and recovers', async () => {
    const burst = await Promise.all(Array.from({ length: 20 }, () => readOne()));
    const codes = burst.map((r) => r.status);
    expect(codes.every((c) => c === 200 || c === 429)).toBe(true);
    expect(codes).toContain(429);
    expect(codes).toContain(200);
    await expectHealthy(server, carol);
    expect((await eventually(readOne, (r) => r.status === 200)).status).toBe(200);
  });

  it('counts a write while its body is still arriving, and sheds writes past the limit', async () => {
    const body = Buffer.from(JSON.stringify(configMap('slow-body')));
    let finishHeld: () => void = () => {};
    const held = new Promise<Reply>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: server.port, method: 'POST', path: CONFIGMAPS, headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, ca: carol.ca, cert: carol.cert, key: carol.key, agent: false },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, warnings: [], body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, 10));
      finishHeld = () => req.end(body.subarray(10));
    });
    const writeOne = (name: string) => call(server.url, CONFIGMAPS, carol, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(configMap(name)) });

    const shed = await eventually(() => writeOne('shed'), (r) => r.status === 429);
    expect(shed.status).toBe(429);
    expect((await call(server.url, `${CONFIGMAPS}/shed`, admin)).status).toBe(404);
    expect((await readOne()).status).toBe(200);
    await expectHealthy(server, carol);

    finishHeld();
    expect((await held).status).toBe(201);
    expect((await eventually(() => writeOne('after'), (r) => r.status !== 429)).status).toBe(201);
  });
});

describe('header read timeout', () => {
  let server: RunningServer;
  let admin: Credentials;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    admin = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('closes a connection whose headers never end without a reply, as Go does past ReadHeaderTimeout (32s)', async () => {
    const socket = await tlsConnect(server, admin);
    socket.write('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(await readUntilClosed(socket)).toBe('');
    await expectHealthy(server, admin);
  }, 60_000);
});

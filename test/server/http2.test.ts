// HTTP/2 beside HTTP/1.1 on the one secure port, driven by real clients: node's http2 client, a
// client writing raw frames (one that ignores the stream limit, as a hostile one would), node's
// https, and kubectl, which picks h2 by ALPN as client-go does.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { FRAME, RawH2 } from '../support/raw-http2.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const TOKEN = 'h2-token-carol';
const MAX_STREAMS = 4;

interface H2Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

function open(server: RunningServer, creds: Credentials): Promise<ClientHttp2Session> {
  const session = connect(server.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
  return new Promise((resolve, reject) => {
    session.once('remoteSettings', () => resolve(session));
    session.once('error', reject);
  });
}

function h2(session: ClientHttp2Session, method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<H2Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...options.headers });
    const chunks: Buffer[] = [];
    let headers: IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      resolve({ status: Number(headers[':status']), headers, body, text, json: () => JSON.parse(text) });
    });
    stream.on('error', reject);
    stream.end(options.body);
  });
}

const json = { 'content-type': 'application/json' };
const configMap = (name: string, data: Record<string, string> = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const selfSubjectReview = '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}';

/** Reads newline-delimited watch events from a stream until `count` have arrived. */
function watchEvents(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}) {
  const stream = session.request({ ':path': path, ...headers });
  const events: Array<{ type: string; object: { metadata: { name: string } } }> = [];
  let status = 0;
  let buffered = '';
  const waiters: Array<() => void> = [];
  stream.on('response', (h) => (status = Number(h[':status'])));
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
    waiters.splice(0).forEach((w) => w());
  });
  stream.on('error', () => {});
  const started = new Promise<void>((resolve) => stream.once('response', () => resolve()));
  return {
    stream,
    events,
    started,
    status: () => status,
    async until(count: number): Promise<typeof events> {
      while (events.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return events;
    },
  };
}

describe('HTTP/2', () => {
  let server: RunningServer;
  let dir: string;
  let admin: Credentials;
  let session: ClientHttp2Session;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'h2-'));
    writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},carol,uid-carol,"dev"\n`);
    server = await startServer({ storage: 'memory', authorizationMode: 'AlwaysAllow', tokenAuthFile: join(dir, 'tokens.csv'), http2MaxStreamsPerConnection: MAX_STREAMS });
    admin = kubeconfigCredentials(server.kubeconfig);
    session = await open(server, admin);
  });
  afterAll(async () => {
    session?.destroy();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is negotiated by ALPN and advertises kube-apiserver\'s settings', () => {
    expect(session.alpnProtocol).toBe('h2');
    expect(session.remoteSettings).toMatchObject({
      maxConcurrentStreams: MAX_STREAMS,
      initialWindowSize: 256 * 1024,
      maxFrameSize: 256 * 1024,
      maxHeaderListSize: (1 << 20) + 320,
    });
  });

  it('creates, reads, patches and deletes, authenticated by the client certificate', async () => {
    const created = await h2(session, 'POST', CONFIGMAPS, { headers: json, body: configMap('h2-crud', { a: '1' }) });
    expect(created.status).toBe(201);
    const patched = await h2(session, 'PATCH', `${CONFIGMAPS}/h2-crud`, { headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":{"b":"2"}}' });
    expect(patched.status).toBe(200);
    const got = await h2(session, 'GET', `${CONFIGMAPS}/h2-crud`);
    expect(got.status).toBe(200);
    expect(got.headers['audit-id']).toBeTruthy();
    expect(got.json()).toMatchObject({ metadata: { name: 'h2-crud' }, data: { a: '1', b: '2' } });
    const who = await h2(session, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { headers: json, body: selfSubjectReview });
    expect(who.json<{ status: { userInfo: { groups: string[] } } }>().status.userInfo.groups).toContain('system:masters');
    expect((await h2(session, 'DELETE', `${CONFIGMAPS}/h2-crud`)).status).toBe(200);
    expect((await h2(session, 'GET', `${CONFIGMAPS}/h2-crud`)).status).toBe(404);
  });

  it('authenticates a bearer token per stream, and answers a bad one with a 401 Status', async () => {
    const anonymous = await open(server, { ca: admin.ca });
    try {
      const who = await h2(anonymous, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { headers: { ...json, authorization: `Bearer ${TOKEN}` }, body: selfSubjectReview });
      expect(who.status).toBe(201);
      expect(who.json<{ status: { userInfo: { username: string } } }>().status.userInfo.username).toBe('carol');
      const bad = await h2(anonymous, 'GET', CONFIGMAPS, { headers: { authorization: 'Bearer wrong' } });
      expect(bad.status).toBe(401);
      expect(bad.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      // The connection carries no certificate: each stream stands on its own credentials.
      expect((await h2(anonymous, 'GET', CONFIGMAPS, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    } finally {
      anonymous.destroy();
    }
  });

  it('streams a watch while other streams of the same session create what it sees', async () => {
    const watch = watchEvents(session, `${CONFIGMAPS}?watch=1&labelSelector=h2-watch`);
    await watch.started;
    expect(watch.status()).toBe(200);
    const names = ['w-1', 'w-2', 'w-3'];
    const writes = await Promise.all(
      names.map((name) => h2(session, 'POST', CONFIGMAPS, { headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { 'h2-watch': 'yes' } } }) })),
    );
    expect(writes.map((w) => w.status)).toEqual([201, 201, 201]);
    const events = await watch.until(3);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
    expect(events.map((e) => e.object.metadata.name).sort()).toEqual(names);
    watch.stream.close();
  });

  it('compresses a large response with gzip when asked, as over HTTP/1.1', async () => {
    const big = 'x'.repeat(200_000);
    expect((await h2(session, 'POST', CONFIGMAPS, { headers: json, body: configMap('h2-big', { big }) })).status).toBe(201);
    const res = await h2(session, 'GET', `${CONFIGMAPS}/h2-big`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(res.body).toString('utf8')).data.big).toBe(big);
  });

  it('refuses a body over 3 MiB with 413 and, as Go does for Connection: close, ends the session gracefully', async () => {
    const own = await open(server, admin);
    try {
      const goaway = new Promise<number>((resolve) => own.once('goaway', (code) => resolve(code)));
      const res = await new Promise<H2Reply>((resolve, reject) => {
        const stream = own.request({ ':method': 'POST', ':path': CONFIGMAPS, ...json, 'content-length': String(4 << 20) });
        const chunks: Buffer[] = [];
        let headers: IncomingHttpHeaders = {};
        stream.on('response', (h) => (headers = h));
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks), text, json: () => JSON.parse(text) });
        });
        stream.on('error', reject);
        stream.write(Buffer.alloc(1024, 32));
      });
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBeUndefined();
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
      expect(await goaway).toBe(constants.NGHTTP2_NO_ERROR);
    } finally {
      own.destroy();
    }
    expect((await h2(session, 'GET', '/readyz')).text).toBe('ok');
  });

  it('routes the :path as sent: dot segments stay segments', async () => {
    const res = await h2(session, 'GET', '/api/v1/../../readyz');
    expect(res.status).toBe(404);
    expect(res.text).not.toBe('ok');
  });

  it('holds a stream past the limit in the client until one ends (node\'s and Go\'s clients queue)', async () => {
    const own = await open(server, admin);
    try {
      const watches = Array.from({ length: MAX_STREAMS }, () => watchEvents(own, `${CONFIGMAPS}?watch=1`));
      await Promise.all(watches.map((w) => w.started));
      let closedOne = false;
      const queued = h2(own, 'GET', '/readyz').then((res) => ({ res, closedOne }));
      await new Promise((resolve) => setTimeout(resolve, 200));
      closedOne = true;
      watches[0].stream.close();
      const { res, closedOne: afterClose } = await queued;
      expect(afterClose).toBe(true);
      expect(res.status).toBe(200);
    } finally {
      own.destroy();
    }
  });

  it('refuses a stream opened past the acknowledged limit by ending that connection, and serves everyone else', async () => {
    // Go's server resets just the stream (PROTOCOL_ERROR); node's HTTP/2 ends the session of a
    // client that breaks the limit it acknowledged. Well-behaved clients never get here (above).
    const raw = await RawH2.connect(server, admin);
    const ids = Array.from({ length: MAX_STREAMS + 1 }, (_, i) => 1 + 2 * i);
    for (const id of ids) raw.headers(id, 'GET', `${CONFIGMAPS}?watch=1`);
    await raw.closed;
    expect(raw.frames.some((f) => f.type === FRAME.HEADERS && f.stream === ids[MAX_STREAMS])).toBe(false);
    expect((await h2(session, 'GET', '/readyz')).text).toBe('ok');
    const fresh = await open(server, admin);
    try {
      expect((await h2(fresh, 'GET', CONFIGMAPS)).status).toBe(200);
    } finally {
      fresh.destroy();
    }
  });

  it('serves HTTP/1.1 on the same port, to clients that offer no ALPN or only http/1.1', async () => {
    for (const ALPNProtocols of [undefined, ['http/1.1']]) {
      const res = await new Promise<{ version: string; status: number; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          `${server.url}/readyz`,
          { ca: admin.ca, cert: admin.cert, key: admin.key, agent: false, ...(ALPNProtocols ? { ALPNProtocols } : {}) },
          (r) => {
            let body = '';
            r.on('data', (c: Buffer) => (body += c.toString()));
            r.on('end', () => resolve({ version: r.httpVersion, status: r.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(res).toEqual({ version: '1.1', status: 200, body: 'ok' });
    }
  });
});

describe('HTTP/2 in-flight limits', () => {
  let server: RunningServer;
  let dir: string;
  let admin: Credentials;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'h2-inflight-'));
    writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},carol,uid-carol,"dev"\n`);
    server = await startServer({ storage: 'memory', authorizationMode: 'AlwaysAllow', tokenAuthFile: join(dir, 'tokens.csv'), maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
    admin = kubeconfigCredentials(server.kubeconfig);
    const session = await open(server, admin);
    // A list far larger than the client's receive window: a client that does not read holds it in flight.
    for (let i = 0; i < 4; i++) {
      expect((await h2(session, 'POST', CONFIGMAPS, { headers: json, body: configMap(`big-${i}`, { k: 'x'.repeat(900_000) }) })).status).toBe(201);
    }
    session.destroy();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts a stream until it ends, not until its handler returns', async () => {
    const carol = { authorization: `Bearer ${TOKEN}` };
    // Never acknowledges data (no WINDOW_UPDATE): the server cannot finish writing the list.
    const holder = await RawH2.connect(server, { ca: admin.ca });
    const reader = await open(server, { ca: admin.ca });
    try {
      holder.headers(1, 'GET', CONFIGMAPS, [['authorization', `Bearer ${TOKEN}`]]);
      await holder.next((f) => f.type === FRAME.HEADERS && f.stream === 1);
      const readOne = () => h2(reader, 'GET', `${CONFIGMAPS}/big-0`, { headers: carol });
      let shed = await readOne();
      for (let i = 0; i < 200 && shed.status !== 429; i++) shed = await readOne();
      expect(shed.status).toBe(429);
      expect(shed.headers['retry-after']).toBe('1');
      expect(shed.json()).toMatchObject({ reason: 'TooManyRequests', code: 429 });
      // Health checks are not counted.
      expect((await h2(reader, 'GET', '/readyz', { headers: carol })).status).toBe(200);

      holder.reset(1);
      let served = await readOne();
      for (let i = 0; i < 200 && served.status !== 200; i++) served = await readOne();
      expect(served.status).toBe(200);
    } finally {
      holder.socket.destroy();
      reader.destroy();
    }
  });
});

describe('HTTP/2 with many streams per connection', () => {
  it('advertises a limit past 8,191 streams, whose windows together would pass HTTP/2\'s largest', async () => {
    const server = await startServer({ storage: 'memory', http2MaxStreamsPerConnection: 10_000 });
    const admin = kubeconfigCredentials(server.kubeconfig);
    const session = await open(server, admin);
    try {
      expect(session.remoteSettings.maxConcurrentStreams).toBe(10_000);
      expect((await h2(session, 'GET', CONFIGMAPS)).status).toBe(200);
    } finally {
      session.destroy();
      await server.close();
    }
  });
});

describe('HTTP/2 and close()', () => {
  it('ends sessions with open watches when the server closes', async () => {
    const server = await startServer({ storage: 'memory' });
    const admin = kubeconfigCredentials(server.kubeconfig);
    const session = await open(server, admin);
    const watch = watchEvents(session, `${CONFIGMAPS}?watch=1`);
    await watch.started;
    const ended = new Promise<void>((resolve) => watch.stream.once('close', () => resolve()));
    const sessionClosed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    await server.close();
    await ended;
    await sessionClosed;
    expect(session.destroyed).toBe(true);
  });
});

const kubectlOnPath = (() => {
  try {
    return !!execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
  } catch {
    return false;
  }
})();

describe.skipIf(!kubectlOnPath)('kubectl over HTTP/2', () => {
  let server: RunningServer;
  let home: string;
  const env = () => ({ ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: home, GODEBUG: 'http2debug=1' });
  const kubectl = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile('kubectl', args, { env: env(), timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin!.end(input);
    });
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    home = mkdtempSync(join(tmpdir(), 'h2-kubectl-'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  // GODEBUG=http2debug=1 makes Go's HTTP/2 transport log the headers it sends and the frames it
  // receives to stderr; over HTTP/1.1 it logs nothing.
  const usedH2 = (stderr: string) => /http2: Transport received HEADERS/.test(stderr);

  it('gets, applies and reads back over h2', async () => {
    const applied = await kubectl(['apply', '-f', '-'], configMap('from-kubectl', { k: 'v' }));
    expect(applied.stdout).toContain('configmap/from-kubectl created');
    expect(applied.code).toBe(0);
    expect(usedH2(applied.stderr)).toBe(true);
    expect(applied.stderr).toMatch(/http2: Transport received SETTINGS .*MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=262144, MAX_FRAME_SIZE=262144, MAX_HEADER_LIST_SIZE=1048896/);
    const got = await kubectl(['get', 'configmap', 'from-kubectl', '-o', 'jsonpath={.data.k}']);
    expect(got.stdout).toBe('v');
    expect(usedH2(got.stderr)).toBe(true);
  });

  it('watches over h2 with get -w and sees a change made meanwhile', async () => {
    const child = spawn('kubectl', ['get', 'configmaps', '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name}{"\\n"}'], { env: env() });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const seen = new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        if (stdout.includes('ADDED watched-later')) resolve();
      });
    });
    try {
      // Wait for the watch's initial list, then write.
      for (let i = 0; i < 200 && !/":path" = "[^"]*watch=true/.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
      const applied = await kubectl(['create', 'configmap', 'watched-later']);
      expect(applied.code).toBe(0);
      await seen;
      expect(stdout).toContain('ADDED watched-later');
      expect(usedH2(stderr)).toBe(true);
    } finally {
      child.kill();
    }
  });
});

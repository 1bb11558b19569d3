// Large list bodies are written into buffers lent for one response and given back when node's
// response closes (runtime/machinery/http/lent-bodies.ts; the pool on its own is in
// test/machinery/lent-bodies.test.ts). Over the real server: a body a client has not read yet (an
// HTTP/2 stream it leaves without window, whose body node sends from the buffer as the window
// opens; two lists asked on an HTTP/1.1 connection it does not read) comes out whole however many
// other large lists are served meanwhile; gzip-compressed lists (their bodies given back once
// compressed) and clients that go away mid-body leave the next lists whole. With bodies given back
// as soon as written, the HTTP/2 bodies came out with another namespace's bytes.
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LENT_BODY_MIN_BYTES } from '../../runtime/machinery/http/lent-bodies.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { readUntilClosed, tlsConnect } from '../support/raw-http1.js';

const TOKEN = 'lent-token';
const NAMESPACES = ['lent-a', 'lent-b', 'lent-c'];
/** 12 ConfigMaps of 100 KB: each namespace's list is some 1.2 MB, over LENT_BODY_MIN_BYTES. */
const OBJECTS = 12;
const FORMATS = { json: 'application/json', protobuf: 'application/vnd.kubernetes.protobuf', cbor: 'application/cbor' } as const;
type Format = keyof typeof FORMATS;
const listPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** The bodies of the HTTP/1.1 answers in `raw`, each framed by its Content-Length. */
function answerBodies(raw: Buffer): Array<{ status: number; body: Buffer }> {
  const out: Array<{ status: number; body: Buffer }> = [];
  let at = 0;
  while (at < raw.length) {
    const headEnd = raw.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const head = raw.subarray(at, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
    if (!Number.isInteger(length)) throw new Error(`an answer without Content-Length: ${head}`);
    out.push({ status: Number(head.split(' ')[1]), body: raw.subarray(headEnd + 4, headEnd + 4 + length) });
    at = headEnd + 4 + length;
  }
  return out;
}

describe('large lists on lent buffers', () => {
  let server: RunningServer;
  let dir: string;
  let creds: Credentials;
  const reference: Record<string, Record<Format, Buffer>> = {};

  /** GET over its own HTTP/1.1 connection, the whole answer. */
  async function get(path: string, format: Format, extra = ''): Promise<Buffer> {
    const socket = await tlsConnect(server, creds);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nAccept: ${FORMATS[format]}\r\n${extra}Connection: close\r\n\r\n`);
    const [answer] = answerBodies(await readUntilClosed(socket));
    expect(answer.status).toBe(200);
    return answer.body;
  }

  /** Lists of the other namespaces, each checked against its reference, while a body waits. */
  async function listOthers(format: Format, except: string): Promise<void> {
    for (let round = 0; round < 3; round++) {
      for (const ns of NAMESPACES.filter((n) => n !== except)) expect((await get(listPath(ns), format)).equals(reference[ns][format])).toBe(true);
    }
  }

  function h2Session(): ClientHttp2Session {
    return http2Connect(server.url, { ca: creds.ca });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lent-bodies-'));
    writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},lender,uid-lender,"system:masters"\n`);
    server = await startServer({ storage: 'memory', tokenAuthFile: join(dir, 'tokens.csv'), featureGates: { CBORServingAndStorage: true } });
    creds = { ca: kubeconfigCredentials(server.kubeconfig).ca };
    const admin = { ...creds, token: TOKEN };
    for (const ns of NAMESPACES) {
      expect((await call(server.url, '/api/v1/namespaces', admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: ns } }) })).status).toBe(201);
      const letter = ns.slice(-1);
      for (let i = 0; i < OBJECTS; i++) {
        const body = JSON.stringify({ metadata: { name: `${letter}-${i}` }, data: { blob: letter.repeat(100_000) } });
        expect((await call(server.url, listPath(ns), admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(201);
      }
    }
    // Every namespace gets the root CA's ConfigMap from a controller: the lists change until it is there.
    const listed = async (ns: string) => (JSON.parse((await get(listPath(ns), 'json')).toString('utf8')) as { items: Array<{ metadata: { name: string } }> }).items.map((item) => item.metadata.name);
    for (const ns of NAMESPACES) {
      for (let tries = 0; !(await listed(ns)).includes('kube-root-ca.crt'); tries++) {
        if (tries === 100) throw new Error(`no kube-root-ca.crt in ${ns}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    for (const ns of NAMESPACES) {
      reference[ns] = {} as Record<Format, Buffer>;
      for (const format of Object.keys(FORMATS) as Format[]) {
        // The first list keeps each item's bytes; from the second on, the body is copied from them.
        await get(listPath(ns), format);
        reference[ns][format] = await get(listPath(ns), format);
        expect(reference[ns][format].length).toBeGreaterThan(LENT_BODY_MIN_BYTES);
      }
      const items = (JSON.parse(reference[ns].json.toString('utf8')) as { items: Array<{ metadata: { name: string } }> }).items;
      expect(items.map((item) => item.metadata.name).sort()).toEqual([...Array.from({ length: OBJECTS }, (_, i) => `${ns.slice(-1)}-${i}`), 'kube-root-ca.crt'].sort());
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const format of Object.keys(FORMATS) as Format[]) {
    it(`keep a ${format} list whole on an HTTP/2 stream that is not read while other lists are served`, async () => {
      const session = h2Session();
      try {
        const stream = session.request({ ':path': listPath('lent-a'), authorization: `Bearer ${TOKEN}`, accept: FORMATS[format] });
        const chunks: Buffer[] = [];
        const first = new Promise<void>((resolve) => stream.once('data', (chunk: Buffer) => (chunks.push(chunk), resolve())));
        const done = new Promise<void>((resolve, reject) => {
          stream.on('end', resolve);
          stream.on('error', reject);
        });
        await first;
        // Unread, the stream's window closes: the rest of the body stays with the server.
        stream.pause();
        await listOthers(format, 'lent-a');
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.resume();
        await done;
        expect(Buffer.concat(chunks).equals(reference['lent-a'][format])).toBe(true);
      } finally {
        session.close();
      }
    });

    it(`keep ${format} lists whole when queued on an HTTP/1.1 connection that is not read`, async () => {
      const socket = await tlsConnect(server, creds);
      socket.pause();
      const request = (ns: string, close: boolean) =>
        `GET ${listPath(ns)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nAccept: ${FORMATS[format]}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
      // The server reads the second request once the first is answered, which waits for the client.
      socket.write(request('lent-a', false) + request('lent-b', true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await listOthers(format, 'lent-a');
      const received = readUntilClosed(socket);
      socket.resume();
      const answers = answerBodies(await received);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers[0].body.equals(reference['lent-a'][format])).toBe(true);
      expect(answers[1].body.equals(reference['lent-b'][format])).toBe(true);
    });

    it(`serve ${format} lists whole gzip-compressed, as client-go asks, between others`, async () => {
      for (let round = 0; round < 3; round++) {
        for (const ns of NAMESPACES) {
          expect(gunzipSync(await get(listPath(ns), format, 'Accept-Encoding: gzip\r\n')).equals(reference[ns][format])).toBe(true);
          expect((await get(listPath(ns), format)).equals(reference[ns][format])).toBe(true);
        }
      }
    });

    it(`serve ${format} lists whole after clients that went away mid-body`, async () => {
      const session = h2Session();
      const stream = session.request({ ':path': listPath('lent-a'), authorization: `Bearer ${TOKEN}`, accept: FORMATS[format] });
      await new Promise<void>((resolve) => stream.once('data', () => resolve()));
      session.destroy();
      const socket = await tlsConnect(server, creds);
      socket.write(`GET ${listPath('lent-b')} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nAccept: ${FORMATS[format]}\r\n\r\n`);
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.destroy();
      await listOthers(format, '');
    });
  }
});

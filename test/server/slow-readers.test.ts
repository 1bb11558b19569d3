// HTTP/1.1 clients that read their answers later than the server writes them
// (runtime/server/https-server.ts):
// - one that pipelines requests faster than it reads: node pauses such a connection, and its
//   parser, which read straight from the TLS stream, was handed the rest of what TLS had already
//   decrypted and refused it (HPE_PAUSED): a 400 and every later request lost. Go's server reads a
//   connection's next request only when it is ready for it: every request is answered.
// - one whose request says Connection: close: Go answers it and every request before it, never
//   reads what follows, and closes once its answers are written out and 500 ms have passed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { parseResponses, readUntilClosed, tlsConnect } from '../support/raw-http1.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const TOKEN = 'pipeline-token';

/** A dry-run create of a ConfigMap holding about 3 KB, so that 200 of them are some 600 KB of requests. */
function dryRunCreate(i: number, close: boolean): string {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `piped-${i}` }, data: { blob: 'x'.repeat(3000) } });
  const lines = [`POST ${CONFIGMAPS}?dryRun=All HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${TOKEN}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`];
  if (close) lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Sends `requests` in one write, reads nothing for `lateMs`, then everything until the server closes. */
async function sendThenReadLate(server: RunningServer, creds: Credentials, requests: string, lateMs = 500): Promise<Buffer> {
  const socket = await tlsConnect(server, creds);
  // Not reading for a while lets the answers fill the socket's buffers, so node pauses reading.
  socket.pause();
  socket.write(requests);
  await new Promise((resolve) => setTimeout(resolve, lateMs));
  const received = readUntilClosed(socket);
  socket.resume();
  return received;
}

const names = (count: number) => Array.from({ length: count }, (_, i) => `piped-${i}`);

describe('HTTP/1.1 clients reading late', () => {
  let server: RunningServer;
  let dir: string;
  let creds: Credentials;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pipelined-'));
    writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},piper,uid-piper,"dev"\n`);
    server = await startServer({ storage: 'memory', authorizationMode: 'AlwaysAllow', tokenAuthFile: join(dir, 'tokens.csv') });
    creds = { ca: kubeconfigCredentials(server.kubeconfig).ca };
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('get every request answered, in order, when they read only after sending them all', async () => {
    const count = 200;
    const raw = await sendThenReadLate(server, creds, Array.from({ length: count }, (_, i) => dryRunCreate(i, i === count - 1)).join(''));
    const answers = parseResponses(raw);
    expect(answers.map((a) => a.status)).toEqual(Array(count).fill(201));
    expect(answers.map((a) => JSON.parse(a.body).metadata.name)).toEqual(names(count));
  });

  it('get the answers up to the request that said Connection: close, and nothing after it', async () => {
    // In the last case the server reads past the 151st request before its first answer is made,
    // so the 151 answers (some 500 KB, more than loopback's buffers take before the client reads)
    // are still being written out when the connection starts closing, and the client reads them
    // later than the 500 ms the connection lingers for.
    for (const [close, lateMs] of [[0, 500], [5, 500], [150, 1500]]) {
      const raw = await sendThenReadLate(server, creds, Array.from({ length: 200 }, (_, i) => dryRunCreate(i, i === close)).join(''), lateMs);
      const answers = parseResponses(raw);
      expect(answers.map((a) => a.status)).toEqual(Array(close + 1).fill(201));
      expect(answers.map((a) => JSON.parse(a.body).metadata.name)).toEqual(names(close + 1));
      // Nothing after the last answer.
      expect(raw.toString('latin1').endsWith(answers[close].body)).toBe(true);
    }
  });

  it('get the whole of a large answer to a request that said Connection: close', async () => {
    const request = `GET /openapi/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
    const socket = await tlsConnect(server, creds);
    socket.pause();
    socket.write(request);
    // Longer than the 500 ms the connection lingers once its answer is written out.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const received = readUntilClosed(socket);
    socket.resume();
    const [answer] = parseResponses(await received);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).swagger).toBe('2.0');
  });
});

// A client that pipelines HTTP/1.1 requests over TLS faster than it reads the answers: node pauses
// such a connection, and its parser, which read straight from the TLS stream, was handed the rest
// of what TLS had already decrypted and refused it (HPE_PAUSED), so the client got a 400 and lost
// every request after it (runtime/server/https-server.ts, readThroughSocketStream). Go's server
// reads a connection's next request only when it is ready for it: every request is answered.
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
function dryRunCreate(i: number, last: boolean): string {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `piped-${i}` }, data: { blob: 'x'.repeat(3000) } });
  const lines = [`POST ${CONFIGMAPS}?dryRun=All HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${TOKEN}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`];
  if (last) lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

describe('HTTP/1.1 requests pipelined past what the client reads', () => {
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

  it('answers every request, in order, when the client reads only after sending them all', async () => {
    const count = 200;
    const socket = await tlsConnect(server, creds);
    // Not reading for a while lets the answers fill the socket's buffers, so node pauses reading.
    socket.pause();
    socket.write(Array.from({ length: count }, (_, i) => dryRunCreate(i, i === count - 1)).join(''));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const received = readUntilClosed(socket);
    socket.resume();
    const answers = parseResponses(await received);
    expect(answers.map((a) => a.status)).toEqual(Array(count).fill(201));
    expect(answers.map((a) => JSON.parse(a.body).metadata.name)).toEqual(Array.from({ length: count }, (_, i) => `piped-${i}`));
  });
});

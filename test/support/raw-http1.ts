// HTTP/1.1 over a raw TLS socket, for tests that send what node's client will not: pipelined
// requests in one write, malformed chunked bodies, bodies trickled a byte at a time, a client that
// never reads or leaves mid-answer.
import { connect, type TLSSocket } from 'node:tls';
import type { RunningServer } from '../../runtime/index.js';
import type { Credentials } from './https-client.js';

export function tlsConnect(server: Pick<RunningServer, 'port'>, creds: Credentials): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sent until it closed the connection (or `socket` was destroyed). */
export function readUntilClosed(socket: TLSSocket): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Splits what a connection received into its responses, in order: by Content-Length, by chunked
 * framing, or none at all for a 1xx, 204, 304 or the answer to a HEAD (`heads` lists which of the
 * final answers, counted from 0, were to HEAD requests). What is left incomplete is left out.
 */
export function parseResponses(raw: Buffer, heads: number[] = []): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  let final = 0;
  while (at < raw.length) {
    const headEnd = raw.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const lines = raw.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    at = headEnd + 4;
    let body = '';
    const bodiless = status < 200 || status === 204 || status === 304 || (heads.includes(final) && status >= 200);
    if (!bodiless && headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', at);
        if (lineEnd < 0) return out;
        const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
        // Not a chunk's size (a chunked body cut short by what follows): nothing more to read.
        if (!Number.isInteger(size)) return out;
        if (raw.length < lineEnd + 2 + size + 2) return out;
        parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts).toString('utf8');
    } else if (!bodiless && headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (raw.length < at + length) return out;
      body = raw.subarray(at, at + length).toString('utf8');
      at += length;
    }
    out.push({ status, headers, body });
    if (status >= 200) final++;
  }
  return out;
}

// A client writing HTTP/2 frames itself over TLS, to do what well-behaved clients never do: open
// streams past the limit, never send WINDOW_UPDATE, reset a stream mid-answer.
import { constants } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { expect } from 'vitest';
import type { RunningServer } from '../../runtime/index.js';
import type { Credentials } from './https-client.js';
import { http2Frame } from './http2-frame.js';

export const FRAME = { DATA: 0x0, HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, GOAWAY: 0x7, WINDOW_UPDATE: 0x8 } as const;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

/** HPACK integer with an n-bit prefix (RFC 7541 5.1). */
function hpackInt(value: number, prefixBits: number, firstByte: number): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([firstByte | value]);
  const bytes = [firstByte | max];
  value -= max;
  while (value >= 128) {
    bytes.push((value % 128) + 128);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return Buffer.from(bytes);
}

/** A header block of literal fields without indexing and without Huffman coding. */
function headerBlock(fields: Array<[string, string]>): Buffer {
  return Buffer.concat(
    fields.flatMap(([name, value]) => [Buffer.from([0x00]), hpackInt(name.length, 7, 0), Buffer.from(name), hpackInt(Buffer.byteLength(value), 7, 0), Buffer.from(value)]),
  );
}

export class RawH2 {
  readonly frames: Frame[] = [];
  private buffered = Buffer.alloc(0);
  private waiters: Array<() => void> = [];

  readonly closed: Promise<void>;

  private constructor(readonly socket: TLSSocket, private readonly authority: string) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  /** Connects, exchanges SETTINGS and acknowledges the server's, so its limits are in force. */
  static async connect(server: Pick<RunningServer, 'url'>, creds: Credentials): Promise<RawH2> {
    const url = new URL(server.url);
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['h2'] });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    expect(socket.alpnProtocol).toBe('h2');
    const raw = new RawH2(socket, url.host);
    socket.write(Buffer.concat([PREFACE, http2Frame(FRAME.SETTINGS, 0, 0)]));
    await raw.next((f) => f.type === FRAME.SETTINGS && (f.flags & 0x1) === 0);
    socket.write(http2Frame(FRAME.SETTINGS, 0x1, 0));
    return raw;
  }

  headers(stream: number, method: string, path: string, extra: Array<[string, string]> = []): void {
    const block = headerBlock([[':method', method], [':scheme', 'https'], [':authority', this.authority], [':path', path], ...extra]);
    // END_STREAM | END_HEADERS
    this.socket.write(http2Frame(FRAME.HEADERS, 0x5, stream, block));
  }

  reset(stream: number): void {
    const code = Buffer.alloc(4);
    code.writeUInt32BE(constants.NGHTTP2_CANCEL);
    this.socket.write(http2Frame(FRAME.RST_STREAM, 0, stream, code));
  }

  /** Opens the window of a stream (0: of the connection) by `increment` bytes. */
  windowUpdate(stream: number, increment: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(increment);
    this.socket.write(http2Frame(FRAME.WINDOW_UPDATE, 0, stream, payload));
  }

  async next(match: (f: Frame) => boolean): Promise<Frame> {
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.socket.destroyed) throw new Error('connection closed before the frame arrived');
      await new Promise<void>((resolve) => {
        const woken = () => {
          this.socket.off('close', woken);
          resolve();
        };
        this.waiters.push(woken);
        this.socket.once('close', woken);
      });
    }
  }

  private read(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 9) {
      const length = this.buffered.readUIntBE(0, 3);
      if (this.buffered.length < 9 + length) break;
      this.frames.push({
        type: this.buffered[3],
        flags: this.buffered[4],
        stream: this.buffered.readUInt32BE(5) & 0x7fffffff,
        payload: this.buffered.subarray(9, 9 + length),
      });
      this.buffered = this.buffered.subarray(9 + length);
    }
    this.waiters.splice(0).forEach((w) => w());
  }
}

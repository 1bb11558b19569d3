// Reads the server's memory through the V8 inspector, so the figure is the live heap after a full
// garbage collection rather than whatever garbage RSS still holds. The bench and the fuzz test
// start the server with --inspect-port=<port> (which opens nothing) and send SIGUSR1 to the
// serving process, which opens the inspector on that port; no endpoint is added to the server.
// The WebSocket is spoken by hand (text frames only, as the protocol needs), to need no package.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';

export interface HeapFigures {
  /** process.memoryUsage() after a full GC: V8 heap in use, and memory outside it (Buffers). */
  heapUsed: number;
  external: number;
  rss: number;
}

function getJSON(port: number, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(JSON.parse(body)));
    })
      .on('error', reject)
      .end();
  });
}

function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x81, 0x80 | len]) : Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff]);
  if (len >= 65536) throw new Error('inspector message too long');
  const masked = Buffer.alloc(len);
  for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([head, mask, masked]);
}

export class Inspector {
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private waiting = new Map<number, (result: unknown) => void>();

  private constructor(private socket: Socket) {
    socket.on('data', (d: Buffer) => this.read(d));
  }

  /** Waits for the inspector on `port` (after SIGUSR1) and connects to the process's target. */
  static async connect(port: number): Promise<Inspector> {
    let targets: Array<{ webSocketDebuggerUrl: string }> | undefined;
    for (let i = 0; i < 200 && !targets; i++) {
      try {
        targets = (await getJSON(port, '/json/list')) as typeof targets;
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    if (!targets?.length) throw new Error(`no inspector answered on port ${port}`);
    const url = new URL(targets[0].webSocketDebuggerUrl);
    const socket = await new Promise<Socket>((resolve, reject) => {
      request({
        host: '127.0.0.1',
        port,
        path: url.pathname,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') },
      })
        .on('upgrade', (_res, s: Socket) => resolve(s))
        .on('response', (res) => reject(new Error(`inspector refused the WebSocket: ${res.statusCode}`)))
        .on('error', reject)
        .end();
    });
    return new Inspector(socket);
  }

  private read(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.buffer.length < 2) return;
      let len = this.buffer[1] & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (this.buffer.length < 4) return;
        len = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (this.buffer.length < 10) return;
        len = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + len) return;
      const opcode = this.buffer[0] & 0x0f;
      const payload = this.buffer.subarray(offset, offset + len).toString();
      this.buffer = this.buffer.subarray(offset + len);
      if (opcode !== 1) continue;
      const message = JSON.parse(payload) as { id?: number; result?: unknown; error?: unknown };
      if (message.id !== undefined) this.waiting.get(message.id)?.(message.error ? Promise.reject(new Error(JSON.stringify(message.error))) : message.result);
    }
  }

  call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(frame(JSON.stringify({ id, method, params })));
    });
  }

  /** Full GC (twice, so finalizers' garbage goes too), then the process's own memory figures. */
  async heapAfterGC(): Promise<HeapFigures> {
    await this.call('HeapProfiler.collectGarbage');
    await this.call('HeapProfiler.collectGarbage');
    const reply = (await this.call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } };
    return JSON.parse(reply.result.value) as HeapFigures;
  }

  close(): void {
    this.socket.destroy();
  }
}

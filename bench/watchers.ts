// One process of watchers for `npm run bench`: opens <count> HTTP/1.1 watches over HTTPS, prints
// "ready" once every one has its 200, then, for each event, the wall-clock time it reached each
// watcher: one JSON line {"name", "times"} per object once all watchers have seen it.
//
// Each watch is a bare TLS socket with its request written by hand and its chunked answer read by
// hand, and the time is taken when the socket's data arrives, before any parsing: node's HTTP
// client (a parser, a response stream and its events per chunk) cost these processes half again
// as much CPU per event, on the same two cores as the server, so the figure measured this load
// generator's own work as much as the server's delivery.
// Usage: watchers.ts <port> <ca file> <token> <path> <count>
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';

const [port, caFile, token, path, countArg] = process.argv.slice(2);
const count = Number(countArg);
const ca = readFileSync(caFile);
const now = () => performance.timeOrigin + performance.now();
const seen = new Map<string, number[]>();
const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\n\r\n`;
let ready = 0;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function arrived(name: string, at: number): void {
  const times = seen.get(name) ?? [];
  times.push(at);
  seen.set(name, times);
  if (times.length === count) {
    process.stdout.write(JSON.stringify({ name, times }) + '\n');
    seen.delete(name);
  }
}

/** One watch event (a line of JSON): an ADDED object is counted by its name. */
function event(line: string, at: number): void {
  if (!line.startsWith('{"type":"ADDED"')) return;
  const name = /"name":"([^"]+)"/.exec(line)?.[1];
  if (name) arrived(name, at);
}

function watch(): void {
  const socket = connect({ host: '127.0.0.1', port: Number(port), ca, ALPNProtocols: ['http/1.1'] }, () => socket.write(request));
  let head = true;
  // Bytes not yet parsed (latin1, one char per byte, so chunk sizes count characters), the size of
  // the chunk being read (-1 between chunks), and the event line the chunks have made so far.
  let pending = '';
  let chunk = -1;
  let line = '';
  socket.on('data', (data: Buffer) => {
    const at = now();
    pending += data.toString('latin1');
    if (head) {
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = pending.slice(0, pending.indexOf('\r\n'));
      if (!status.startsWith('HTTP/1.1 200 ')) fail(`watch answered ${status}`);
      if (!/\r\ntransfer-encoding: chunked\r\n/i.test(pending.slice(0, end + 2))) fail('watch answered without chunked encoding');
      pending = pending.slice(end + 4);
      head = false;
      if (++ready === count) process.stdout.write('ready\n');
    }
    for (;;) {
      if (chunk < 0) {
        const sizeEnd = pending.indexOf('\r\n');
        if (sizeEnd < 0) return;
        const size = pending.slice(0, sizeEnd);
        chunk = parseInt(size, 16);
        // A size that is not one would otherwise leave `pending` as it is and spin here for good.
        if (!/^[0-9a-f]+$/i.test(size)) fail(`watch answered a chunk size of ${JSON.stringify(size.slice(0, 20))}`);
        if (chunk === 0) fail('a watch ended early');
        pending = pending.slice(sizeEnd + 2);
      }
      if (pending.length < chunk + 2) return;
      line += pending.slice(0, chunk);
      pending = pending.slice(chunk + 2);
      chunk = -1;
      for (let newline; (newline = line.indexOf('\n')) >= 0; line = line.slice(newline + 1)) event(line.slice(0, newline), at);
    }
  });
  socket.on('error', (err) => fail(`watch failed: ${err.message}`));
  socket.on('end', () => fail('a watch ended early'));
}

for (let i = 0; i < count; i++) watch();

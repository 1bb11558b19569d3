// One process of watchers for `npm run bench`: opens <count> HTTP/1.1 watches over HTTPS, prints
// "ready" once every one has its 200, then, for each event, the wall-clock time it reached each
// watcher: one JSON line {"name", "times"} per object once all watchers have seen it. The time is
// taken as the data arrives, before any parsing, so the figure is delivery, not this process's work.
// Usage: watchers.ts <port> <ca file> <token> <path> <count>
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

const [port, caFile, token, path, countArg] = process.argv.slice(2);
const count = Number(countArg);
const ca = readFileSync(caFile);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const now = () => performance.timeOrigin + performance.now();
const seen = new Map<string, number[]>();
let ready = 0;

function arrived(name: string, at: number): void {
  const times = seen.get(name) ?? [];
  times.push(at);
  seen.set(name, times);
  if (times.length === count) {
    process.stdout.write(JSON.stringify({ name, times }) + '\n');
    seen.delete(name);
  }
}

for (let i = 0; i < count; i++) {
  request({ host: '127.0.0.1', port: Number(port), path, ca, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
    if (res.statusCode !== 200) {
      console.error(`watch answered ${res.statusCode}`);
      process.exit(1);
    }
    if (++ready === count) process.stdout.write('ready\n');
    let pending = '';
    res.on('data', (chunk: Buffer) => {
      const at = now();
      pending += chunk.toString();
      let newline;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const event = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        const name = /"name":"([^"]+)"/.exec(event)?.[1];
        if (name && event.startsWith('{"type":"ADDED"')) arrived(name, at);
      }
    });
    res.on('end', () => {
      console.error('a watch ended early');
      process.exit(1);
    });
  })
    .on('error', (err) => {
      console.error(`watch failed: ${err.message}`);
      process.exit(1);
    })
    .end();
}

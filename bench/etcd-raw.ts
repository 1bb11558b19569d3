// The baseline of CREATE on etcd: puts of a value of the same bytes as a stored ConfigMap, under
// fresh keys, through the etcd3 client (the server speaks to etcd through its own,
// runtime/storage/etcd-client/), <concurrency> in flight, for <seconds>.
// A Node process by nature (the measure is "what etcd3 in Node can do"), run apart from the bench
// as the server is. Prints {"perSecond", "errors"} as one JSON line.
// Usage: etcd-raw.ts <endpoint> <value bytes> <concurrency> <seconds> <key prefix>
import { Etcd3 } from 'etcd3';

const [endpoint, bytes, concurrency, seconds, prefix] = process.argv.slice(2);
const client = new Etcd3({ hosts: [endpoint] });
const value = Buffer.alloc(Number(bytes), 'x');
// One put first, so the connection exists before the clock starts (the server's does too).
await client.put(`${prefix}/warm`).value(value);
let next = 0;
let done = 0;
let errors = 0;
const start = performance.now();
const end = start + Number(seconds) * 1000;
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (performance.now() < end) {
      try {
        await client.put(`${prefix}/${next++}`).value(value);
        done++;
      } catch {
        errors++;
      }
    }
  }),
);
const elapsed = (performance.now() - start) / 1000;
process.stdout.write(JSON.stringify({ perSecond: done / elapsed, errors }) + '\n');
client.close();

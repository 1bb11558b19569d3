// The baseline of CREATE on etcd: puts of a value of the same bytes as a stored ConfigMap, under
// fresh keys, through the etcd3 client (the server speaks to etcd through its own,
// runtime/storage/etcd-client/), <concurrency> in flight: <warm seconds> untimed, then <seconds>
// timed. A Node process by nature (the measure is "what etcd3 in Node can do"), run apart from the
// bench as the server is; the untimed puts come first because a fresh process puts a third fewer
// per second until V8 has compiled the client's path, and the server is timed warm too.
// Prints {"perSecond", "errors"} of the timed part as one JSON line.
// Usage: etcd-raw.ts <endpoint> <value bytes> <concurrency> <warm seconds> <seconds> <key prefix>
import { Etcd3 } from 'etcd3';

const [endpoint, bytes, concurrency, warmSeconds, seconds, prefix] = process.argv.slice(2);
const client = new Etcd3({ hosts: [endpoint] });
const value = Buffer.alloc(Number(bytes), 'x');
let next = 0;

/** Puts under fresh keys for `ms`, `concurrency` at a time: how many were done and how many failed. */
async function putFor(ms: number): Promise<{ done: number; errors: number; elapsed: number }> {
  let done = 0;
  let errors = 0;
  const start = performance.now();
  const end = start + ms;
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
  return { done, errors, elapsed: (performance.now() - start) / 1000 };
}

await putFor(Number(warmSeconds) * 1000);
const { done, errors, elapsed } = await putFor(Number(seconds) * 1000);
process.stdout.write(JSON.stringify({ perSecond: done / elapsed, errors }) + '\n');
client.close();

// A child process for the SIGKILL durability test: writes keys to the sqlite store one after
// another and prints each key (with its revision) only after the write was acknowledged.
// It never stops by itself; the test kills it.

import { SqliteStorage } from '../../runtime/storage/sqlite.js';

const [path, prefix = '/crash/'] = process.argv.slice(2);
if (!path) throw new Error('usage: sqlite-writer.ts <file> [prefix]');
const store = new SqliteStorage(path);
const counter = await store.create(`${prefix}counter`, '0').catch(() => store.get(`${prefix}counter`));
let current = counter!;
for (let i = 0; ; i++) {
  const created = await store.create(`${prefix}k${i}`, JSON.stringify({ i }));
  current = await store.update(`${prefix}counter`, String(i + 1), current.modRevision);
  process.stdout.write(`${created.key} ${created.modRevision} ${current.modRevision}\n`);
}

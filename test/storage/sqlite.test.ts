import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../../runtime/storage/sqlite.js';
import { rejectsWith, runStorageConformance } from './conformance.js';
import { recordWatch } from './watch-recorder.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-storage-'));
let files = 0;
const freshPath = () => join(dir, `state-${files++}.sqlite`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runStorageConformance('sqlite', async () => new SqliteStorage(freshPath()));

describe('sqlite storage on disk', () => {
  it('keeps data across close and reopen, with revisions continuing to increase', async () => {
    const path = freshPath();
    const first = new SqliteStorage(path);
    const a = await first.create('/r/a', 'a1');
    await first.update('/r/a', 'a2', a.modRevision);
    await first.create('/r/b', 'b1');
    const gone = await first.create('/r/gone', 'x');
    const deleted = await first.delete('/r/gone');
    await first.close();

    const second = new SqliteStorage(path);
    expect(await second.currentRevision()).toBe(deleted.modRevision);
    expect((await second.list('/r/')).items.map((kv) => [kv.key, kv.value])).toEqual([
      ['/r/a', 'a2'],
      ['/r/b', 'b1'],
    ]);
    expect(await second.get('/r/gone', gone.modRevision)).toMatchObject({ value: 'x' });
    const next = await second.create('/r/c', 'c1');
    expect(next.modRevision).toBe(deleted.modRevision + 1);
    await second.close();
  });

  it('keeps the compacted revision across reopen, and never reuses a compacted-away revision', async () => {
    const path = freshPath();
    const first = new SqliteStorage(path);
    await first.create('/r/a', 'a');
    const last = await first.delete('/r/a');
    await first.compact(last.modRevision);
    await first.close();

    const second = new SqliteStorage(path);
    expect(await second.oldestRevision()).toBe(last.modRevision + 1);
    expect(await second.currentRevision()).toBe(last.modRevision);
    await rejectsWith(second.get('/r/a', last.modRevision), 'Compacted');
    expect((await second.create('/r/a', 'again')).modRevision).toBe(last.modRevision + 1);
    await second.close();
  });

  it('replays a watch from a revision written before the reopen', async () => {
    const path = freshPath();
    const first = new SqliteStorage(path);
    const a = await first.create('/r/a', 'a1');
    const a2 = await first.update('/r/a', 'a2', a.modRevision);
    await first.close();

    const second = new SqliteStorage(path);
    const rec = recordWatch(second, '/r/', { afterRevision: a.modRevision, prefix: true });
    const b = await second.create('/r/b', 'b1');
    const events = await rec.untilEvents(2);
    expect(events).toEqual([
      { type: 'put', kv: a2, prevKv: a, created: false },
      { type: 'put', kv: b, created: true },
    ]);
    rec.watcher.stop();
    await second.close();
  });

  it('reports a file that is not a database as Unavailable', () => {
    const path = freshPath();
    writeFileSync(path, 'this is not a sqlite database, just text that is long enough to have a header'.repeat(20));
    expect(() => new SqliteStorage(path)).toThrow(expect.objectContaining({ name: 'StorageError', code: 'Unavailable' }));
  });

  it('refuses a second open of a file another store holds, with Unavailable', async () => {
    const path = freshPath();
    const owner = new SqliteStorage(path);
    await owner.create('/k', 'v');
    let error: unknown;
    try {
      const intruder = new SqliteStorage(path);
      await intruder.close();
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'StorageError', code: 'Unavailable' });
    expect((await owner.get('/k'))?.value).toBe('v');
    await owner.close();
  });

  it('compacts history older than the window on its own', async () => {
    const store = new SqliteStorage(freshPath(), { historyWindowMs: 20 });
    const a = await store.create('/h/a', '1');
    const b = await store.update('/h/a', '2', a.modRevision);
    while ((await store.oldestRevision()) <= b.modRevision) await new Promise((r) => setTimeout(r, 10));
    await rejectsWith(store.get('/h/a', a.modRevision), 'Compacted');
    expect(await store.get('/h/a')).toEqual(b);
    await store.close();
  });

  it('shows no read, list or watch a write before the write is acknowledged, while its WAL sync runs', async () => {
    const store = new SqliteStorage(freshPath());
    const base = await store.create('/v/base', 'b');
    const seenEarly: string[] = [];
    let acknowledged = false;
    const written = store.create('/v/new', 'n').then((kv) => {
      acknowledged = true;
      return kv;
    });
    // Poll on every turn of the event loop: the commit lands on one turn and its sync finishes on a later one.
    while (!acknowledged) {
      await new Promise((r) => setImmediate(r));
      if (acknowledged) break;
      if (await store.get('/v/new')) seenEarly.push('get');
      if ((await store.list('/v/')).items.length > 1) seenEarly.push('list');
      if ((await store.count('/v/')) > 1) seenEarly.push('count');
      if ((await store.currentRevision()) > base.modRevision) seenEarly.push('revision');
      const replay = recordWatch(store, '/v/', { prefix: true, afterRevision: base.modRevision });
      // A replay is delivered on a microtask; the sync can only finish on a later turn.
      await Promise.resolve();
      await Promise.resolve();
      if (replay.events.length > 0) seenEarly.push('watch');
      replay.watcher.stop();
    }
    const kv = await written;
    expect(seenEarly).toEqual([]);
    expect(await store.get('/v/new')).toEqual(kv);
    expect(await store.currentRevision()).toBe(kv.modRevision);
    await store.close();
  });

  it('acknowledges writes queued during a sync in a later batch, in order, and all of them at close', async () => {
    const path = freshPath();
    const store = new SqliteStorage(path);
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create(`/q/${i}`, String(i))));
    // Queued while the first batch of this round syncs: they must wait for it and still land in order.
    const second = Array.from({ length: 20 }, (_, i) => store.create(`/q/late-${i}`, String(i)));
    const closed = store.close();
    const late = await Promise.all(second);
    await closed;
    const revisions = [...first, ...late].map((kv) => kv.modRevision);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(40);
    const reopened = new SqliteStorage(path);
    expect((await reopened.list('/q/')).items).toHaveLength(40);
    await reopened.close();
  });

  it('fails only the refused writes of a batch: the others commit with consecutive revisions, and the refused leave nothing', async () => {
    const path = freshPath();
    const store = new SqliteStorage(path);
    const b = await store.create('/m/b', 'b1');
    const seen = recordWatch(store, '/m/', { afterRevision: b.modRevision, prefix: true });
    // Queued in one turn, so one transaction holds them all.
    const outcomes = await Promise.allSettled([
      store.create('/m/a', 'a1'),
      store.create('/m/a', 'a-again'),
      store.update('/m/b', 'b-stale', b.modRevision + 100),
      store.create('/m/c', 'c1'),
      store.delete('/m/missing'),
      store.update('/m/b', 'b2', b.modRevision),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.modRevision : (o.reason as { code: string }).code))).toEqual([
      b.modRevision + 1,
      'KeyExists',
      'Conflict',
      b.modRevision + 2,
      'KeyNotFound',
      b.modRevision + 3,
    ]);
    await seen.untilEvents(3);
    expect(seen.events.map((e) => [e.type, e.kv.key, e.kv.value, e.created])).toEqual([
      ['put', '/m/a', 'a1', true],
      ['put', '/m/c', 'c1', true],
      ['put', '/m/b', 'b2', false],
    ]);
    seen.watcher.stop();
    await store.close();
    const reopened = new SqliteStorage(path);
    expect(await reopened.currentRevision()).toBe(b.modRevision + 3);
    expect((await reopened.list('/m/')).items.map((kv) => [kv.key, kv.value, kv.modRevision])).toEqual([
      ['/m/a', 'a1', b.modRevision + 1],
      ['/m/b', 'b2', b.modRevision + 3],
      ['/m/c', 'c1', b.modRevision + 2],
    ]);
    expect(await reopened.get('/m/missing')).toBeUndefined();
    await reopened.close();
  });

  it('answers batches whose syncs overlap in commit order, a refusal after the writes queued before it', async () => {
    const path = freshPath();
    const store = new SqliteStorage(path);
    const answered: string[] = [];
    const track = (label: string, write: Promise<{ modRevision: number }>) =>
      write.then(
        (kv) => answered.push(`${label}@${kv.modRevision}`),
        (e: { code: string }) => answered.push(`${label}:${e.code}`),
      );
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const seen = recordWatch(store, '/o/', { afterRevision: await store.currentRevision(), prefix: true });
    // Each round is queued in its own turn, after the round before it was committed and its sync started.
    const rounds: Promise<unknown>[] = [];
    for (let round = 0; round < 4; round++) {
      rounds.push(...[0, 1, 2].map((i) => track(`r${round}-${i}`, store.create(`/o/r${round}-${i}`, String(i)))));
      await nextTurn();
    }
    // Refusals only (the keys were committed rounds ago): nothing of their own to sync.
    rounds.push(track('again', store.create('/o/r0-0', 'again')), track('stale', store.update('/o/r1-1', 'x', 1)));
    await nextTurn();
    rounds.push(track('last', store.create('/o/last', 'z')));
    await Promise.all(rounds);
    const revisions = answered.filter((a) => a.includes('@')).map((a) => Number(a.split('@')[1]));
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(answered.indexOf('again:KeyExists')).toBe(12);
    expect(answered.indexOf('stale:Conflict')).toBe(13);
    expect(answered[14]).toMatch(/^last@/);
    await seen.untilEvents(13);
    expect(seen.events.map((e) => e.kv.modRevision)).toEqual(revisions);
    seen.watcher.stop();
    await store.close();
    const reopened = new SqliteStorage(path);
    expect((await reopened.list('/o/')).items.map((kv) => kv.key)).toHaveLength(13);
    expect((await reopened.get('/o/r0-0'))?.value).toBe('0');
    await reopened.close();
  });

  it('keeps every acknowledged write when the writing process is killed with SIGKILL', async () => {
    const path = freshPath();
    const script = fileURLToPath(new URL('./sqlite-writer.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acknowledged: { key: string; revision: number; counterRevision: number }[] = [];
    let buffer = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      child.on('exit', () => reject(new Error(`writer exited early after ${acknowledged.length} writes`)));
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) {
          const [key, revision, counterRevision] = line.split(' ');
          acknowledged.push({ key: key!, revision: Number(revision), counterRevision: Number(counterRevision) });
        }
        if (acknowledged.length >= 200 && child.exitCode === null && !child.killed) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    expect(await exited).toBe('SIGKILL');

    const store = new SqliteStorage(path);
    const missing = [];
    for (const { key, revision } of acknowledged) {
      const kv = await store.get(key);
      if (kv?.modRevision !== revision) missing.push(key);
    }
    expect(missing).toEqual([]);
    const counter = await store.get('/crash/counter');
    expect(Number(counter!.value)).toBeGreaterThanOrEqual(acknowledged.length);
    const highest = await store.currentRevision();
    expect(highest).toBeGreaterThanOrEqual(acknowledged[acknowledged.length - 1]!.counterRevision);
    const after = await store.create('/crash/after', 'x');
    expect(after.modRevision).toBeGreaterThan(highest);
    await store.close();
  });
});

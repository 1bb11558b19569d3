// The objects this process just wrote, kept for the transient readers' decode of the change
// (runtime/registry/cacher/serialization-cache.ts): a reader is handed the written object only
// while its entry is kept, and each way an entry goes is shown here. A decode has parts of its
// own; the written object's parts are the write's. Fake timers from the start, so the one-second
// sweep runs only when a test moves the clock.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { resources } from '../../generated/registry.js';
import { Codec } from '../../runtime/registry/codec.js';
import { decodeFromCache, noteWritten } from '../../runtime/registry/cacher/serialization-cache.js';
import type { ResourceDefinition } from '../../runtime/registry/definition.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import type { KeyValue } from '../../runtime/storage/interface.js';

beforeAll(() => vi.useFakeTimers());
afterAll(() => vi.useRealTimers());

const codec = new Codec(resources.find((d) => d.group === '' && d.kind === 'ConfigMap') as ResourceDefinition);
let revision = 100;

/** Notes a write of a ConfigMap to `key` as DirectStorage does; the object and the KeyValue its change carries. */
function write(key: string, data: Record<string, string> = { k: 'v' }): { obj: KubeObject; kv: KeyValue } {
  const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key.split('/').at(-1), namespace: 'default' }, data };
  const value = codec.encode(obj);
  noteWritten(codec, key, value, obj);
  revision++;
  return { obj, kv: { key, value, modRevision: revision, createRevision: revision, version: 1 } as KeyValue };
}

/** Whether a transient reader of `kv` is handed the written object (its parts shared), not a decode. */
const handedWritten = (kv: KeyValue, obj: KubeObject) => {
  const seen = decodeFromCache(codec, kv, false);
  expect(seen).toEqual(codec.decode(kv.value, kv.modRevision));
  return seen.data === obj.data;
};

it('hands the written object once: the next reader decodes', () => {
  const { obj, kv } = write('/registry/configmaps/default/once');
  expect(handedWritten(kv, obj)).toBe(true);
  expect(handedWritten(kv, obj)).toBe(false);
});

it('forgets a write that a later write of the key replaced', () => {
  const first = write('/registry/configmaps/default/twice', { k: 'first' });
  const second = write('/registry/configmaps/default/twice', { k: 'second' });
  expect(handedWritten(first.kv, first.obj)).toBe(false);
  expect(handedWritten(second.kv, second.obj)).toBe(true);
});

it('keeps the 64 newest writes', () => {
  const writes = Array.from({ length: 65 }, (_, i) => write(`/registry/configmaps/default/many-${i}`));
  expect(handedWritten(writes[0]!.kv, writes[0]!.obj)).toBe(false);
  expect(handedWritten(writes[1]!.kv, writes[1]!.obj)).toBe(true);
  expect(handedWritten(writes[64]!.kv, writes[64]!.obj)).toBe(true);
});

it('does not note an object over 64 KiB', () => {
  const small = write('/registry/configmaps/default/small', { k: 'x'.repeat(60 * 1024) });
  const large = write('/registry/configmaps/default/large', { k: 'x'.repeat(65 * 1024) });
  expect(handedWritten(small.kv, small.obj)).toBe(true);
  expect(handedWritten(large.kv, large.obj)).toBe(false);
});

it('forgets what no reader took a second after the first write since the last sweep', () => {
  vi.advanceTimersByTime(1000); // the sweep the tests above armed
  const early = write('/registry/configmaps/default/early');
  vi.advanceTimersByTime(600);
  const late = write('/registry/configmaps/default/late');
  vi.advanceTimersByTime(400);
  // Swept together: the sweep runs a second after the first write that armed it.
  expect(handedWritten(early.kv, early.obj)).toBe(false);
  expect(handedWritten(late.kv, late.obj)).toBe(false);
  const after = write('/registry/configmaps/default/after');
  vi.advanceTimersByTime(999);
  expect(handedWritten(after.kv, after.obj)).toBe(true);
});

// Wire formats and patch engines under load: GET of one object and LIST of 1,000 as JSON,
// protobuf and CBOR over HTTPS, the in-process cost of encoding that list in each format (as a
// LIST from the watch cache hands it to the encoder, and as plain objects with no cache behind
// them), and server-side apply against JSON merge patch.
import { resources } from '../generated/registry.js';
import { encodeCBOR } from '../runtime/api/cbor.js';
import { encodeObject } from '../runtime/api/protobuf/envelope.js';
import { loadDescriptorRoot } from '../runtime/api/protobuf/descriptors.js';
import { encodeJSON } from '../runtime/api/serializers.js';
import { generatedPath } from '../runtime/generated-files.js';
import { listObjects } from '../runtime/registry/list.js';
import type { KubeObject } from '../runtime/registry/object.js';
import { ResourceRegistry } from '../runtime/registry/registry.js';
import { MemoryStorage } from '../runtime/storage/memory.js';
import { runLoad, send, type Client } from './load.js';

const FORMATS = [
  ['JSON', 'application/json'],
  ['protobuf', 'application/vnd.kubernetes.protobuf'],
  ['CBOR', 'application/cbor'],
] as const;

export interface FormatRow {
  format: string;
  getPerSecond: number;
  listPerSecond: number;
  listBytes: number;
  /** Encoding a LIST's 1,000 objects as the watch cache serves them (a new decode each time). */
  encodeListMs: number;
  /** Encoding the same list as plain objects no cache knows (every byte computed afresh). */
  encodeColdListMs: number;
}

export interface FormatResults {
  rows: FormatRow[];
  applyPerSecond: number;
  mergePatchPerSecond: number;
  errors: number;
}

const NS = 'bench-formats';
const LIST_SIZE = 1000;
/** Lists decoded ahead for the cached measure, so each timed encode gets objects of its own. */
const SERVED_LISTS = 24;

const itemBody = (i: number) => ({ metadata: { name: `cm-${i}`, labels: { app: 'bench', index: String(i) } }, data: { key: `value-${i}`, other: 'x'.repeat(64) } });

/**
 * The list as a LIST request gets it from the watch cache, in this process: the same 1,000
 * objects in a memory store behind a cacher, listed afresh SERVED_LISTS times.
 */
async function servedLists(): Promise<{ lists: KubeObject[]; close(): void }> {
  const registry = new ResourceRegistry(new MemoryStorage(), resources);
  await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: NS } });
  const store = registry.storeFor('', 'v1', 'configmaps')!;
  for (let i = 0; i < LIST_SIZE; i++) await store.create(NS, itemBody(i), { fieldManager: 'bench' });
  const lists: KubeObject[] = [];
  for (let i = 0; i < SERVED_LISTS; i++) lists.push((await listObjects(store, NS, {})) as unknown as KubeObject);
  if ((lists[0].items as unknown[]).length !== LIST_SIZE) throw new Error('the in-process list is short');
  return { lists, close: () => registry.close() };
}

/** Median milliseconds of `fn` over a few runs, after a warm-up. */
function timeIt(fn: () => unknown, runs = 15): number {
  for (let i = 0; i < 3; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

export async function measureFormats(client: Client, port: number, durationMs: number, concurrency: number): Promise<FormatResults> {
  let errors = 0;
  const ok = (status: number, expected: number) => status === expected || (errors++, false);
  ok((await send(client, port, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: NS } }))).status, 201);
  const base = `/api/v1/namespaces/${NS}/configmaps`;
  const creates = Array.from({ length: LIST_SIZE }, (_, i) => i);
  await runLoad(60_000, concurrency, async (i) => {
    if (i >= creates.length) return { status: 201 };
    return send(client, port, 'POST', base, JSON.stringify(itemBody(i)));
  }, 201).then(() => undefined);

  const listJson = JSON.parse((await send(client, port, 'GET', base)).body) as Record<string, unknown>;
  if ((listJson.items as unknown[]).length !== LIST_SIZE) throw new Error(`expected ${LIST_SIZE} objects, listed ${(listJson.items as unknown[]).length}`);
  const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
  // The server's own encoders, over a list as it comes from the watch cache and over plain objects.
  const encoders: Record<string, (list: Record<string, unknown>) => unknown> = {
    JSON: (list) => encodeJSON(list),
    protobuf: (list) => encodeObject(root, 'k8s.io.api.core.v1.ConfigMapList', list),
    CBOR: (list) => encodeCBOR(list),
  };
  const served = await servedLists();
  let next = 0;
  const servedList = () => served.lists[next++ % SERVED_LISTS] as Record<string, unknown>;

  const rows: FormatRow[] = [];
  for (const [format, accept] of FORMATS) {
    const headers = { accept };
    const get = await runLoad(durationMs / 2, concurrency, () => send(client, port, 'GET', `${base}/cm-0`, undefined, headers), 200);
    const list = await runLoad(durationMs / 2, Math.min(concurrency, 4), () => send(client, port, 'GET', base, undefined, headers), 200);
    const sample = await send(client, port, 'GET', base, undefined, headers);
    ok(sample.status, 200);
    errors += get.errors + list.errors;
    rows.push({
      format,
      getPerSecond: get.perSecond,
      listPerSecond: list.perSecond,
      listBytes: sample.bytes,
      encodeListMs: timeIt(() => encoders[format](servedList())),
      encodeColdListMs: timeIt(() => encoders[format](listJson)),
    });
  }
  served.close();

  // Each request patches another of the 1,000 objects: the rate is the engines', not one key's queue.
  const name = (i: number) => `cm-${i % LIST_SIZE}`;
  const merge = await runLoad(durationMs / 2, concurrency, (i) =>
    send(client, port, 'PATCH', `${base}/${name(i)}`, JSON.stringify({ data: { key: `merge-${i}` } }), { 'content-type': 'application/merge-patch+json' }), 200);
  const apply = await runLoad(durationMs / 2, concurrency, (i) =>
    send(client, port, 'PATCH', `${base}/${name(i)}?fieldManager=bench&force=true`,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name(i) }, data: { key: `apply-${i}` } }),
      { 'content-type': 'application/apply-patch+yaml' }), 200);
  errors += merge.errors + apply.errors;
  return { rows, applyPerSecond: apply.perSecond, mergePatchPerSecond: merge.perSecond, errors };
}

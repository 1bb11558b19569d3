// Wire formats and patch engines under load: GET of one object and LIST of 1,000 as JSON,
// protobuf and CBOR over HTTPS, the in-process cost of encoding that list in each format, and
// server-side apply against JSON merge patch.
import { encodeCBOR } from '../runtime/api/cbor.js';
import { encodeObject } from '../runtime/api/protobuf/envelope.js';
import { loadDescriptorRoot } from '../runtime/api/protobuf/descriptors.js';
import { generatedPath } from '../runtime/generated-files.js';
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
  encodeListMs: number;
}

export interface FormatResults {
  rows: FormatRow[];
  applyPerSecond: number;
  mergePatchPerSecond: number;
  errors: number;
}

const NS = 'bench-formats';
const LIST_SIZE = 1000;

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
    const body = { metadata: { name: `cm-${i}`, labels: { app: 'bench', index: String(i) } }, data: { key: `value-${i}`, other: 'x'.repeat(64) } };
    return send(client, port, 'POST', base, JSON.stringify(body));
  }, 201).then(() => undefined);

  const listJson = JSON.parse((await send(client, port, 'GET', base)).body) as Record<string, unknown>;
  if ((listJson.items as unknown[]).length !== LIST_SIZE) throw new Error(`expected ${LIST_SIZE} objects, listed ${(listJson.items as unknown[]).length}`);
  const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
  const encoders: Record<string, () => unknown> = {
    JSON: () => JSON.stringify(listJson),
    protobuf: () => encodeObject(root, 'k8s.io.api.core.v1.ConfigMapList', listJson),
    CBOR: () => encodeCBOR(listJson),
  };

  const rows: FormatRow[] = [];
  for (const [format, accept] of FORMATS) {
    const headers = { accept };
    const get = await runLoad(durationMs / 2, concurrency, () => send(client, port, 'GET', `${base}/cm-0`, undefined, headers), 200);
    const list = await runLoad(durationMs / 2, Math.min(concurrency, 4), () => send(client, port, 'GET', base, undefined, headers), 200);
    const sample = await send(client, port, 'GET', base, undefined, headers);
    ok(sample.status, 200);
    errors += get.errors + list.errors;
    rows.push({ format, getPerSecond: get.perSecond, listPerSecond: list.perSecond, listBytes: sample.bytes, encodeListMs: timeIt(encoders[format]) });
  }

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

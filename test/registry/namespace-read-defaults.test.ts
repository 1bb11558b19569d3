// kube-apiserver's storage codec runs the v1 defaulters on what it decodes, so a namespace stored
// without the kubernetes.io/metadata.name label (written before the label rule, or straight into
// storage) is read with it, and with phase Active. GET, LIST (also by that label) and WATCH show
// it, from the watch cache and from storage alike. Other kinds are read as stored.

import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { getObject } from '../../runtime/registry/get.js';
import { listObjects } from '../../runtime/registry/list.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { watchObjects } from '../../runtime/registry/watch.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';

const LABEL = 'kubernetes.io/metadata.name';
const labelsOf = (o: KubeObject | undefined) => (o?.metadata as { labels?: Record<string, string> } | undefined)?.labels;
let registry: ResourceRegistry | undefined;
afterEach(() => registry?.close());

async function setUp(watchCache: boolean, stored: Record<string, string>) {
  const storage = new MemoryStorage();
  for (const [key, value] of Object.entries(stored)) await storage.create(key, value);
  registry = new ResourceRegistry(storage, resources, watchCache ? {} : { watchCache: false });
  await registry.cacher?.waitUntilReady();
  return { namespaces: registry.storeFor('', 'v1', 'namespaces')!, configmaps: registry.storeFor('', 'v1', 'configmaps')! };
}

const legacy = JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'legacy', labels: { team: 'a' } }, spec: { finalizers: ['kubernetes'] } });
const mislabelled = JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'other', labels: { [LABEL]: 'wrong' } }, status: { phase: 'Terminating' } });
const configMap = JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm', namespace: 'legacy' } });

describe.each([
  ['from the watch cache', true],
  ['from storage', false],
])('a namespace stored without its name label, read %s', (_name, watchCache) => {
  it.each([
    ['no label, no status', 'legacy', { team: 'a', [LABEL]: 'legacy' }, 'Active'],
    ['a wrong label and a phase of its own', 'other', { [LABEL]: 'other' }, 'Terminating'],
  ])('%s: GET, LIST and WATCH show the label and a phase', async (_case, name, labels, phase) => {
    const { namespaces } = await setUp(watchCache, { '/registry/namespaces/legacy': legacy, '/registry/namespaces/other': mislabelled });
    const got = await getObject(namespaces, undefined, name, watchCache ? { resourceVersion: '0' } : {});
    expect(labelsOf(got)).toEqual(labels);
    expect((got.status as { phase?: string }).phase).toBe(phase);

    const listed = await listObjects(namespaces, undefined, {});
    expect(labelsOf(listed.items.find((i) => (i.metadata as { name: string }).name === name))).toEqual(labels);
    const selected = await listObjects(namespaces, undefined, { labelSelector: `${LABEL}=${name}` });
    expect(selected.items.map((i) => (i.metadata as { name: string }).name)).toEqual([name]);

    const stream = await watchObjects(namespaces, undefined, { resourceVersion: '0', labelSelector: `${LABEL}=${name}` });
    const first = await stream.next();
    stream.stop();
    expect(first.value?.type).toBe('ADDED');
    expect(labelsOf(first.value?.object as KubeObject)).toEqual(labels);
  });

  it('other kinds are read as stored (a ConfigMap gets no label)', async () => {
    const { configmaps } = await setUp(watchCache, { '/registry/configmaps/legacy/cm': configMap });
    expect(labelsOf(await getObject(configmaps, 'legacy', 'cm'))).toBeUndefined();
  });
});

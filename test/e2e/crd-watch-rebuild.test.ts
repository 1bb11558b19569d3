// Open watches of custom resources across changes of their CRD, as kube-apiserver 1.33's
// crdHandler handles them (apiextensions-apiserver pkg/apiserver/customresource_handler.go:
// updateCustomResourceDefinition, removeStorage_locked, tearDown). A change of the CRD's spec
// (schema, versions, subresources, columns, ...) or of its accepted names builds new serving
// info and tears the old one down a second later (and once the requests in flight on it are
// done): its cacher is destroyed, so each watch served from it just ends (no ERROR event) and
// the client relists, seeing the objects under the new rules. A change elsewhere (labels, status conditions) is
// ignored and the watches go on.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { openWatch, summary, type WatchConnection } from '../support/watch-client.js';

type Obj = Record<string, any>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'rebuild.example.com';

const crd = (plural: string, kind: string): Obj => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural, kind },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } } } } },
      },
    ],
  },
});

describe('watches of custom resources when their CRD changes', () => {
  let server: RunningServer;
  let creds: Credentials;

  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  const send = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Obj }> => {
    const res = await call(server.url, path, creds, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: res.json<Obj>() };
  };

  async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
    for (const end = Date.now() + 10_000; !(await probe()); await new Promise((r) => setTimeout(r, 25))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    }
  }

  /** GET, change, PUT the CRD; again on a conflict with the controllers' status writes. */
  async function updateCRD(name: string, change: (crd: Obj) => void): Promise<void> {
    for (;;) {
      const current = structuredClone((await send('GET', `${CRDS}/${name}`)).body);
      change(current);
      const res = await send('PUT', `${CRDS}/${name}`, current);
      if (res.status === 200) return;
      expect(res.status).toBe(409);
    }
  }

  /** Creates a CRD and waits until it is served: every CRD event before it has been handled too. */
  async function establish(plural: string, kind: string): Promise<string> {
    expect((await send('POST', CRDS, crd(plural, kind))).status).toBe(201);
    const base = `/apis/${GROUP}/v1/namespaces/default/${plural}`;
    await until(`${plural} served`, async () => (await send('GET', base)).status === 200);
    return base;
  }

  const widget = (name: string, spec: Obj = {}): Obj => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec });

  async function watchFrom(base: string): Promise<WatchConnection> {
    const rv = (await send('GET', base)).body.metadata.resourceVersion;
    const watch = await openWatch(server.url, `${base}?watch=true&resourceVersion=${rv}`, creds);
    expect(watch.status).toBe(200);
    return watch;
  }

  it('ends them on a change of the spec, keeps them on other changes, and a relist sees the new rules', async () => {
    const base = await establish('widgets', 'Widget');
    const name = `widgets.${GROUP}`;
    expect((await send('POST', base, widget('before', { size: 1 }))).status).toBe(201);
    const watch = await watchFrom(base);
    const otherBase = await establish('gadgets', 'Gadget');
    const otherWatch = await watchFrom(otherBase);

    // A label is no change of the serving info: once a later CRD is served, the label change has
    // been handled, and the watch still delivers.
    await updateCRD(name, (c) => (c.metadata.labels = { team: 'a' }));
    await establish('sprockets', 'Sprocket');
    expect((await send('POST', base, widget('after-label'))).status).toBe(201);
    expect(summary(await watch.until((e) => e.object.metadata?.name === 'after-label'))).toEqual(['ADDED after-label']);

    // A schema change (a default for color) ends the watch: the stream ends with no ERROR event.
    await updateCRD(name, (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color.default = 'blue'));
    const rest = await watch.until(() => false);
    expect(rest.filter((e) => e.type === 'ERROR')).toEqual([]);

    // The client relists and sees the stored objects under the new schema (defaulted on read).
    const relisted = await send('GET', base);
    expect(relisted.body.items.map((i: Obj) => [i.metadata.name, i.spec.color])).toEqual([
      ['after-label', 'blue'],
      ['before', 'blue'],
    ]);
    // A watch opened on the new serving info goes on and sees objects under the new rules.
    const again = await watchFrom(base);
    expect((await send('POST', base, widget('after-schema'))).status).toBe(201);
    const [added] = await again.until((e) => e.object.metadata?.name === 'after-schema');
    expect(added.object.spec).toEqual({ color: 'blue' });
    again.close();

    // The other CRD's watch was never ended.
    expect((await send('POST', otherBase, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g1' } })).status).toBe(201);
    expect(summary(await otherWatch.until((e) => e.object.metadata?.name === 'g1'))).toEqual(['ADDED g1']);
    otherWatch.close();
  });

  it('ends them on a change of printer columns or the accepted names (a new short name)', async () => {
    const base = await establish('bolts', 'Bolt');
    const name = `bolts.${GROUP}`;
    const columns = await watchFrom(base);
    await updateCRD(name, (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }]));
    expect((await columns.until(() => false)).filter((e) => e.type === 'ERROR')).toEqual([]);

    const names = await watchFrom(base);
    await updateCRD(name, (c) => (c.spec.names.shortNames = ['bl']));
    expect((await names.until(() => false)).filter((e) => e.type === 'ERROR')).toEqual([]);
    const discovery = await send('GET', `/apis/${GROUP}/v1`);
    expect(discovery.body.resources.find((r: Obj) => r.name === 'bolts').shortNames).toEqual(['bl']);
  });
});

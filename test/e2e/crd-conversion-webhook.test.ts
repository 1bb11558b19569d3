// A CRD with `conversion.strategy: Webhook`, served by the real server against a real HTTPS
// webhook on loopback with its own CA: objects are stored in the storage version, converted by
// the webhook for every read and write of another version (create, get, list, watch, update),
// and a webhook that fails makes those requests fail with kube's Status while the storage
// version keeps working and nothing is stored wrongly.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConversionWebhook, type ConversionWebhookServer } from '../support/conversion-webhook-server.js';
import { createCRD } from '../support/crds.js';
import { useMemoryServer } from '../support/memory-server.js';

type JsonObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const server = useMemoryServer();
let hook: ConversionWebhookServer;

beforeAll(async () => {
  hook = await startConversionWebhook();
});
afterAll(() => hook?.close());

const GROUP = 'conv.example.com';
const v1 = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const v2 = `/apis/${GROUP}/v2/namespaces/default/widgets`;

function widgetCRD(url: string, caBundle: string): JsonObject {
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v2', served: true, storage: false, schema },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url, caBundle } } },
    },
  };
}

describe('conversion webhooks of custom resources', () => {
  it('converts a create through another version to the storage version and back', async () => {
    await createCRD(server, widgetCRD(hook.url, hook.caBundle), v2);
    hook.received.length = 0;
    const created = await server.send<JsonObject>('POST', v2, { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'a' }, spec: { size: 1 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.apiVersion).toBe(`${GROUP}/v2`);
    // Stored by way of the webhook (v2 to v1), answered by way of it again (v1 to v2).
    expect(created.body.spec).toEqual({ size: 1, from: `${GROUP}/v1` });
    expect(hook.received.map((r) => (r.body.request as JsonObject).desiredAPIVersion)).toEqual([`${GROUP}/v1`, `${GROUP}/v2`]);

    const stored = await server.send<JsonObject>('GET', `${v1}/a`);
    expect(stored.body.apiVersion).toBe(`${GROUP}/v1`);
    expect(stored.body.spec).toEqual({ size: 1, from: `${GROUP}/v2` });
    expect(stored.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it('converts reads of the other version: get, a list in one review, and watch events', async () => {
    expect((await server.send('POST', v1, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'b' }, spec: { size: 2 } })).status).toBe(201);
    hook.received.length = 0;
    const got = await server.send<JsonObject>('GET', `${v2}/b`);
    expect(got.body).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { size: 2, from: `${GROUP}/v1` } });

    hook.received.length = 0;
    const list = await server.send<JsonObject>('GET', v2);
    expect(list.status).toBe(200);
    expect(list.body.apiVersion).toBe(`${GROUP}/v2`);
    expect(list.body.items.map((o: JsonObject) => [o.metadata.name, o.spec.from])).toEqual([
      ['a', `${GROUP}/v1`],
      ['b', `${GROUP}/v1`],
    ]);
    expect(hook.received).toHaveLength(1);
    expect((hook.received[0].body.request as JsonObject).objects).toHaveLength(2);

    const watch = await server.raw('GET', `${v2}?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Db`);
    const events = watch.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e: JsonObject) => [e.type, e.object.apiVersion, e.object.spec.from])).toEqual([['ADDED', `${GROUP}/v2`, `${GROUP}/v1`]]);
  });

  it('converts an update of the other version, validating it there and storing it converted', async () => {
    const current = (await server.send<JsonObject>('GET', `${v2}/b`)).body;
    const updated = await server.send<JsonObject>('PUT', `${v2}/b`, { ...current, spec: { size: 5 } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.spec).toEqual({ size: 5, from: `${GROUP}/v1` });
    expect((await server.send<JsonObject>('GET', `${v1}/b`)).body.spec).toEqual({ size: 5, from: `${GROUP}/v2` });
  });

  it('deletes through the other version', async () => {
    expect((await server.send('POST', v1, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'd' }, spec: {} })).status).toBe(201);
    const deleted = await server.send<JsonObject>('DELETE', `${v2}/d`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await server.send('GET', `${v1}/d`)).status).toBe(404);
  });

  it('fails requests of the other version with kube\'s Status when the webhook fails, and stores nothing', async () => {
    hook.answer((review) => ({ body: { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: (review.request as JsonObject).uid, result: { status: 'Failure', message: 'widgets are not convertible today' } } } }));
    const message = `conversion webhook for ${GROUP}/v1, Kind=Widget failed: widgets are not convertible today`;
    const get = await server.send<JsonObject>('GET', `${v2}/a`);
    expect(get.status).toBe(500);
    expect(get.body).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message });

    const create = await server.send<JsonObject>('POST', v2, { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'c' }, spec: {} });
    expect(create.status).toBe(500);
    expect(create.body.message).toBe(`conversion webhook for ${GROUP}/v2, Kind=Widget failed: widgets are not convertible today`);

    // The storage version needs no webhook: it still answers, and the refused create left nothing.
    const names = (await server.send<JsonObject>('GET', v1)).body.items.map((o: JsonObject) => o.metadata.name);
    expect(names).toEqual(['a', 'b']);

    hook.answer(() => ({ status: 200, body: 'not json at all' }));
    const garbage = await server.send<JsonObject>('GET', v2);
    expect(garbage.status).toBe(500);
    expect(garbage.body.message).toMatch(/^conversion webhook for conv\.example\.com\/v1, Kind=Widget(List)? failed: couldn't get version\/kind; json parse error: /);

    await hook.close();
    const down = await server.send<JsonObject>('GET', `${v2}/a`);
    expect(down.status).toBe(500);
    expect(down.body.message).toMatch(new RegExp(`^conversion webhook for ${GROUP}/v1, Kind=Widget failed: Post "${hook.url.replace(/[.?]/g, '\\$&')}\\?timeout=30s": `));
    expect((await server.send<JsonObject>('GET', `${v1}/a`)).status).toBe(200);
  });
});

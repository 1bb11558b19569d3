// Conversion webhooks of custom resources, against a real HTTPS webhook on loopback with its own
// CA: the ConversionReview kube sends (v1, or v1beta1 when only it is listed), the checks kube
// makes on the answer, and kube's messages for a webhook that is down, hangs, answers garbage,
// the wrong count, the wrong uid or the wrong apiVersion. Every failure is a 500 Status.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { ConversionWebhook, convertObjects, webhookURL, type CRDConversionWebhook } from '../../runtime/registry/custom-resources/conversion-webhook.js';
import { convertReview, startConversionWebhook, type ConversionWebhookServer } from '../support/conversion-webhook-server.js';
import { freePort } from '../support/ports.js';

type JsonObject = Record<string, unknown>;

let hook: ConversionWebhookServer;
const open: ConversionWebhook[] = [];

beforeAll(async () => {
  hook = await startConversionWebhook();
});
afterAll(async () => {
  for (const w of open) w.close();
  await hook.close();
});

function webhook(overrides: Partial<CRDConversionWebhook> = {}, timeoutMs?: number): ConversionWebhook {
  const w = new ConversionWebhook(
    { crdName: 'widgets.stable.example.com', clientConfig: { url: hook.url, caBundle: hook.caBundle }, conversionReviewVersions: ['v1', 'v1beta1'], ...overrides },
    timeoutMs === undefined ? {} : { timeoutMs },
  );
  open.push(w);
  return w;
}

const widget = (name: string, version = 'v1', extra: JsonObject = {}): JsonObject => ({
  apiVersion: `stable.example.com/${version}`,
  kind: 'Widget',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', labels: { app: 'w' } },
  spec: { size: 3 },
  ...extra,
});

async function failureOf(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected the conversion to fail');
}

function answerWith(fn: (review: JsonObject, converted: JsonObject) => unknown, status = 200) {
  hook.answer((review) => ({ status, body: fn(review, convertReview(review)) }));
}

describe('conversion webhook requests', () => {
  it('posts a v1 ConversionReview with the objects not yet at the desired version and keeps the others', async () => {
    hook.answer(undefined);
    hook.received.length = 0;
    const objects = [widget('a', 'v1'), widget('b', 'v2'), widget('c', 'v1')];
    const out = await convertObjects(webhook(), objects, 'stable.example.com/v2');
    expect(hook.received).toHaveLength(1);
    const { url, body } = hook.received[0];
    expect(url).toBe('/convert?timeout=30s');
    expect(body.kind).toBe('ConversionReview');
    expect(body.apiVersion).toBe('apiextensions.k8s.io/v1');
    const request = body.request as JsonObject;
    expect(request.desiredAPIVersion).toBe('stable.example.com/v2');
    expect(String(request.uid)).toMatch(/^[0-9a-f-]{36}$/);
    expect((request.objects as JsonObject[]).map((o) => (o.metadata as JsonObject).name)).toEqual(['a', 'c']);
    expect(out.map((o) => [o.apiVersion, (o.spec as JsonObject).from ?? null])).toEqual([
      ['stable.example.com/v2', 'stable.example.com/v1'],
      ['stable.example.com/v2', null],
      ['stable.example.com/v2', 'stable.example.com/v1'],
    ]);
    expect(out[1]).toBe(objects[1]);
  });

  it('sends nothing when every object is at the desired version already', async () => {
    hook.received.length = 0;
    const objects = [widget('a', 'v2')];
    expect(await webhook().convert(objects, 'stable.example.com/v2')).toEqual(objects);
    expect(hook.received).toHaveLength(0);
  });

  it('uses v1beta1 when the CRD lists only it, and then does not check the uid, as kube does not', async () => {
    hook.received.length = 0;
    answerWith((_r, converted) => ({ ...converted, response: { ...(converted.response as JsonObject), uid: 'whatever' } }));
    const out = await webhook({ conversionReviewVersions: ['v1beta1'] }).convert([widget('a')], 'stable.example.com/v2');
    expect(hook.received[0].body.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
    expect(out[0].apiVersion).toBe('stable.example.com/v2');
  });

  it('keeps the original metadata, taking only labels and annotations from the webhook', async () => {
    answerWith((_r, converted) => {
      const response = converted.response as { convertedObjects: JsonObject[] };
      for (const o of response.convertedObjects) {
        o.metadata = { ...(o.metadata as JsonObject), resourceVersion: '999', generation: 42, labels: { app: 'w', converted: 'yes' }, annotations: { note: 'x' } };
      }
      return converted;
    });
    const [out] = await webhook().convert([widget('a')], 'stable.example.com/v2');
    expect(out.metadata).toEqual({ name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '7', labels: { app: 'w', converted: 'yes' }, annotations: { note: 'x' } });
  });

  it('resolves a service reference as kube\'s default resolver does', () => {
    expect(webhookURL({ service: { namespace: 'ops', name: 'conv', path: '/convert', port: 8443 } })).toEqual({
      url: new URL('https://conv.ops.svc:8443/convert'),
      serverName: 'conv.ops.svc',
    });
    expect(webhookURL({ service: { namespace: 'ops', name: 'conv' } }).url.href).toBe('https://conv.ops.svc/');
  });
});

describe('conversion webhook failures', () => {
  const GVK = 'stable.example.com/v1, Kind=Widget';

  it.each<[string, (review: JsonObject, converted: JsonObject) => unknown, string]>([
    ['the wrong uid', (_r, c) => ({ ...c, response: { ...(c.response as JsonObject), uid: 'nope' } }), `conversion webhook for ${GVK} failed: expected response.uid=`],
    ['no response', (_r, c) => ({ ...c, response: undefined }), `conversion webhook for ${GVK} failed: no response provided`],
    [
      'a v1beta1 answer to a v1 review',
      (_r, c) => ({ ...c, apiVersion: 'apiextensions.k8s.io/v1beta1' }),
      `conversion webhook for ${GVK} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`,
    ],
    ['a failure result with a message', (_r, c) => ({ ...c, response: { ...(c.response as JsonObject), result: { status: 'Failure', message: 'cannot convert size' } } }), `conversion webhook for ${GVK} failed: cannot convert size`],
    ['a failure result without one', (_r, c) => ({ ...c, response: { ...(c.response as JsonObject), result: { status: 'Failure' } } }), `conversion webhook for ${GVK} failed: response.result.status was 'Failure', not 'Success'`],
    ['too few objects', (_r, c) => ({ ...c, response: { ...(c.response as JsonObject), convertedObjects: [] } }), `conversion webhook for ${GVK} returned 0 objects, expected 1`],
    [
      'the wrong apiVersion',
      (_r, c) => {
        (c.response as { convertedObjects: JsonObject[] }).convertedObjects[0].apiVersion = 'stable.example.com/v3';
        return c;
      },
      `conversion webhook for ${GVK} returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v3)`,
    ],
    [
      'the wrong kind',
      (_r, c) => {
        (c.response as { convertedObjects: JsonObject[] }).convertedObjects[0].kind = 'Gadget';
        return c;
      },
      `conversion webhook for ${GVK} returned invalid object at index 0: invalid kind (expected Widget, received Gadget)`,
    ],
    [
      'a renamed object',
      (_r, c) => {
        const o = (c.response as { convertedObjects: JsonObject[] }).convertedObjects[0];
        o.metadata = { ...(o.metadata as JsonObject), name: 'other' };
        return c;
      },
      `conversion webhook for ${GVK} returned invalid object: must have the same name: a != other`,
    ],
    [
      'a bad label',
      (_r, c) => {
        const o = (c.response as { convertedObjects: JsonObject[] }).convertedObjects[0];
        o.metadata = { ...(o.metadata as JsonObject), labels: { 'bad key!': 'v' } };
        return c;
      },
      `conversion webhook for ${GVK} returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters`,
    ],
    [
      'a label that is not a string',
      (_r, c) => {
        const o = (c.response as { convertedObjects: JsonObject[] }).convertedObjects[0];
        o.metadata = { ...(o.metadata as JsonObject), labels: { n: 1 } };
        return c;
      },
      `conversion webhook for ${GVK} returned invalid metadata: metadata.labels[n] must be a string, but is int64 in converted object`,
    ],
    ['garbage', () => 'this is not json', `conversion webhook for ${GVK} failed: couldn't get version/kind; json parse error: invalid character 'h' in literal true (expecting 'r')`],
    ['JSON without a kind', () => ({ hello: 'world' }), `conversion webhook for ${GVK} failed: Object 'Kind' is missing in '{"hello":"world"}'`],
  ])('%s', async (_name, fn, message) => {
    answerWith(fn);
    const err = await failureOf(webhook().convert([widget('a')], 'stable.example.com/v2'));
    expect(err.code).toBe(500);
    expect(err.reason).toBe('');
    expect(err.message.startsWith(message)).toBe(true);
  });

  it('names the index in a list and the list kind', async () => {
    answerWith((_r, c) => {
      (c.response as { convertedObjects: JsonObject[] }).convertedObjects[1].apiVersion = 'stable.example.com/v1';
      return c;
    });
    const err = await failureOf(webhook().convert([widget('a'), widget('b')], 'stable.example.com/v2'));
    expect(err.message).toBe(
      'conversion webhook for stable.example.com/v1, Kind=WidgetList returned invalid converted object at index 1: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)',
    );
  });

  it('passes a Status error body through, and words other error answers as client-go does', async () => {
    hook.answer(() => ({ status: 403, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'go away', code: 403 } }));
    expect((await failureOf(webhook().convert([widget('a')], 'stable.example.com/v2'))).message).toBe(`conversion webhook for ${GVK} failed: go away`);
    hook.answer(() => ({ status: 500, body: 'boom\n', contentType: 'text/plain' }));
    expect((await failureOf(webhook().convert([widget('a')], 'stable.example.com/v2'))).message).toBe(
      `conversion webhook for ${GVK} failed: an error on the server ("boom") has prevented the request from succeeding`,
    );
    hook.answer(() => ({ status: 404, body: 'nothing here', contentType: 'text/plain' }));
    expect((await failureOf(webhook().convert([widget('a')], 'stable.example.com/v2'))).message).toBe(
      `conversion webhook for ${GVK} failed: the server could not find the requested resource`,
    );
  });

  it('fails with kube\'s transport messages when the webhook is down, untrusted or hangs', async () => {
    const port = await freePort();
    const down = webhook({ clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: hook.caBundle } });
    expect((await failureOf(down.convert([widget('a')], 'stable.example.com/v2'))).message).toBe(
      `conversion webhook for ${GVK} failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    hook.answer(undefined);
    const untrusted = webhook({ clientConfig: { url: hook.url } });
    const err = await failureOf(untrusted.convert([widget('a')], 'stable.example.com/v2'));
    expect(err.code).toBe(500);
    expect(err.message).toMatch(new RegExp(`^conversion webhook for ${GVK} failed: Post "${hook.url}\\?timeout=30s": tls: `));
    hook.answer(() => 'hang');
    const slow = webhook({}, 300);
    expect((await failureOf(slow.convert([widget('a')], 'stable.example.com/v2'))).message).toBe(
      `conversion webhook for ${GVK} failed: Post "${hook.url}?timeout=300ms": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );
    hook.answer(undefined);
  });

  it('converts again after failures: nothing is left broken', async () => {
    hook.answer(undefined);
    const [out] = await webhook().convert([widget('a')], 'stable.example.com/v2');
    expect(out.apiVersion).toBe('stable.example.com/v2');
  });
});

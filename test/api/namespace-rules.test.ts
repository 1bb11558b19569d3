// Namespace rules a client meets over HTTP: the name label kube keeps on every namespace, the
// status phase rule of ValidateNamespaceStatusUpdate and the indexed finalizer causes of
// ValidateNamespaceFinalizeUpdate.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM_NAMESPACES } from '../../runtime/create-api.js';
import { startServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

describe('kubernetes.io/metadata.name', () => {
  it.each([
    ['no labels', { metadata: { name: 'a' } }, { 'kubernetes.io/metadata.name': 'a' }],
    ['other labels kept', { metadata: { name: 'b', labels: { team: 'x' } } }, { team: 'x', 'kubernetes.io/metadata.name': 'b' }],
    ['a wrong value overwritten', { metadata: { name: 'c', labels: { 'kubernetes.io/metadata.name': 'other' } } }, { 'kubernetes.io/metadata.name': 'c' }],
  ])('create: %s', async (_name, body, labels) => {
    const created = await h.call('POST', '/api/v1/namespaces', body);
    expect(created.status).toBe(201);
    expect(created.body.metadata.labels).toEqual(labels);
  });

  it('is set on generateName, the default namespace, update, patch, status and finalize', async () => {
    const generated = await h.call('POST', '/api/v1/namespaces', { metadata: { generateName: 'gen-' } });
    expect(generated.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': generated.body.metadata.name });
    expect((await h.call('GET', '/api/v1/namespaces/default')).body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'default' });
    const ns = (await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'u' } })).body;
    const updated = await h.call('PUT', '/api/v1/namespaces/u', { ...ns, metadata: { ...ns.metadata, labels: { 'kubernetes.io/metadata.name': 'x' } } });
    expect(updated.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'u' });
    const patched = await h.call('PATCH', '/api/v1/namespaces/u', { metadata: { labels: null } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'u' });
    for (const sub of ['status', 'finalize']) {
      const current = (await h.call('GET', '/api/v1/namespaces/u')).body;
      const written = await h.call('PUT', `/api/v1/namespaces/u/${sub}`, { ...current, metadata: { ...current.metadata, labels: {} } });
      expect(written.status).toBe(200);
      expect(written.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'u' });
    }
  });
});

describe('system namespaces created at start', () => {
  it('carry the name label', async () => {
    const server = await startServer({ storage: 'memory' });
    try {
      const res = await call(server.url, '/api/v1/namespaces', kubeconfigCredentials(server.kubeconfig));
      expect(res.status).toBe(200);
      const items = res.json<{ items: { metadata: { name: string; labels?: Record<string, string> } }[] }>().items;
      expect(items.map((ns) => ns.metadata.name).sort()).toEqual([...SYSTEM_NAMESPACES].sort());
      for (const ns of items) expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': ns.metadata.name });
    } finally {
      await server.close();
    }
  });
});

describe('status phase', () => {
  it.each([
    ['Active without deletionTimestamp', 'live', false, 'Active', undefined],
    ['Terminating without deletionTimestamp', 'live', false, 'Terminating', "may only be 'Active' if `deletionTimestamp` is empty"],
    ['an unknown phase', 'live', false, 'Bogus', "may only be 'Active' if `deletionTimestamp` is empty"],
    ['Terminating with deletionTimestamp', 'dying', true, 'Terminating', undefined],
    ['Active with deletionTimestamp', 'dying', true, 'Active', "may only be 'Terminating' if `deletionTimestamp` is not empty"],
  ])('%s', async (_case, name, deleting, phase, message) => {
    // A foreign finalizer keeps a deleted namespace in storage, Terminating.
    await h.call('POST', '/api/v1/namespaces', { metadata: { name }, spec: { finalizers: ['example.com/hold'] } });
    if (deleting) expect((await h.call('DELETE', `/api/v1/namespaces/${name}`)).status).toBe(200);
    await h.registry.namespaceDeleter?.idle();
    const current = (await h.call('GET', `/api/v1/namespaces/${name}`)).body;
    const reply = await h.call('PUT', `/api/v1/namespaces/${name}/status`, { ...current, status: { phase } });
    if (!message) {
      expect(reply.status).toBe(200);
      expect(reply.body.status.phase).toBe(phase);
      return;
    }
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    expect(reply.body.message).toBe(`Namespace "${name}" is invalid: status.Phase: Invalid value: "${phase}": ${message}`);
    expect(reply.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'status.Phase', message: `Invalid value: "${phase}": ${message}` }]);
  });
});

describe('finalize', () => {
  it.each([
    ['standard and qualified names', ['kubernetes', 'example.com/x'], []],
    ['an unqualified name', ['kubernetes', 'custom'], [{ field: 'spec.finalizers[1]', message: 'Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified' }]],
    [
      'two bad names',
      ['bad', 'kubernetes', 'worse'],
      [
        { field: 'spec.finalizers[0]', message: 'Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified' },
        { field: 'spec.finalizers[2]', message: 'Invalid value: "worse": name is neither a standard finalizer name nor is it fully qualified' },
      ],
    ],
  ])('%s', async (_case, finalizers, causes) => {
    const ns = (await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'f' } })).body;
    const reply = await h.call('PUT', '/api/v1/namespaces/f/finalize', { ...ns, spec: { finalizers } });
    if (causes.length === 0) {
      expect(reply.status).toBe(200);
      expect(reply.body.spec.finalizers).toEqual(finalizers);
      return;
    }
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    expect(reply.body.details.causes).toEqual(causes.map((c) => ({ reason: 'FieldValueInvalid', ...c })));
  });

  it('the main resource still reports spec.finalizers without an index', async () => {
    const reply = await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'm' }, spec: { finalizers: ['custom'] } });
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.finalizers', message: 'Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified' }]);
  });
});

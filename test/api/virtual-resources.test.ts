// Virtual kinds through the resource handler in-process: the registry keeps no store for them,
// the handler answers the collection's POST with the kind's virtual handler and the caller, and
// refuses a request that arrives without one (as kube-apiserver's review REST does).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { newUserInfo, type UserInfo } from '../../runtime/auth/user.js';
import { createResourceHandler, type ResourceHandler } from '../../runtime/api/resource-handler.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { virtualResourceFor } from '../../runtime/registry/virtual/index.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';

const review = resources.find((r) => r.kind === 'SelfSubjectReview')!;
const PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
let storage: MemoryStorage;
let registry: ResourceRegistry;
let handler: ResourceHandler;

beforeEach(() => {
  storage = new MemoryStorage();
  registry = new ResourceRegistry(storage, [review]);
  handler = createResourceHandler({ registry });
});
afterEach(async () => {
  registry.close();
  await storage.close();
});

async function post(user?: UserInfo) {
  const request = new Request(`https://127.0.0.1:6443${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' });
  const response = await handler(request, newRequestInfo('POST', PATH), user);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('virtual resources', () => {
  it('are served without a store', () => {
    expect(registry.storeFor('authentication.k8s.io', 'v1', 'selfsubjectreviews')).toBeUndefined();
    expect(registry.virtualFor('authentication.k8s.io', 'v1', 'selfsubjectreviews')?.definition).toBe(review);
  });

  it('answer with the caller, extra included, and write nothing to storage', async () => {
    const user = newUserInfo('jane', { uid: '42', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'], empty: [] } });
    const res = await post(user);
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ userInfo: { username: 'jane', uid: '42', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'], empty: [] } } });
    expect((await storage.list('/')).items).toEqual([]);
    expect(await storage.currentRevision()).toBe(0);
  });

  it('refuse a request without a user with 400', async () => {
    const res = await post();
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'no user present on request' });
  });

  it('need a known handler for their strategy', () => {
    expect(() => virtualResourceFor({ ...review, strategy: 'nosuchreview' })).toThrow('selfsubjectreviews: virtual kind without a known handler (strategy "nosuchreview")');
  });
});

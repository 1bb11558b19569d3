// A resource handler over memory storage, serving every generated kind, driven with HTTP-shaped requests, for tests that check
// what a client sees (status code, Status causes, the returned object).
import { resources } from '../../generated/registry.js';
import { createResourceHandler, type ResourceHandler } from '../../runtime/api/resource-handler.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
  body: any;
}

export interface Harness {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  registry: ResourceRegistry;
  close(): Promise<void>;
}

/** A fresh registry with the `default` namespace created through the API. */
export async function startHarness(): Promise<Harness> {
  const storage = new MemoryStorage();
  const registry = new ResourceRegistry(storage, resources);
  const handler: ResourceHandler = createResourceHandler({ registry });
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const init: RequestInit = { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers } };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const response = await handler(new Request(`https://127.0.0.1:6443${path}`, init), newRequestInfo(method, path));
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return {
    call,
    registry,
    async close() {
      await registry.namespaceDeleter?.idle();
      await storage.close();
    },
  };
}

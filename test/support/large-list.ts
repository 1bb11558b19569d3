// A namespace whose ConfigMap list is too large for a socket's buffers (16 objects of 900 KB, about
// 14 MB), so an answer to a client that never reads stays unwritten; plus one small object, whose
// GET answers at once. Used by the tests of answers cut at the request deadline.
import { expect } from 'vitest';
import { call, type Credentials } from './https-client.js';

export const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
export const BIG_OBJECTS = 16;

export const configMap = (name: string, data: Record<string, string> = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** Creates `big-0` … `big-15` and `small` in the default namespace. */
export async function createLargeList(url: string, admin: Credentials): Promise<void> {
  const create = (body: string) => call(url, CONFIGMAPS, admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  for (let i = 0; i < BIG_OBJECTS; i++) expect((await create(configMap(`big-${i}`, { k: 'x'.repeat(900_000) }))).status).toBe(201);
  expect((await create(configMap('small', { a: '1' }))).status).toBe(201);
}

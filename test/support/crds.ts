// Custom resource definitions in tests: created through the API and waited for until their
// resource is served.

import { expect } from 'vitest';
import type { TestServer } from './memory-server.js';

type JsonObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- CRDs and their status as JSON

async function servedWithin(server: TestServer, probe: string, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) {
    if ((await server.raw('GET', probe)).status === 200) return true;
  }
  return false;
}

/** Creates the CRD and waits until the naming and establishing controllers have it served. */
export async function createCRD(server: TestServer, crd: JsonObject, probe: string): Promise<void> {
  const created = await server.send<JsonObject>('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  expect(created.status, JSON.stringify(created.body).slice(0, 500)).toBe(201);
  if (!(await servedWithin(server, probe, 10_000))) throw new Error(`${probe} was never served`);
}

/** The `blobs.example.com` custom resources' path in `default`: a spec of any shape (preserve-unknown-fields). */
export const BLOBS = '/apis/example.com/v1/namespaces/default/blobs';

/** A namespaced CRD of one served and stored version `v1` with the given schema. */
export function namespacedCRD(group: string, names: { plural: string; kind: string; singular?: string; listKind?: string }, openAPIV3Schema: JsonObject): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: { group, scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }] },
  };
}

/** Creates `blobs.example.com`, whose spec keeps whatever it is given, and waits until it is served. */
export function createBlobCRD(server: TestServer): Promise<void> {
  const schema = { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
  return createCRD(server, namespacedCRD('example.com', { plural: 'blobs', singular: 'blob', kind: 'Blob', listKind: 'BlobList' }, schema), BLOBS);
}

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

/**
 * Creates the CRD and waits until its resource is served. Where no establishing controller runs,
 * the test writes the status that controller would (names accepted, Established).
 */
export async function createCRD(server: TestServer, crd: JsonObject, probe: string): Promise<void> {
  const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const created = await server.send<JsonObject>('POST', path, crd);
  expect(created.status, JSON.stringify(created.body).slice(0, 500)).toBe(201);
  if (await servedWithin(server, probe, 2000)) return;
  const current = (await server.send<JsonObject>('GET', `${path}/${crd.metadata.name}`)).body;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  current.status = {
    ...current.status,
    acceptedNames: current.spec.names,
    conditions: [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: now },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: now },
    ],
  };
  const established = await server.send<JsonObject>('PUT', `${path}/${crd.metadata.name}/status`, current);
  expect(established.status, JSON.stringify(established.body).slice(0, 500)).toBe(200);
  if (!(await servedWithin(server, probe, 5000))) throw new Error(`${probe} was never served`);
}


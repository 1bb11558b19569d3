// A dry run of a custom resource write answers as the real write would: kube's dry-run storage
// round-trips the object through the storage codec, and an unstructured object comes out of it
// with every map's keys sorted, as Go's encoding of maps writes them. Checked byte for byte
// against the real create (less the values only a real write has) over HTTPS.

import { describe, expect, it } from 'vitest';
import { createCRD, namespacedCRD } from '../support/crds.js';
import { useMemoryServer, type TestServer } from '../support/memory-server.js';

type JsonObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies

const server: TestServer = useMemoryServer();
const ws = '/apis/dry.example.com/v1/namespaces/default/ws';
const JSON_TYPE = { 'content-type': 'application/json' };

/** The response text with the values that differ between writes blanked, keys left where they are. */
function shape(text: string): string {
  return text
    .replace(/"(creationTimestamp|time)":"[^"]*"/g, '"$1":"T"')
    .replace(/"uid":"[^"]*"/g, '"uid":"U"')
    .replace(/"resourceVersion":"[^"]*"/g, '"resourceVersion":"R"')
    .replace(/"name":"w[0-9]"/g, '"name":"W"');
}

const body = (name: string) =>
  JSON.stringify({ spec: { z: 1, a: { y: 2, b: [{ q: 1, c: 2 }] } }, metadata: { name, labels: { z: 'a', a: 'b' } }, kind: 'W', apiVersion: 'dry.example.com/v1' });

describe('dry runs of custom resource writes', () => {
  it('answer with keys sorted, as the real create does', async () => {
    await createCRD(server, namespacedCRD('dry.example.com', { plural: 'ws', kind: 'W' }, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), ws);
    const dry = await server.raw('POST', `${ws}?dryRun=All`, body('w1'), JSON_TYPE);
    expect(dry.status).toBe(201);
    const real = await server.raw('POST', ws, body('w1'), JSON_TYPE);
    expect(real.status).toBe(201);
    // A dry-run create has no resourceVersion; otherwise the two are the same text.
    expect(shape(dry.body)).toBe(shape(real.body).replace(',"resourceVersion":"R"', ''));
    expect(real.body.startsWith('{"apiVersion":"dry.example.com/v1","kind":"W","metadata":{"creationTimestamp"')).toBe(true);

    // A dry-run update that changes the object answers sorted too, and stores nothing.
    const current = real.json<JsonObject>();
    const changed = JSON.stringify({ ...current, spec: { x: { n: 1, m: 2 }, ...current.spec } });
    const dryUpdate = await server.raw('PUT', `${ws}/w1?dryRun=All`, changed, JSON_TYPE);
    expect(dryUpdate.status).toBe(200);
    expect(dryUpdate.body).toContain('"spec":{"a":{"b":[{"c":2,"q":1}],"y":2},"x":{"m":2,"n":1},"z":1}');
    const realUpdate = await server.raw('PUT', `${ws}/w1`, changed, JSON_TYPE);
    expect(shape(dryUpdate.body)).toBe(shape(realUpdate.body));

    // A dry-run apply that would create answers as a created object would.
    const applied = await server.raw('PATCH', `${ws}/w2?fieldManager=m&dryRun=All`, body('w2'), { 'content-type': 'application/apply-patch+yaml' });
    expect(applied.status).toBe(201);
    expect(applied.body.startsWith('{"apiVersion":"dry.example.com/v1","kind":"W","metadata":{"creationTimestamp"')).toBe(true);
    expect((await server.raw('GET', `${ws}/w2`)).status).toBe(404);
  });
});

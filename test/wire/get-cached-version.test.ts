// GET of one object the watch cache holds, over HTTPS: answered from the cache's shared decoding
// of the version, whose JSON text is made once and kept. The bytes must be what a fresh encoding
// gives (Go's escapes included), and a write must never leave a reader with the old version.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const server = useMemoryServer();
const path = '/api/v1/namespaces/default/configmaps/kept';

describe('GET of a cached version', () => {
  it('sends the same bytes each time, Go-escaped, and the new version right after a write', async () => {
    const created = await server.send<{ metadata: { resourceVersion: string } }>('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'kept' },
      data: { html: '<a href="x">&</a>' },
    });
    expect(created.status).toBe(201);
    const first = await server.raw('GET', path);
    expect(first.status).toBe(200);
    expect(first.body).toContain('"html":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"');
    expect(first.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    for (let i = 0; i < 3; i++) expect((await server.raw('GET', path)).body).toBe(first.body);
    expect((await server.raw('GET', `${path}?resourceVersion=0`)).body).toBe(first.body);
    // Pretty output is encoded afresh from the same object.
    const pretty = await server.raw('GET', `${path}?pretty=true`);
    expect(pretty.body).not.toBe(first.body);
    expect(pretty.json()).toEqual(first.json());

    for (let i = 0; i < 5; i++) {
      const current = (await server.raw('GET', path)).json<Record<string, unknown>>();
      const updated = await server.send<{ metadata: { resourceVersion: string } }>('PUT', path, { ...current, data: { html: `v${i}` } });
      expect(updated.status).toBe(200);
      const read = (await server.raw('GET', path)).json<{ data: unknown; metadata: { resourceVersion: string } }>();
      expect(read.data).toEqual({ html: `v${i}` });
      expect(read.metadata.resourceVersion).toBe(updated.body.metadata.resourceVersion);
    }

    expect((await server.send('DELETE', path)).status).toBe(200);
    const gone = await server.raw('GET', path);
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });
});

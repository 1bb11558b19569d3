// The resource handler reads its query from the request target as node read it (the Request's
// URL is built on first use). Over the real server: encoded and unencoded forms of the same
// parameters mean the same, a query the WHATWG parser would have re-encoded is read the same, a
// malformed one is refused as before, and nothing is stored by a refused request.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const api = useMemoryServer();
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('query parameters read from the request target', () => {
  it('selects, encodes and refuses as the parameters say', async () => {
    for (const [name, app] of [['web', 'web'], ['db', 'db']]) {
      expect((await api.send('POST', CONFIGMAPS, { metadata: { name, labels: { app } } })).status).toBe(201);
    }
    const names = async (query: string) => (await api.send<{ items: Array<{ metadata: { name: string } }> }>('GET', `${CONFIGMAPS}?${query}`)).body.items.map((i) => i.metadata.name);
    expect(await names('labelSelector=app%3Dweb')).toEqual(['web']);
    expect(await names('labelSelector=app=web')).toEqual(['web']);
    expect(await names("labelSelector=app+in+(db)")).toEqual(['db']);
    expect(await names('labelSelector=app,app%20notin%20(db)&limit=5')).toEqual(['web']);
    // pretty=true indents the object, read from the same query.
    expect((await api.raw('GET', `${CONFIGMAPS}/web?pretty=true`)).body).toContain('\n    "name": "web"');
    // dryRun read from the query: nothing stored.
    expect((await api.send('POST', `${CONFIGMAPS}?dryRun=All`, { metadata: { name: 'dry' } })).status).toBe(201);
    expect((await api.send('GET', `${CONFIGMAPS}/dry`)).status).toBe(404);
    // A malformed selector is a 400, and the server goes on answering.
    const bad = await api.send('GET', `${CONFIGMAPS}?labelSelector=app%3D%3D%3Dx%20y`);
    expect(bad.status).toBe(400);
    expect(await names('labelSelector=app%3Ddb')).toEqual(['db']);
  });
});

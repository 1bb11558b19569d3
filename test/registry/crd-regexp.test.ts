// Go's regular expressions in a CustomResourceDefinition over HTTPS: a schema `pattern` and a CEL
// matches() with counted repetitions in a repeated group (once refused in rules, whose patterns
// ran on a rewrite for V8's linear engine) are accepted, check objects as Go does, and a long hostile value is refused
// at once, stores nothing, and leaves the server answering.
import { expect, it } from 'vitest';
import { createCRD, namespacedCRD } from '../support/crds.js';
import { useMemoryServer } from '../support/memory-server.js';

const server = useMemoryServer();
const HOST = '^([a-z0-9]{1,63}\\.)*[a-z]{2,}$';
const HOSTS = '/apis/regexp.example.com/v1/namespaces/default/hosts';

const host = (name: string, spec: Record<string, string>) => ({ apiVersion: 'regexp.example.com/v1', kind: 'Host', metadata: { name }, spec });

it('serves a CRD whose pattern and rule need the Pike VM, and refuses a hostile value without storing it', async () => {
  const spec = {
    type: 'object',
    properties: {
      address: { type: 'string', maxLength: 100_000, pattern: HOST },
      label: { type: 'string', maxLength: 100_000 },
    },
    'x-kubernetes-validations': [{ rule: `!has(self.label) || self.label.matches('${HOST.replaceAll('\\', '\\\\')}')`, message: 'label is not a host name' }],
  };
  await createCRD(server, namespacedCRD('regexp.example.com', { plural: 'hosts', kind: 'Host' }, { type: 'object', properties: { spec } }), HOSTS);
  expect((await server.send('POST', HOSTS, host('good', { address: 'my.example.com', label: 'web.example.io' }))).status).toBe(201);

  const hostile = `${'a.'.repeat(30_000)}!`;
  const refused = await server.send<{ code: number; details: { causes: { field: string; message: string }[] } }>('POST', HOSTS, host('bad', { address: hostile, label: hostile }));
  expect(refused.status).toBe(422);
  expect(refused.body.details.causes.map((c) => c.field)).toEqual(['spec.address', 'spec']);
  expect(refused.body.details.causes[0].message).toContain(`spec.address in body should match '${HOST}'`);
  expect(refused.body.details.causes[1].message).toBe('Invalid value: "object": label is not a host name');

  expect((await server.send('GET', `${HOSTS}/bad`)).status).toBe(404);
  const list = await server.send<{ items: { metadata: { name: string } }[] }>('GET', HOSTS);
  expect(list.body.items.map((i) => i.metadata.name)).toEqual(['good']);
});

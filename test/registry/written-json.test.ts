// A write's answer is laid out from the members the write stored (codec.ts, writtenJSON), not
// serialized again: its text must be exactly what serializing the answer gives, in every member
// order a body can have, and must never be used once the object is no longer what was written.
import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { Codec, writtenJSON } from '../../runtime/registry/codec.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { useMemoryServer } from '../support/memory-server.js';

const configMaps = resources.find((r) => r.group === '' && r.version === 'v1' && r.plural === 'configmaps')!;
const codec = new Codec(configMaps);

/** The stored text as defined: the members in order, type meta naming v1 ConfigMap, no resourceVersion or selfLink. */
function storedText(obj: KubeObject): string {
  const copy: KubeObject = { ...obj, apiVersion: 'v1', kind: 'ConfigMap' };
  const { resourceVersion: _rv, selfLink: _self, ...meta } = obj.metadata as Record<string, unknown>;
  copy.metadata = meta;
  return JSON.stringify(copy);
}

const bodies: Array<[string, KubeObject]> = [
  ['the usual order', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', uid: 'u' }, data: { k: 'v' } }],
  ['data first, type meta last', { data: { k: 'v' }, metadata: { name: 'b' }, kind: 'ConfigMap', apiVersion: 'v1' }],
  ['no type meta', { metadata: { name: 'c' }, data: { k: 'v' } }],
  ['kind only, after metadata', { metadata: { name: 'd' }, kind: 'ConfigMap', binaryData: { b: 'AA==' } }],
  ['empty metadata', { apiVersion: 'v1', metadata: {}, immutable: true }],
  ['another served version named', { apiVersion: 'v2', kind: 'Other', metadata: { name: 'e' } }],
  ['an undefined member', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f' }, data: undefined, immutable: false }],
  ['escapes and non-ASCII', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', annotations: { '<a>': '&"\u2028é' } }, data: { '"': '\\' } }],
  ['an index-like member', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h' }, '0': 'zero', data: {} }],
];

describe('the answer of a write, laid out from its stored members', () => {
  it.each(bodies)('%s: stored and answered exactly as serializing gives', (_name, body) => {
    const obj = structuredClone(body);
    expect(codec.encode(obj)).toBe(storedText(body));
    const out = codec.stored(obj, 42);
    expect(JSON.parse(JSON.stringify(out))).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '42' } });
    const written = writtenJSON(out);
    // An index-like member is ordered first by the engine in the answer: that answer is serialized.
    if ('0' in body) expect(written).toBeUndefined();
    else expect(written).toBe(JSON.stringify(out));
  });

  it('has no text for an object whose metadata named a resourceVersion or selfLink (an update)', () => {
    for (const meta of [{ name: 'a', resourceVersion: '5' }, { name: 'a', selfLink: '/x' }]) {
      const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { k: 'v' } };
      expect(codec.encode(obj)).toBe(storedText(obj));
      expect(writtenJSON(codec.stored(obj, 9))).toBeUndefined();
    }
  });

  it('forgets the text once the answer is no longer the version written', () => {
    const fresh = () => codec.stored(((o) => (codec.encode(o), o))({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } }), 7);
    const replaced = fresh();
    replaced.metadata = { ...replaced.metadata };
    expect(writtenJSON(replaced)).toBeUndefined();
    const restamped = fresh();
    (restamped.metadata as Record<string, unknown>).resourceVersion = '8';
    expect(writtenJSON(restamped)).toBeUndefined();
    // A copy was never written.
    expect(writtenJSON({ ...fresh() })).toBeUndefined();
  });
});

describe('a create answered over HTTPS', () => {
  const server = useMemoryServer();
  const path = '/api/v1/namespaces/default/configmaps';

  it('answers each body order with the bytes a read of the object gives, escapes included', async () => {
    const sent = [
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w1","annotations":{"a":"<b>&"}},"data":{"k":"\u2028é"}}',
      '{"data":{"k":"v"},"metadata":{"name":"w2"}}',
      '{"metadata":{"name":"w3","annotations":{"x":"y"}},"kind":"ConfigMap","immutable":true,"binaryData":{"b":"AA=="}}',
    ];
    for (const body of sent) {
      const created = await server.raw('POST', path, body);
      expect(created.status).toBe(201);
      const { name } = created.json<{ metadata: { name: string } }>().metadata;
      const read = await server.raw('GET', `${path}/${name}`);
      expect(read.status).toBe(200);
      expect(created.body).toBe(read.body);
      expect(created.body).not.toMatch(/[<>&\u2028]/);
    }
    // The server still answers, and what it stored is what it answered.
    const list = await server.send<{ items: Array<{ metadata: { name: string } }> }>('GET', path);
    expect(list.body.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(['w1', 'w2', 'w3']));
  });
});

// The JSON Patch `test` operation compares as kube-apiserver's library (evanphx/json-patch v4)
// does: objects member by member in any order, arrays item by item, and every other value as raw
// JSON text, the live side as Go's encoding/json writes it and the patch side as the client wrote
// it (whitespace aside). So 1.0 is not 1, and "a&b" only matches when written "a\u0026b", as Go
// would write it (kubernetes/apiserver#100). Patches here are raw text, to control their bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch } from '../../runtime/api/handlers/json-patch.js';
import { isStatusError } from '../../runtime/errors/status-error.js';
import { startWireServer, type WireServer } from './client.js';

const enc = (text: string) => new TextEncoder().encode(text);
/** Does a test of `value` (raw JSON text) at `path` hold against `doc`? */
function holds(doc: unknown, path: string, value: string): boolean {
  try {
    applyJsonPatch(doc, decodeJsonPatch(enc(`[{"op":"test","path":${JSON.stringify(path)},"value":${value}}]`)));
    return true;
  } catch (err) {
    if (!isStatusError(err)) throw err;
    expect(err.details?.causes?.[0].message).toBe(`testing value ${path} failed: test failed`);
    return false;
  }
}

describe('test operation equality', () => {
  const doc = { n: 1, f: 1.5, big: 1e21, s: 'a&b<c>', u: 'é', q: 'say "hi"', t: true, o: { x: 1, y: [1, 2] }, l: [1, 'two', { k: 'v' }], e: {} };

  it.each([
    ['/n', '1', true],
    ['/n', '1.0', false],
    ['/n', '1e0', false],
    ['/n', '"1"', false],
    ['/f', '1.5', true],
    ['/f', '1.50', false],
    ['/big', '1e+21', true],
    ['/big', '1000000000000000000000', false],
    ['/s', '"a&b<c>"', false],
    ['/s', '"a\\u0026b\\u003cc\\u003e"', true],
    ['/u', '"é"', true],
    ['/u', '"\\u00e9"', false],
    ['/q', '"say \\"hi\\""', true],
    ['/t', 'true', true],
    ['/t', '1', false],
  ])('%s against %s: %s', (path, value, expected) => {
    expect(holds(doc, path, value)).toBe(expected);
  });

  it('compares objects member by member, in any order and any spacing', () => {
    expect(holds(doc, '/o', '{"y":[1,2],"x":1}')).toBe(true);
    expect(holds(doc, '/o', '{ "x" : 1 ,\n "y" : [ 1 , 2 ] }')).toBe(true);
    expect(holds(doc, '/o', '{"x":1.0,"y":[1,2]}')).toBe(false);
    expect(holds(doc, '/o', '{"x":1}')).toBe(false);
    expect(holds(doc, '/o', '{"x":1,"y":[1,2],"z":null}')).toBe(false);
    // A repeated member keeps its last value, as Go's decoding into a map does.
    expect(holds(doc, '/o', '{"x":2,"y":[1,2],"x":1}')).toBe(true);
    expect(holds(doc, '/e', '{}')).toBe(true);
  });

  it('compares arrays item by item', () => {
    expect(holds(doc, '/l', '[1,"two",{"k":"v"}]')).toBe(true);
    expect(holds(doc, '/l', '["two",1,{"k":"v"}]')).toBe(false);
    expect(holds(doc, '/l', '[1,"two"]')).toBe(false);
    expect(holds(doc, '/o/y/1', '2')).toBe(true);
  });

  it('compares the whole document at the empty path', () => {
    expect(holds({ a: 1, b: 'x' }, '', '{"b":"x","a":1}')).toBe(true);
    expect(holds({ a: 1, b: 'x' }, '', '{"b":"x","a":1.0}')).toBe(false);
  });

  it('keeps the null rules: a missing or null member matches null only', () => {
    expect(holds({ a: null }, '/a', 'null')).toBe(true);
    expect(holds({}, '/a', 'null')).toBe(true);
    expect(holds({ a: 1 }, '/a', 'null')).toBe(false);
    expect(holds({ a: null }, '/a', '0')).toBe(false);
  });
});

describe('test operation over HTTP', () => {
  let wire: WireServer;
  const CM = '/api/v1/namespaces/default/configmaps';
  beforeAll(async () => {
    wire = await startWireServer();
    const r = await wire.call('POST', CM, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'amp' }, data: { v: 'a&b' } }) });
    expect(r.status).toBe(201);
  });
  afterAll(async () => {
    await wire?.close();
  });

  const testThenReplace = (value: string) =>
    wire.call('PATCH', `${CM}/amp`, {
      headers: { 'content-type': 'application/json-patch+json' },
      body: `[{"op":"test","path":"/data/v","value":${value}},{"op":"replace","path":"/data/w","value":"set"}]`,
    });

  it('fails a test whose string the client did not escape as Go does', async () => {
    const r = await testThenReplace('"a&b"');
    expect(r.status).toBe(422);
    expect(r.json<{ details: { causes: { message: string }[] } }>().details.causes[0].message).toBe('testing value /data/v failed: test failed');
  });

  it('passes it written as Go writes it', async () => {
    const r = await testThenReplace('"a\\u0026b"');
    expect(r.status).toBe(200);
    expect(r.json<{ data: Record<string, string> }>().data).toEqual({ v: 'a&b', w: 'set' });
  });
});

// The JSON Patch `test` operation compares as kube-apiserver's library (evanphx/json-patch v4)
// does: objects member by member in any order, arrays item by item, and every other value as raw
// JSON text, the live side as Go's encoding/json writes it and the patch side as the client wrote
// it (whitespace aside). So 1.0 is not 1, and "a&b" only matches when written "a\u0026b", as Go
// would write it (kubernetes/apiserver#100). Patches here are raw text, to control their bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch } from '../../runtime/registry/patch/json-patch.js';
import { isStatusError } from '../../runtime/errors/status-error.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

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

/** The outcome of a raw patch text: 'ok', the 422 cause, or the 500 of a crash. */
function outcome(doc: unknown, patch: string): string {
  try {
    applyJsonPatch(doc, decodeJsonPatch(enc(patch)));
    return 'ok';
  } catch (err) {
    if (!isStatusError(err)) throw err;
    if (err.code === 500) {
      expect(err.reason).toBe('InternalError');
      return '500';
    }
    expect(err.code).toBe(422);
    return err.details!.causes![0].message!;
  }
}

// v4 keeps the patch's own bytes for every value an operation writes; a later test in the same
// patch compares against those bytes, not against how Go would encode the value.
describe('test of a value an earlier operation wrote', () => {
  const failed = (path: string) => `testing value ${path} failed: test failed`;
  it.each([
    ['add 1.0, test 1.0', '[{"op":"add","path":"/a","value":1.0},{"op":"test","path":"/a","value":1.0}]', 'ok'],
    ['add 1.0, test 1', '[{"op":"add","path":"/a","value":1.0},{"op":"test","path":"/a","value":1}]', failed('/a')],
    ['add 1, test 1.0', '[{"op":"add","path":"/a","value":1},{"op":"test","path":"/a","value":1.0}]', failed('/a')],
    ['replace with 1e3, test 1e3', '[{"op":"replace","path":"/n","value":1e3},{"op":"test","path":"/n","value":1e3}]', 'ok'],
    ['replace with 1e3, test 1000', '[{"op":"replace","path":"/n","value":1e3},{"op":"test","path":"/n","value":1000}]', failed('/n')],
    ['add "a&b" unescaped, test it unescaped', '[{"op":"add","path":"/s","value":"a&b"},{"op":"test","path":"/s","value":"a&b"}]', 'ok'],
    ['add "a&b" unescaped, test as Go writes it', '[{"op":"add","path":"/s","value":"a&b"},{"op":"test","path":"/s","value":"a\\u0026b"}]', failed('/s')],
    ['add an object, test a member', '[{"op":"add","path":"/o","value":{"x":2.50}},{"op":"test","path":"/o/x","value":2.50}]', 'ok'],
    ['add an object, test it whole', '[{"op":"add","path":"/o","value":{"x":[2.50]}},{"op":"test","path":"/o","value":{"x":[2.50]}}]', 'ok'],
    ['add an object, test it whole as 2.5', '[{"op":"add","path":"/o","value":{"x":[2.50]}},{"op":"test","path":"/o","value":{"x":[2.5]}}]', failed('/o')],
    ['move keeps the text', '[{"op":"add","path":"/a","value":1.0},{"op":"move","from":"/a","path":"/b"},{"op":"test","path":"/b","value":1.0}]', 'ok'],
    ['copy keeps a number\'s text', '[{"op":"add","path":"/a","value":1.0},{"op":"copy","from":"/a","path":"/b"},{"op":"test","path":"/b","value":1.0}]', 'ok'],
    // The copy goes through encoding/json, which escapes & as it writes.
    ['copy escapes &', '[{"op":"add","path":"/a","value":"a&b"},{"op":"copy","from":"/a","path":"/b"},{"op":"test","path":"/b","value":"a\\u0026b"},{"op":"test","path":"/a","value":"a&b"}]', 'ok'],
    ['the document\'s own values still compare as Go writes them', '[{"op":"add","path":"/a","value":1.0},{"op":"test","path":"/n","value":1.0}]', failed('/n')],
  ])('%s', (_name, patch, want) => {
    expect(outcome({ n: 1 }, patch)).toBe(want);
  });

  it('stores the values themselves, whatever their text', () => {
    const patch = '[{"op":"add","path":"/a","value":{"x":1.0,"s":"a&b"}},{"op":"copy","from":"/a","path":"/b"},{"op":"test","path":"/a/x","value":1.0}]';
    expect(applyJsonPatch({}, decodeJsonPatch(enc(patch)))).toEqual({ a: { x: 1, s: 'a&b' }, b: { x: 1, s: 'a&b' } });
  });
});

// v4 reads a null array item as a nil node and dereferences it when a test compares arrays item by
// item; kube-apiserver's panic filter turns that into a 500 (a plain-text body there; a Status
// with reason InternalError here, which is what client-go reports for either).
describe('test of arrays holding null', () => {
  it.each([
    ['a null item in the test value', { l: [1] }, '/l', '[null]', '500'],
    ['a null item in the document', { l: [null] }, '/l', '[null]', '500'],
    ['a null item against a string', { l: [null] }, '/l', '["x"]', '500'],
    ['a nested null item', { o: { l: ['a', null] } }, '/o', '{"l":["a",null]}', '500'],
    ['a difference before the null is found', { l: [1, null] }, '/l', '[2,null]', 'testing value /l failed: test failed'],
    ['lengths differ, so no item is compared', { l: [null] }, '/l', '[null,null]', 'testing value /l failed: test failed'],
    ['a null member of an object is compared safely', { o: { a: null } }, '/o', '{"a":null}', 'ok'],
    ['a null item read on its own', { l: [null] }, '/l/0', 'null', 'ok'],
  ])('%s', (_name, doc, path, value, want) => {
    expect(outcome(doc, `[{"op":"test","path":${JSON.stringify(path)},"value":${value}}]`)).toBe(want);
  });

  it('crashes on a test of the whole document without a value', () => {
    expect(outcome({ a: 1 }, '[{"op":"test","path":""}]')).toBe('500');
  });

  it('does not treat null as an empty object', () => {
    expect(outcome({ o: {} }, '[{"op":"test","path":"/o","value":null}]')).toBe('testing value /o failed: test failed');
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

  it('passes a test of a value added earlier in the patch, written as the patch wrote it', async () => {
    const r = await wire.call('PATCH', `${CM}/amp`, {
      headers: { 'content-type': 'application/json-patch+json' },
      body: '[{"op":"add","path":"/data/x","value":"p&q"},{"op":"test","path":"/data/x","value":"p&q"},{"op":"copy","from":"/data/x","path":"/data/y"},{"op":"remove","path":"/data/x"},{"op":"remove","path":"/data/y"}]',
    });
    expect(r.status).toBe(200);
    expect(r.json<{ data: Record<string, string> }>().data).toEqual({ v: 'a&b' });
  });

  it('answers a test of an array holding null with a 500', async () => {
    const r = await wire.call('PATCH', `${CM}/amp`, {
      headers: { 'content-type': 'application/json-patch+json' },
      body: '[{"op":"add","path":"/metadata/finalizers","value":["example.com/f"]},{"op":"test","path":"/metadata/finalizers","value":[null]}]',
    });
    expect(r.status).toBe(500);
    expect(r.json()).toMatchObject({ kind: 'Status', code: 500, reason: 'InternalError', message: 'This request caused apiserver to panic. Look in the logs for details.' });
  });

  it('passes it written as Go writes it', async () => {
    const r = await testThenReplace('"a\\u0026b"');
    expect(r.status).toBe(200);
    expect(r.json<{ data: Record<string, string> }>().data).toEqual({ v: 'a&b', w: 'set' });
  });
});

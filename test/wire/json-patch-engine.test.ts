// The JSON Patch engine: the situations of RFC 6902's appendix A (with our own documents), and
// the places where kube-apiserver's library (evanphx/json-patch v4) answers differently from the
// RFC or words its errors in a particular way, since clients see those texts in 422 causes.

import { describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch } from '../../runtime/api/handlers/json-patch.js';
import { isStatusError } from '../../runtime/errors/status-error.js';

const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const patch = (doc: unknown, ops: unknown) => applyJsonPatch(doc, decodeJsonPatch(enc(ops)));

/** The cause message of the 422 a failing patch produces. */
function failure(doc: unknown, ops: unknown): string {
  try {
    patch(doc, ops);
  } catch (err) {
    if (!isStatusError(err)) throw err;
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toBe('the server rejected our request due to an error in our request');
    expect(err.details?.causes).toHaveLength(1);
    expect(err.details?.causes?.[0].reason).toBe('UnexpectedServerResponse');
    return err.details!.causes![0].message!;
  }
  throw new Error('patch did not fail');
}

describe('RFC 6902 appendix A situations', () => {
  it('adds an object member', () => {
    expect(patch({ colour: 'red' }, [{ op: 'add', path: '/size', value: 'large' }])).toEqual({ colour: 'red', size: 'large' });
  });

  it('inserts an array element before the index', () => {
    expect(patch({ fruit: ['apple', 'cherry'] }, [{ op: 'add', path: '/fruit/1', value: 'banana' }])).toEqual({
      fruit: ['apple', 'banana', 'cherry'],
    });
  });

  it('removes an object member and an array element', () => {
    expect(patch({ a: 1, b: 2 }, [{ op: 'remove', path: '/b' }])).toEqual({ a: 1 });
    expect(patch({ list: ['x', 'y', 'z'] }, [{ op: 'remove', path: '/list/1' }])).toEqual({ list: ['x', 'z'] });
  });

  it('replaces a value', () => {
    expect(patch({ mode: 'slow', n: 1 }, [{ op: 'replace', path: '/mode', value: 'fast' }])).toEqual({ mode: 'fast', n: 1 });
  });

  it('moves a member between objects and an element within an array', () => {
    expect(patch({ src: { k: 'v', keep: 1 }, dst: {} }, [{ op: 'move', from: '/src/k', path: '/dst/k' }])).toEqual({
      src: { keep: 1 },
      dst: { k: 'v' },
    });
    expect(patch({ seq: [1, 2, 3, 4] }, [{ op: 'move', from: '/seq/1', path: '/seq/3' }])).toEqual({ seq: [1, 3, 4, 2] });
  });

  it('passes a test that holds and fails one that does not', () => {
    const doc = { tags: ['p', 'q'], name: 'n1' };
    expect(
      patch(doc, [
        { op: 'test', path: '/name', value: 'n1' },
        { op: 'test', path: '/tags', value: ['p', 'q'] },
      ]),
    ).toEqual(doc);
    expect(failure(doc, [{ op: 'test', path: '/name', value: 'n2' }])).toBe('testing value /name failed: test failed');
  });

  it('adds a nested object member', () => {
    expect(patch({ top: 1 }, [{ op: 'add', path: '/child', value: { grand: 'x' } }])).toEqual({ top: 1, child: { grand: 'x' } });
  });

  it('ignores members an operation does not define', () => {
    expect(patch({}, [{ op: 'add', path: '/k', value: 1, extra: 'ignored' }])).toEqual({ k: 1 });
  });

  it('refuses to add below a missing member', () => {
    expect(failure({ present: 1 }, [{ op: 'add', path: '/absent/child', value: 1 }])).toBe(
      'add operation does not apply: doc is missing path: "/absent/child": missing value',
    );
  });

  it('decodes ~1 and ~0 in path segments', () => {
    expect(patch({ 'a/b': 1, 'c~d': 2 }, [{ op: 'test', path: '/a~1b', value: 1 }, { op: 'remove', path: '/c~0d' }])).toEqual({ 'a/b': 1 });
  });

  it('compares strings and numbers as different values', () => {
    expect(failure({ n: 7 }, [{ op: 'test', path: '/n', value: '7' }])).toBe('testing value /n failed: test failed');
  });

  it('adds an array as a single value', () => {
    expect(patch({ outer: ['a'] }, [{ op: 'add', path: '/outer/1', value: ['b', 'c'] }])).toEqual({ outer: ['a', ['b', 'c']] });
  });

  it('copies a value, leaving the source in place and independent', () => {
    const result = patch({ from: { deep: [1] } }, [
      { op: 'copy', from: '/from', path: '/to' },
      { op: 'add', path: '/to/deep/-', value: 2 },
    ]);
    expect(result).toEqual({ from: { deep: [1] }, to: { deep: [1, 2] } });
  });

  it('applies all operations or none', () => {
    const doc = { a: 1 };
    failure(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 9 }]);
    expect(doc).toEqual({ a: 1 });
  });
});

describe('kube-apiserver (json-patch v4) behaviour', () => {
  it('replace of a missing object member adds it', () => {
    expect(patch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }])).toEqual({ a: 1, b: 2 });
  });

  it('counts negative indices from the end', () => {
    expect(patch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }])).toEqual({ l: [1, 2] });
    expect(patch({ l: [1, 2] }, [{ op: 'add', path: '/l/-1', value: 9 }])).toEqual({ l: [1, 2, 9] });
    expect(patch({ l: [1, 2] }, [{ op: 'replace', path: '/l/-2', value: 0 }])).toEqual({ l: [0, 2] });
  });

  it('lets a test of a missing or null member pass against null', () => {
    expect(patch({ n: null }, [{ op: 'test', path: '/n', value: null }, { op: 'test', path: '/gone', value: null }])).toEqual({ n: null });
    expect(failure({}, [{ op: 'test', path: '/gone', value: 'x' }])).toBe('testing value /gone failed: test failed');
  });

  it('words its failures as the library does', () => {
    expect(failure({ a: 1 }, [{ op: 'remove', path: '/b' }])).toBe("error in remove for path: '/b': Unable to remove nonexistent key: b: missing value");
    expect(failure({ l: [1] }, [{ op: 'remove', path: '/l/5' }])).toBe("error in remove for path: '/l/5': Unable to access invalid index: 5: invalid index referenced");
    expect(failure({ l: [1] }, [{ op: 'add', path: '/l/3', value: 1 }])).toBe("error in add for path: '/l/3': Unable to access invalid index: 3: invalid index referenced");
    expect(failure({ l: [1] }, [{ op: 'add', path: '/l/x', value: 1 }])).toBe(
      `error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    );
    expect(failure({ l: [1] }, [{ op: 'replace', path: '/l/4', value: 1 }])).toBe('replace operation does not apply: doc is missing key: /l/4: missing value');
    expect(failure({}, [{ op: 'replace', path: '/a/b', value: 1 }])).toBe('replace operation does not apply: doc is missing path: /a/b: missing value');
    expect(failure({}, [{ op: 'move', from: '/x', path: '/y' }])).toBe("error in move for path: 'x': Unable to remove nonexistent key: x: missing value");
    expect(failure({}, [{ op: 'test', path: '/a/b', value: 1 }])).toBe('test operation does not apply: is missing path: /a/b: missing value');
    expect(failure({}, [{ op: 'frobnicate', path: '/a' }])).toBe('Unexpected kind: frobnicate');
    expect(failure({}, [{ path: '/a' }])).toBe('Unexpected kind: unknown');
    expect(failure({}, [{ op: 'add', value: 1 }])).toBe('add operation failed to decode path: missing value');
    expect(failure({}, [{ op: 'replace', value: 1 }])).toBe('replace operation failed to decode path: operation missing path field: missing value');
    expect(failure({}, [{ op: 'move', path: '/a' }])).toBe('move operation failed to decode from: operation, missing from field: missing value');
  });

  it('compares a whole document with an empty path', () => {
    expect(patch({ a: [1] }, [{ op: 'test', path: '', value: { a: [1] } }])).toEqual({ a: [1] });
    expect(failure({ a: 1 }, [{ op: 'test', path: '', value: {} }])).toBe('testing value  failed: test failed');
  });

  it('decodes the document as DecodePatch does', () => {
    expect(decodeJsonPatch(enc('null'))).toEqual([]);
    const bad = (text: string) => {
      try {
        decodeJsonPatch(enc(text));
      } catch (err) {
        if (!isStatusError(err)) throw err;
        return [err.code, err.message];
      }
      return undefined;
    };
    expect(bad('{"op":"add"}')).toEqual([400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch']);
    expect(bad('["add"]')).toEqual([400, 'json: cannot unmarshal string into Go value of type jsonpatch.Operation']);
    expect(bad(JSON.stringify(Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a' }))))).toEqual([
      413,
      'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    ]);
  });
});

// The text after an "is immutable" message (PersistentVolume sources, PersistentVolumeClaim spec).

import { describe, expect, it } from 'vitest';
import { fieldDiff } from '../../runtime/registry/strategies/field-diff.js';

describe('fieldDiff', () => {
  it('lists each changed, added or removed top-level field in name order, values in JSON', () => {
    expect(fieldDiff({ nfs: { path: '/a', server: 's' }, keep: 1, gone: 'x' }, { nfs: { server: 's', path: '/b' }, keep: 1, added: [1] })).toBe(
      '  added: null -> [1]\n  gone: "x" -> null\n  nfs: {"path":"/a","server":"s"} -> {"server":"s","path":"/b"}',
    );
  });

  it('is empty when only key order differs', () => {
    expect(fieldDiff({ hostPath: { path: '/a', type: '' } }, { hostPath: { type: '', path: '/a' } })).toBe('');
  });
});

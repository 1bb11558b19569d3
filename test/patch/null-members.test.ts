import { describe, expect, it } from 'vitest';
import { dropNullMembers } from '../../runtime/registry/null-members.js';
import { SchemaIndex } from '../../runtime/machinery/openapi-schema.js';

const index = new SchemaIndex({
  'test.Obj': {
    required: ['name', 'count', 'ready', 'spec', 'tags', 'labels', 'since', 'port'],
    properties: {
      metadata: { allOf: [{ $ref: '#/components/schemas/test.Meta' }] },
      name: { type: 'string' },
      count: { type: 'integer' },
      ready: { type: 'boolean' },
      spec: { properties: { note: { type: 'string' } } },
      tags: { type: 'array', items: { properties: { key: { type: 'string' } }, required: ['key'] } },
      names: { type: 'array', items: { type: 'string' } },
      nested: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
      times: { type: 'object', additionalProperties: { type: 'string', format: 'date-time' } as Record<string, unknown> },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      since: { type: 'string', format: 'date-time' } as Record<string, unknown>,
      port: { 'x-kubernetes-int-or-string': true } as Record<string, unknown>,
      note: { type: 'string' },
      raw: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  'test.Meta': { properties: { labels: { type: 'object', additionalProperties: { type: 'string' } }, name: { type: 'string' } } },
});

describe('null struct members, as decoding into Go structs leaves them', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['optional members are dropped, at every depth', { note: null, raw: null, metadata: { labels: null, name: 'a' } }, { metadata: { name: 'a' } }],
    ['required plain members take their zero value', { name: null, count: null, ready: null, spec: null }, { name: '', count: 0, ready: false, spec: {} }],
    ['required maps and lists stay null (Go encodes nil as null)', { tags: null, labels: null }, { tags: null, labels: null }],
    ['required times and int-or-string stay null', { since: null, port: null }, { since: null, port: null }],
    ['inside lists and nested structs', { tags: [{ key: null }], spec: { note: null } }, { tags: [{ key: '' }], spec: {} }],
    ['free-form data is left alone', { raw: { x: null, l: [null] } }, { raw: { x: null, l: [null] } }],
    // Go's decoders give a null map value or list item its element type's zero value.
    ['a null map value of a string map becomes ""', { labels: { a: null, b: 'x' }, metadata: { labels: { c: null } } }, { labels: { a: '', b: 'x' }, metadata: { labels: { c: '' } } }],
    ['a null list item of strings becomes ""', { names: ['a', null] }, { names: ['a', ''] }],
    ['a null item whose type is a list, or has its own decoding, stays null', { nested: [null, ['x', null]], times: { t: null } }, { nested: [null, ['x', '']], times: { t: null } }],
    ['a null list item of structs becomes an empty struct', { tags: [null, { key: 'k' }] }, { tags: [{}, { key: 'k' }] }],
  ])('%s', (_case, obj, want) => {
    dropNullMembers(obj, index.component('test.Obj')!, index);
    expect(obj).toEqual(want);
  });
});

import { describe, expect, it } from 'vitest';
import { dropNullMembers } from '../../runtime/registry/null-members.js';
import { SchemaIndex } from '../../runtime/registry/openapi-schema.js';

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
    ['map values and free-form data are left alone', { labels: { a: null }, raw: { x: null } }, { labels: { a: null }, raw: { x: null } }],
  ])('%s', (_case, obj, want) => {
    dropNullMembers(obj, index.component('test.Obj')!, index);
    expect(obj).toEqual(want);
  });
});

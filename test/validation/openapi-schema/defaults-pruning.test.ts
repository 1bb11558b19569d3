// Structural defaulting and pruning of custom resources, as kube-apiserver does them on every
// write and read: defaults only where the parent exists, nulls dropped or defaulted, unknown
// fields dropped (and named) except under x-kubernetes-preserve-unknown-fields, and the
// apiVersion, kind and metadata of resources kept.

import { describe, expect, it } from 'vitest';
import { compileSchema, unknownFieldPath, type JSONSchemaProps } from '../../../runtime/validation/openapi-schema/index.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        strategy: { type: 'object', properties: { type: { type: 'string', default: 'Rolling' }, maxSurge: { 'x-kubernetes-int-or-string': true } } },
        ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' }, port: { type: 'integer' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string', default: 'on' } },
        note: { type: 'string', nullable: true },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
      },
    },
  },
};

const cr = (spec: unknown): Record<string, unknown> => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' } }, spec });

describe('applyDefaults', () => {
  const compiled = compileSchema(schema);

  it('fills missing fields whose parent exists, and items, and map values that are null', () => {
    const obj = cr({ strategy: {}, ports: [{ port: 80 }, { port: 81, protocol: 'UDP' }], labels: { a: null, b: 'x' } });
    compiled.applyDefaults(obj);
    expect(obj.spec).toEqual({ replicas: 1, strategy: { type: 'Rolling' }, ports: [{ port: 80, protocol: 'TCP' }, { port: 81, protocol: 'UDP' }], labels: { a: 'on', b: 'x' } });
  });

  it('does not create a missing parent', () => {
    const obj = cr({});
    compiled.applyDefaults(obj);
    expect(obj.spec).toEqual({ replicas: 1 });
    const noSpec: Record<string, unknown> = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    compiled.applyDefaults(noSpec);
    expect(noSpec.spec).toBeUndefined();
  });

  it('replaces a non-nullable null by its default, drops one without a default, keeps a nullable null', () => {
    const obj = cr({ replicas: null, strategy: { maxSurge: null }, note: null });
    compiled.applyDefaults(obj);
    expect(obj.spec).toEqual({ replicas: 1, strategy: { type: 'Rolling' }, note: null });
  });

  it('copies defaults: two objects never share one', () => {
    const s = compileSchema({ type: 'object', properties: { spec: { type: 'object', properties: { m: { type: 'object', default: { k: 'v' } } } } } });
    const a = cr({});
    const b = cr({});
    s.applyDefaults(a);
    s.applyDefaults(b);
    ((a.spec as { m: Record<string, string> }).m).k = 'changed';
    expect(b.spec).toEqual({ m: { k: 'v' } });
  });

  it('a default named __proto__ becomes a field, never the prototype', () => {
    const s = compileSchema({ type: 'object', properties: { spec: { type: 'object', properties: { ['__proto__']: { type: 'string', default: 'x' } } } } });
    const obj = cr({});
    s.applyDefaults(obj);
    const spec = obj.spec as Record<string, unknown>;
    expect(Object.getPrototypeOf(spec)).toBe(Object.prototype);
    expect(Object.hasOwn(spec, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(spec, '__proto__')?.value).toBe('x');
  });
});

describe('prune', () => {
  const compiled = compileSchema(schema);

  it('drops unknown fields and names them in sorted order, keeping apiVersion, kind and metadata of the root', () => {
    const obj = cr({ replicas: 2, extra: 1, strategy: { type: 'A', bogus: true }, ports: [{ port: 1, x: 1 }] });
    (obj.metadata as Record<string, unknown>).unknownMeta = 1;
    obj.status = { phase: 'x' };
    expect(compiled.prune(obj)).toEqual(['.spec.extra', '.spec.ports[0].x', '.spec.strategy.bogus', '.status']);
    expect(obj).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', labels: { a: 'b' }, unknownMeta: 1 },
      spec: { replicas: 2, strategy: { type: 'A' }, ports: [{ port: 1 }] },
    });
    expect(unknownFieldPath('.spec.extra')).toBe('spec.extra');
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields, but prunes inside known ones there', () => {
    const obj = cr({ raw: { anything: { deep: [1, 2] }, known: { a: 'x', b: 'y' } } });
    expect(compiled.prune(obj)).toEqual(['.spec.raw.known.b']);
    expect(obj.spec).toEqual({ raw: { anything: { deep: [1, 2] }, known: { a: 'x' } } });
  });

  it('keeps apiVersion, kind and metadata of embedded resources, and prunes the rest by their schema', () => {
    const obj = cr({ template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'a', y: 'b' }, other: 1 } });
    expect(compiled.prune(obj)).toEqual(['.spec.template.other', '.spec.template.spec.y']);
    expect((obj.spec as Record<string, unknown>).template).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'a' } });
  });

  it('drops nulls the schema does not allow and cannot default', () => {
    const obj = cr({ strategy: { maxSurge: null }, note: null });
    compiled.prune(obj);
    expect(obj.spec).toEqual({ strategy: {}, note: null });
  });

  it('drops nulls at any depth, in list items and map values, scalars beside them untouched', () => {
    const obj = cr({ replicas: 2, ports: [{ port: null, protocol: 'UDP' }, { port: 81 }], labels: { a: null }, strategy: { type: null }, raw: { known: { a: null }, other: null } });
    compiled.prune(obj);
    // A null with a default stays for defaulting to fill; under preserve-unknown-fields only known fields are judged.
    expect(obj.spec).toEqual({ replicas: 2, ports: [{ protocol: 'UDP' }, { port: 81 }], labels: { a: null }, strategy: { type: null }, raw: { known: {}, other: null } });
    compiled.applyDefaults(obj);
    expect(obj.spec).toMatchObject({ ports: [{ protocol: 'UDP' }, { port: 81, protocol: 'TCP' }], labels: { a: 'on' }, strategy: { type: 'Rolling' } });
  });

  it('prunes inside objects and lists of known fields and drops unknown fields whatever their value', () => {
    const obj = cr({ replicas: 1, extra: 'x', gone: null, ports: [{ port: 80, bogus: { deep: [1] } }], strategy: { type: 'R', nope: 3 } });
    expect(compiled.prune(obj)).toEqual(['.spec.extra', '.spec.gone', '.spec.ports[0].bogus', '.spec.strategy.nope']);
    expect(obj.spec).toEqual({ replicas: 1, ports: [{ port: 80 }], strategy: { type: 'R' } });
  });

  it('defaults deep inside a default just set, and leaves subtrees without defaults as they are', () => {
    const nested = compileSchema({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            plain: { type: 'object', properties: { a: { type: 'string' }, list: { type: 'array', items: { type: 'object', properties: { b: { type: 'integer' } } } } } },
            outer: { type: 'object', default: {}, properties: { inner: { type: 'object', default: {}, properties: { leaf: { type: 'string', default: 'x' } } } } },
            items: { type: 'array', items: { type: 'object', properties: { deep: { type: 'object', properties: { d: { type: 'integer', default: 7 } } } } } },
          },
        },
      },
    });
    const obj = cr({ plain: { a: 'v', list: [{ b: 1 }, {}] }, items: [{ deep: {} }, {}] });
    nested.applyDefaults(obj);
    expect(obj.spec).toEqual({ plain: { a: 'v', list: [{ b: 1 }, {}] }, outer: { inner: { leaf: 'x' } }, items: [{ deep: { d: 7 } }, {}] });
  });

  it('prunes a key named __proto__ like any other', () => {
    const obj = JSON.parse('{"apiVersion":"example.com/v1","kind":"W","metadata":{},"spec":{"__proto__":{"polluted":1},"replicas":1}}') as Record<string, unknown>;
    expect(compileSchema(schema).prune(obj)).toEqual(['.spec.__proto__']);
    expect(obj.spec).toEqual({ replicas: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

// The upstream round-trip fixtures of every served kind through the server's own request decoder
// and JSON response encoder: the .json and the .yaml body go through readObject (media type,
// apiVersion/kind check, the Go-type decode check, unknown and duplicate field detection under
// fieldValidation=Strict) and come back out of the negotiator as application/json, which must be
// the .json fixture again. test/generator/served-fixtures.test.ts covers the protobuf twin.
//
// kube's own round trip (decode into the Go struct, encode with encoding/json) changes nothing in
// these fixtures: they were written by that very encoder, so every field is already in its
// canonical form. The two steps of ours that do change a body are accounted for here: readObject
// fills apiVersion and kind from the endpoint (the fixtures carry both, so nothing is filled), and
// the encoder escapes <, > and & as Go does (JSON.parse undoes that, so parsed objects compare).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { DEFAULT_HANDLER_CONFIG, readObject, type RequestContext } from '../../runtime/api/handlers/context.js';
import { createNegotiator } from '../../runtime/api/negotiator.js';
import { loadDescriptorRoot } from '../../runtime/api/protobuf/index.js';
import type { ResourceDefinition } from '../../runtime/registry/definition.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const TESTDATA = join(UPSTREAM_DIR, 'testdata');
const DESCRIPTORS = join(import.meta.dirname, '..', '..', 'generated', 'protobuf', 'descriptors.json');
const present = upstreamAvailable();

const fixtureName = (r: ResourceDefinition): string => `${r.group || 'core'}.${r.version}.${r.kind}`;
const served = present ? resources.filter((r) => existsSync(join(TESTDATA, `${fixtureName(r)}.json`))) : [];

const MEDIA_TYPES = [
  ['json', 'application/json'],
  ['yaml', 'application/yaml'],
] as const;

describe.runIf(present)('served kinds decode the upstream JSON and YAML fixtures strictly and re-encode to the JSON fixture', () => {
  const negotiator = createNegotiator({ root: loadDescriptorRoot(DESCRIPTORS) });

  /** The context readObject gets for a create of `def` with this body: the path the server takes. */
  function createContext(def: ResourceDefinition, contentType: string, body: string): RequestContext {
    const prefix = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
    const path = def.namespaced ? `${prefix}/namespaces/default/${def.plural}` : `${prefix}/${def.plural}`;
    const url = `https://127.0.0.1${path}?fieldValidation=Strict`;
    const request = new Request(url, { method: 'POST', body, headers: { 'content-type': contentType } });
    return {
      request,
      config: DEFAULT_HANDLER_CONFIG,
      info: newRequestInfo('POST', url),
      store: { definition: def },
      negotiator,
      query: new URL(url).searchParams,
      target: { group: def.group, version: def.version, kind: def.kind },
      warnings: [],
    };
  }

  it('covers a kind of every served group with fixtures', () => {
    const groups = new Set(served.map((r) => r.group));
    expect([...groups].sort()).toEqual(['', 'authentication.k8s.io', 'authorization.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'storage.k8s.io']);
  });

  describe.each(served.map((r) => [fixtureName(r), r] as const))('%s', (name, def) => {
    const json = present ? readFileSync(join(TESTDATA, `${name}.json`), 'utf8') : '';
    const expected = present ? JSON.parse(json) : undefined;

    it.each(MEDIA_TYPES)('the .%s fixture decodes without complaint and encodes back to the .json', async (ext, contentType) => {
      const body = ext === 'json' ? json : readFileSync(join(TESTDATA, `${name}.yaml`), 'utf8');
      const ctx = createContext(def, contentType, body);
      // Strict turns any unknown or repeated field into a 400, so a clean return is the assertion.
      const decoded = await readObject(ctx, 'Strict');
      expect(ctx.warnings).toEqual([]);
      const encoded = negotiator.encodeResponse('application/json', decoded, ctx.target);
      expect(encoded.contentType).toBe('application/json');
      expect(JSON.parse(String(encoded.body))).toEqual(expected);
    });
  });

  // The same path refuses what kube's strict decoder refuses, so the clean returns above mean something.
  const configMap = resources.find((r) => r.group === '' && r.kind === 'ConfigMap')!;
  it.each([
    ['an unknown field', 'application/json', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"spec":{}}', 'strict decoding error: unknown field "spec"'],
    ['a repeated JSON member', 'application/json', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}', 'strict decoding error: duplicate field "metadata.name"'],
    ['a repeated YAML key', 'application/yaml', 'apiVersion: v1\nkind: ConfigMap\ndata:\n  k: a\n  k: b\n', 'strict decoding error: line 5: key "k" already set in map'],
    ['a value of the wrong Go type', 'application/json', '{"apiVersion":"v1","kind":"ConfigMap","data":{"k":1}}', 'cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    // Repetitions the parsed body cannot show: it is missing the type fields the decoder fills in,
    // the repetition is inside a list, keys and values hold quotes, colons and multi-byte text.
    ['a repeated member of a body without apiVersion and kind', 'application/json', '{"metadata":{"name":"a"},"data":{"k":"1","k":"2"}}', 'strict decoding error: duplicate field "data.k"'],
    [
      'a repeated member inside a list',
      'application/json',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"},{"apiVersion":"v1","kind":"Pod","name":"q","uid":"v","uid":"w"}]}}',
      'strict decoding error: duplicate field "metadata.ownerReferences[1].uid"',
    ],
    [
      'a repeated member whose name holds quotes and colons',
      'application/json',
      '{"apiVersion":"v1","kind":"ConfigMap","data":{"a\\": \\"b":"\\" : \\"","ü:\\\\":"é","a\\": \\"b" :"x"}}',
      `strict decoding error: duplicate field ${JSON.stringify('data.a": "b')}`,
    ],
  ])('refuses %s with a 400', async (_, contentType, body, message) => {
    const ctx = createContext(configMap, contentType, body);
    await expect(readObject(ctx, 'Strict')).rejects.toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringContaining(message) });
  });

  it('accepts members that only look repeated (in values, in other objects) without a warning', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"name":"x"}},"data":{"name":"\\"name\\":","k":"name: k:"}}';
    const ctx = createContext(configMap, 'application/json', body);
    const decoded = await readObject(ctx, 'Warn');
    expect(ctx.warnings).toEqual([]);
    expect(decoded.data).toEqual({ name: '"name":', k: 'name: k:' });
  });

  it('warns of unknown fields in the order the body has them, number-like names included', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"zeta":1,"5":2,"data":{"k":"v"},"alpha":3}';
    const ctx = createContext(configMap, 'application/json', body);
    const decoded = await readObject(ctx, 'Warn');
    expect(ctx.warnings).toEqual(['unknown field "zeta"', 'unknown field "5"', 'unknown field "alpha"']);
    expect(decoded).not.toHaveProperty('zeta');
    expect(decoded.data).toEqual({ k: 'v' });
  });
});

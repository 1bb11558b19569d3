// Accept and Content-Type negotiation, row by row against kube-apiserver's behaviour
// (k8s.io/apiserver endpoints/handlers/negotiation and RequestScope.AllowsMediaTypeTransform).

import { describe, expect, it } from 'vitest';
import {
  isPrettyPrint,
  negotiateErrorOutput,
  negotiateInput,
  negotiateOutput,
  negotiatePatchType,
  parseAccept,
  selectOutput,
  type EndpointCapabilities,
} from '../../runtime/api/negotiation.js';
import { decodeInput, encodeJSON, encodeYAML, responseEncoder } from '../../runtime/api/serializers.js';
import { StatusError } from '../../runtime/errors/status-error.js';

const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const TABLE_V1BETA1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
const NOT_ACCEPTABLE = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

type Row = [accept: string | undefined, caps: EndpointCapabilities, want: { contentType: string; convert?: object } | string];

const rows: Row[] = [
  [undefined, {}, { contentType: 'application/json' }],
  ['', {}, { contentType: 'application/json' }],
  ['*/*', {}, { contentType: 'application/json' }],
  ['*', {}, { contentType: 'application/json' }],
  ['application/*', {}, { contentType: 'application/json' }],
  ['application/json', {}, { contentType: 'application/json' }],
  ['application/json;charset=utf-8', {}, { contentType: 'application/json' }],
  ['application/yaml', {}, { contentType: 'application/yaml' }],
  ['application/vnd.kubernetes.protobuf', {}, { contentType: 'application/vnd.kubernetes.protobuf' }],
  ['application/vnd.cluster.protobuf', {}, { contentType: 'application/vnd.cluster.protobuf' }],
  // client-go's default for built-in types
  ['application/vnd.kubernetes.protobuf, */*', {}, { contentType: 'application/vnd.kubernetes.protobuf' }],
  // custom resources have no protobuf: the JSON alternative is taken
  ['application/vnd.kubernetes.protobuf, application/json', { protobufSupported: false }, { contentType: 'application/json' }],
  ['application/vnd.cluster.protobuf, application/json', { protobufSupported: false }, { contentType: 'application/json' }],
  ['application/vnd.kubernetes.protobuf', { protobufSupported: false }, NOT_ACCEPTABLE],
  // q-values order the clauses; wildcards come after concrete types
  ['application/json;q=0.5, application/yaml', {}, { contentType: 'application/yaml' }],
  ['application/json;q=0.9, application/yaml;q=0.8', {}, { contentType: 'application/json' }],
  ['*/*, application/yaml', {}, { contentType: 'application/yaml' }],
  // q=0 is not treated as "never" by kube-apiserver
  ['application/yaml;q=0', {}, { contentType: 'application/yaml' }],
  ['text/html', {}, NOT_ACCEPTABLE],
  ['text/html, application/xml;q=0.9', {}, NOT_ACCEPTABLE],
  ['application/cbor', {}, NOT_ACCEPTABLE],
  ['garbage', {}, NOT_ACCEPTABLE],
  // kubectl get: Table in v1, then v1beta1, then plain JSON
  [`${TABLE_V1},${TABLE_V1BETA1},application/json`, {}, { contentType: 'application/json', convert: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' } }],
  [TABLE_V1, {}, { contentType: 'application/json', convert: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' } }],
  ['application/yaml;as=Table;v=v1;g=meta.k8s.io', {}, { contentType: 'application/yaml', convert: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' } }],
  // Table has no protobuf form
  ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', {}, NOT_ACCEPTABLE],
  ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json', {}, { contentType: 'application/json' }],
  [TABLE_V1, { tableSupported: false }, NOT_ACCEPTABLE],
  ['application/json;as=Table;v=v2;g=meta.k8s.io', {}, NOT_ACCEPTABLE],
  ['application/json;as=Table;v=v1;g=example.com', {}, NOT_ACCEPTABLE],
  ['application/json;as=Deployment;v=v1;g=apps', {}, NOT_ACCEPTABLE],
  // PartialObjectMetadata is served in every format, protobuf included
  [
    'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    {},
    { contentType: 'application/vnd.kubernetes.protobuf', convert: { kind: 'PartialObjectMetadataList', group: 'meta.k8s.io', version: 'v1' } },
  ],
  ['application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', { protobufSupported: false }, { contentType: 'application/json', convert: { kind: 'PartialObjectMetadata', group: 'meta.k8s.io', version: 'v1' } }],
  // a server version we do not have
  ['application/json;sv=v2', {}, NOT_ACCEPTABLE],
  // watches
  ['application/json', { streaming: true }, { contentType: 'application/json' }],
  ['application/json;stream=watch', { streaming: true }, { contentType: 'application/json' }],
  ['application/vnd.kubernetes.protobuf;stream=watch', { streaming: true }, { contentType: 'application/vnd.kubernetes.protobuf;stream=watch' }],
  ['application/vnd.kubernetes.protobuf, */*', { streaming: true }, { contentType: 'application/vnd.kubernetes.protobuf;stream=watch' }],
  ['application/yaml;stream=watch, application/json', { streaming: true }, { contentType: 'application/json' }],
  [`${TABLE_V1},application/json`, { streaming: true }, { contentType: 'application/json', convert: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' } }],
  // YAML is chosen first and has no stream form: kube-apiserver answers 406, listing stream types
  ['application/yaml, application/json', { streaming: true }, 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch'],
];

describe('negotiateOutput', () => {
  it.each(rows)('Accept %j %j', (accept, caps, want) => {
    if (typeof want === 'string') {
      let error: unknown;
      try {
        negotiateOutput(accept, caps);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(StatusError);
      expect((error as StatusError).toStatus()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: want,
        reason: 'NotAcceptable',
        code: 406,
      });
      return;
    }
    const got = negotiateOutput(accept, caps);
    expect(got.contentType).toBe(want.contentType);
    expect(got.convert).toEqual(want.convert);
  });

  it('honours pretty=1 in the media type and the pretty capability', () => {
    expect(negotiateOutput('application/json;pretty=1').pretty).toBe(true);
    expect(negotiateOutput('application/json').pretty).toBe(false);
    expect(negotiateOutput('application/json', { pretty: true }).pretty).toBe(true);
  });
});

describe('selectOutput with endpoint restrictions (allowsConvert)', () => {
  const none: EndpointCapabilities = { allowsConvert: () => false };
  const aggregated: EndpointCapabilities = { allowsConvert: (t, format) => format === 'json' && t.kind === 'APIGroupDiscoveryList' };
  it.each<[string, EndpointCapabilities, string | undefined, string | undefined]>([
    ['application/json;as=Table;v=v1;g=meta.k8s.io', none, undefined, undefined],
    ['application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml', none, 'application/yaml', undefined],
    ['application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io', aggregated, 'application/json', 'APIGroupDiscoveryList'],
    ['application/yaml;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io, application/json', aggregated, 'application/json', undefined],
    ['application/json;as=Table;v=v1;g=meta.k8s.io', aggregated, undefined, undefined],
  ])('Accept %j', (accept, caps, mediaType, kind) => {
    const chosen = selectOutput(accept, caps);
    expect(chosen?.mediaType).toBe(mediaType);
    expect(chosen?.convert?.kind).toBe(kind);
  });

  it('negotiateOutput refuses what no clause allows with 406', () => {
    expect(() => negotiateOutput('application/json;as=Table;v=v1;g=meta.k8s.io', none)).toThrow(expect.objectContaining({ code: 406, reason: 'NotAcceptable' }));
  });
});

describe('parseAccept', () => {
  it('parses parameters and q-values as goautoneg does', () => {
    expect(parseAccept('application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, text/*;q=0.9,*/*;q=0.1')).toEqual([
      { type: 'text', subType: '*', q: Math.fround(0.9), params: {} },
      { type: 'application', subType: 'json', q: 0.5, params: { as: 'Table', v: 'v1', g: 'meta.k8s.io' } },
      { type: '*', subType: '*', q: Math.fround(0.1), params: {} },
    ]);
  });

  it('drops malformed ranges and parameters', () => {
    expect(parseAccept('application, a/b/c, x/y;novalue;k=v=w;q=abc')).toEqual([{ type: 'x', subType: 'y', q: 0, params: {} }]);
  });

  it('hands every request with the same value the same frozen clauses, which no caller can change', () => {
    const value = `${TABLE_V1}, application/json;q=0.5`;
    const first = parseAccept(value);
    expect(parseAccept(value)).toBe(first);
    expect(Object.isFrozen(first) && first.every((c) => Object.isFrozen(c) && Object.isFrozen(c.params))).toBe(true);
    expect(() => ((first[0].params as Record<string, string>).as = 'PartialObjectMetadata')).toThrow(TypeError);
    expect(negotiateOutput(value, {}).convert).toMatchObject({ kind: 'Table' });
  });

  it('keeps a bounded number of values, and parses new and long ones as before', () => {
    // More distinct values than are kept: the kept ones are dropped, never grown past the bound.
    for (let i = 0; i < 200; i++) expect(parseAccept(`application/x-${i}, application/json;q=0.5`)[0]).toMatchObject({ subType: `x-${i}` });
    const long = `${'application/unknown;p=v, '.repeat(20)}application/yaml`;
    expect(long.length).toBeGreaterThan(256);
    expect(parseAccept(long)).not.toBe(parseAccept(long));
    expect(negotiateOutput(long, {}).contentType).toBe('application/yaml');
    expect(negotiateOutput(`${TABLE_V1}`, {}).convert).toMatchObject({ kind: 'Table' });
  });
});

describe('negotiateErrorOutput', () => {
  it('encodes errors in the negotiated type, without transformations, else JSON', () => {
    expect(negotiateErrorOutput('application/vnd.kubernetes.protobuf, */*').contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(negotiateErrorOutput(`${TABLE_V1},application/json`)).toMatchObject({ contentType: 'application/json', pretty: false });
    expect(negotiateErrorOutput(TABLE_V1)).toMatchObject({ contentType: 'application/json', pretty: true });
    expect(negotiateErrorOutput('text/html')).toMatchObject({ contentType: 'application/json' });
    expect(negotiateErrorOutput('application/yaml').contentType).toBe('application/yaml');
  });
});

describe('negotiateInput', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['application/json', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['Application/JSON', 'json'],
    ['application/yaml', 'yaml'],
    ['application/vnd.kubernetes.protobuf', 'protobuf'],
    ['application/vnd.cluster.protobuf', 'protobuf'],
  ])('Content-Type %j is %s', (contentType, format) => {
    expect(negotiateInput(contentType)).toBe(format);
  });

  it.each([['text/plain'], ['application/merge-patch+json'], ['application/json; =x'], ['json'], ['application/x-www-form-urlencoded']])(
    'Content-Type %j is 415',
    (contentType) => {
      expect(() => negotiateInput(contentType)).toThrow(
        expect.objectContaining({
          code: 415,
          reason: 'UnsupportedMediaType',
          message:
            'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
        }),
      );
    },
  );

  it('answers each Content-Type the same however often it comes and however many others came between', () => {
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) {
        expect(() => negotiateInput(`application/x-bench-${i}`)).toThrow(expect.objectContaining({ code: 415 }));
        expect(negotiateInput(`application/json; charset=utf-${i}`)).toBe('json');
      }
      expect(negotiateInput('Application/YAML')).toBe('yaml');
      expect(() => negotiateInput('application/json; =x')).toThrow(expect.objectContaining({ code: 415 }));
    }
  });

  it('does not take protobuf bodies for kinds without a message', () => {
    expect(() => negotiateInput('application/vnd.kubernetes.protobuf', { protobufSupported: false })).toThrow(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    );
  });
});

describe('negotiatePatchType', () => {
  it('accepts the listed patch types, parameters ignored', () => {
    expect(negotiatePatchType('application/merge-patch+json')).toBe('application/merge-patch+json');
    expect(negotiatePatchType('application/merge-patch+json; charset=UTF-8', ['application/merge-patch+json'])).toBe('application/merge-patch+json');
  });

  it('rejects others with the list the endpoint takes', () => {
    expect(() => negotiatePatchType('application/json')).toThrow(
      expect.objectContaining({
        code: 415,
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
      }),
    );
    expect(() => negotiatePatchType(undefined, ['application/merge-patch+json'])).toThrow(
      'accepted media types include: application/merge-patch+json',
    );
  });
});

describe('isPrettyPrint', () => {
  it('follows ?pretty, then the user agent', () => {
    expect(isPrettyPrint('true', 'kubectl/v1.33')).toBe(true);
    expect(isPrettyPrint('false', 'curl/8.0')).toBe(false);
    expect(isPrettyPrint(null, 'curl/8.0')).toBe(true);
    expect(isPrettyPrint(undefined, 'Mozilla/5.0 (X11)')).toBe(true);
    expect(isPrettyPrint(null, 'kubectl/v1.33')).toBe(false);
  });
});

describe('serializers', () => {
  it('writes JSON as Go does: HTML-safe escapes, newline when compact, indent when pretty', () => {
    const obj = { kind: 'ConfigMap', data: { html: '<a href="x">&</a>', line: '\u2028' } };
    expect(encodeJSON(obj)).toBe('{"kind":"ConfigMap","data":{"html":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e","line":"\\u2028"}}\n');
    expect(encodeJSON({ a: [1] }, true)).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(encodeJSON({ a: 'plain' })).toBe('{"a":"plain"}\n');
  });

  it('writes YAML with sorted keys and unindented sequences', () => {
    expect(encodeYAML({ metadata: { name: 'a' }, kind: 'ConfigMap', apiVersion: 'v1', list: ['x', 'y'] })).toBe(
      'apiVersion: v1\nkind: ConfigMap\nlist:\n- x\n- y\nmetadata:\n  name: a\n',
    );
  });

  it('frames JSON watch events as one document per line', () => {
    const enc = responseEncoder(negotiateOutput('application/json', { streaming: true }));
    expect(enc.encodeWatchEvent('ADDED', { kind: 'ConfigMap', apiVersion: 'v1' })).toBe(
      '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1"}}\n',
    );
  });

  it('decodes JSON and YAML bodies, filling a missing apiVersion and kind', () => {
    const expected = { apiVersion: 'v1', kind: 'ConfigMap' };
    expect(decodeInput('application/json', Buffer.from('{"metadata":{"name":"a"}}'), { expected })).toEqual({
      metadata: { name: 'a' },
      apiVersion: 'v1',
      kind: 'ConfigMap',
    });
    expect(decodeInput('application/yaml', Buffer.from('kind: ConfigMap\napiVersion: v1\ndata:\n  a: "1"\n'))).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      data: { a: '1' },
    });
  });

  it('rejects undecodable bodies with 400', () => {
    const body = Buffer.from('{"metadata": {"name": "a"}, "data": oops}');
    expect(() => decodeInput('application/json', body, { expected: { apiVersion: 'v1', kind: 'ConfigMap' } })).toThrow(
      expect.objectContaining({
        code: 400,
        reason: 'BadRequest',
        message: expect.stringMatching(/^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .* \(\{"metadata": \{"name": "a"\}, "d \.\.\.\)$/),
      }),
    );
    expect(() => decodeInput('application/json', Buffer.from('[1]'))).toThrow(expect.objectContaining({ code: 400 }));
  });
});

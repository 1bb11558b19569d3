// Bootstrap-token Secrets: the specification's "Bootstrap tokens" table enforced on write through
// the Secret strategy (kube-apiserver itself stores such Secrets unchecked), with causes at
// data[<key>]; and once over HTTPS with stringData, as kubeadm writes them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

type Obj = Record<string, unknown>;
const def = resources.find((r) => r.kind === 'Secret')!;
const strategy = strategiesFor(def).main;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const TYPE = 'bootstrap.kubernetes.io/token';

/** A valid token Secret with `data` overridden (undefined removes a key). */
function token(data: Record<string, string | undefined> = {}, name = 'bootstrap-token-abcdef'): Obj {
  const all: Record<string, string | undefined> = {
    'token-id': 'abcdef',
    'token-secret': '0123456789abcdef',
    description: 'joins nodes',
    expiration: '2030-01-02T03:04:05Z',
    'usage-bootstrap-authentication': 'true',
    'usage-bootstrap-signing': 'true',
    'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
    ...data,
  };
  const encoded = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined).map(([k, v]) => [k, b64(v as string)]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'kube-system' }, type: TYPE, data: encoded };
}

const validate = (obj: Obj) => {
  const copy = structuredClone(obj);
  strategy.prepareForCreate(copy);
  return strategy.validate(copy);
};

const ID_MSG = "must be 6 characters of lower-case letters and digits (e.g. 'abcdef', regex used for validation is '[a-z0-9]{6}')";
const SECRET_MSG = "must be 16 characters of lower-case letters and digits (regex used for validation is '[a-z0-9]{16}')";
const GROUP_PATTERN = 'system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]';

describe('bootstrap-token Secrets', () => {
  it.each<[string, Obj]>([
    ['a full token', token()],
    ['only the required keys', token({ description: undefined, expiration: undefined, 'usage-bootstrap-authentication': undefined, 'usage-bootstrap-signing': undefined, 'auth-extra-groups': undefined })],
    ['an expiration with a +00:00 offset', token({ expiration: '2030-01-02T03:04:05+00:00' })],
    ['several extra groups', token({ 'auth-extra-groups': 'system:bootstrappers:a,system:bootstrappers:b-1:c' })],
    // A flag other than "true" only withholds that use (the authenticator refuses such a token).
    ['usage flags other than "true"', token({ 'usage-bootstrap-authentication': 'false', 'usage-bootstrap-signing': 'yes' })],
    ['a token-id of digits only', token({ 'token-id': '012345' }, 'bootstrap-token-012345')],
  ])('accepts %s', (_name, obj) => {
    expect(validate(obj)).toEqual([]);
  });

  it('accepts the keys written through stringData', () => {
    const obj: Obj = { metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, type: TYPE, stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' } };
    expect(validate(obj)).toEqual([]);
  });

  it('leaves Secrets of other types alone', () => {
    expect(validate({ ...token({ 'token-id': 'BAD' }), type: 'Opaque' })).toEqual([]);
  });

  it.each<[string, Obj, { reason: string; field: string; message: string }[]]>([
    ['no token-id and no token-secret', token({ 'token-id': undefined, 'token-secret': undefined }), [
      { reason: 'FieldValueRequired', field: 'data[token-id]', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'data[token-secret]', message: 'Required value' },
    ]],
    ['an upper-case token-id', token({ 'token-id': 'ABCDEF' }, 'bootstrap-token-abcdef'), [{ reason: 'FieldValueInvalid', field: 'data[token-id]', message: `Invalid value: "ABCDEF": ${ID_MSG}` }]],
    ['a 7-character token-id', token({ 'token-id': 'abcdefg' }), [{ reason: 'FieldValueInvalid', field: 'data[token-id]', message: `Invalid value: "abcdefg": ${ID_MSG}` }]],
    ['a name that does not match the token-id', token({}, 'bootstrap-token-zzzzzz'), [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "bootstrap-token-zzzzzz": must be "bootstrap-token-abcdef", the bootstrap-token- prefix followed by data[token-id]' }]],
    ['a short token-secret, never echoed', token({ 'token-secret': 'tooshort' }), [{ reason: 'FieldValueInvalid', field: 'data[token-secret]', message: `Invalid value: "<secret contents redacted>": ${SECRET_MSG}` }]],
    ['a token-secret with a dot', token({ 'token-secret': '0123456789abcde.' }), [{ reason: 'FieldValueInvalid', field: 'data[token-secret]', message: `Invalid value: "<secret contents redacted>": ${SECRET_MSG}` }]],
    ['an expiration that is not RFC 3339', token({ expiration: 'tomorrow' }), [{ reason: 'FieldValueInvalid', field: 'data[expiration]', message: 'Invalid value: "tomorrow": must be an RFC 3339 timestamp in UTC (e.g. 2006-01-02T15:04:05Z)' }]],
    ['an expiration outside UTC', token({ expiration: '2030-01-02T03:04:05+02:00' }), [{ reason: 'FieldValueInvalid', field: 'data[expiration]', message: 'Invalid value: "2030-01-02T03:04:05+02:00": must be an RFC 3339 timestamp in UTC (e.g. 2006-01-02T15:04:05Z)' }]],
    ['an extra group outside system:bootstrappers:', token({ 'auth-extra-groups': 'system:bootstrappers:ok,system:masters' }), [
      { reason: 'FieldValueInvalid', field: 'data[auth-extra-groups]', message: `Invalid value: "system:bootstrappers:ok,system:masters": bootstrap group "system:masters" is invalid (must match ${GROUP_PATTERN})` },
    ]],
    ['a blank after a comma (groups are split on commas only, as the authenticator splits them)', token({ 'auth-extra-groups': 'system:bootstrappers:a, system:bootstrappers:b' }), [
      { reason: 'FieldValueInvalid', field: 'data[auth-extra-groups]', message: `Invalid value: "system:bootstrappers:a, system:bootstrappers:b": bootstrap group " system:bootstrappers:b" is invalid (must match ${GROUP_PATTERN})` },
    ]],
    ['an extra group ending in a colon', token({ 'auth-extra-groups': 'system:bootstrappers:' }), [
      { reason: 'FieldValueInvalid', field: 'data[auth-extra-groups]', message: `Invalid value: "system:bootstrappers:": bootstrap group "system:bootstrappers:" is invalid (must match ${GROUP_PATTERN})` },
    ]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(validate(obj)).toEqual(causes);
  });

  it('leaves a value of the wrong type to the schema check alone', () => {
    const obj = token();
    (obj.data as Record<string, unknown>)['token-id'] = 123;
    (obj.data as Record<string, unknown>).expiration = true;
    expect(validate(obj)).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'data[token-id]', message: 'Invalid value: "integer": must be of type string' },
      { reason: 'FieldValueTypeInvalid', field: 'data[expiration]', message: 'Invalid value: "boolean": must be of type string' },
    ]);
  });

  it('checks updates too (kube-apiserver validates the whole Secret again on update)', () => {
    const old = token();
    strategy.prepareForCreate(old);
    (old.metadata as Obj).resourceVersion = '5';
    const next = structuredClone(old);
    (next.data as Record<string, string>)['token-secret'] = b64('short');
    strategy.prepareForUpdate(next, old);
    expect(strategy.validateUpdate(next, old)).toEqual([{ reason: 'FieldValueInvalid', field: 'data[token-secret]', message: `Invalid value: "<secret contents redacted>": ${SECRET_MSG}` }]);
  });
});

describe('bootstrap-token Secrets over HTTPS', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
  });
  afterAll(() => server?.close());

  const create = (body: Obj) =>
    call(server.url, '/api/v1/namespaces/kube-system/secrets', kubeconfigCredentials(server.kubeconfig), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('stores a valid token written with stringData and answers 422 for a bad one', async () => {
    const good = await create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-07401b' }, type: TYPE, stringData: { 'token-id': '07401b', 'token-secret': 'f395accd246ae52d', 'usage-bootstrap-authentication': 'true' } });
    expect(good.status).toBe(201);
    const bad = await create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-07401c' }, type: TYPE, stringData: { 'token-id': '07401c' } });
    expect(bad.status).toBe(422);
    expect(bad.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Secret "bootstrap-token-07401c" is invalid: data[token-secret]: Required value',
      reason: 'Invalid',
      details: { name: 'bootstrap-token-07401c', kind: 'Secret', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data[token-secret]' }] },
      code: 422,
    });
  });
});

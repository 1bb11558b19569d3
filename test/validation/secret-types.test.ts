// The keys kube-apiserver's ValidateSecret requires of the well-known Secret types, with its exact
// causes; dockercfg contents are checked as Go's json.Unmarshal into a map checks them, and its
// error text is passed through as kube-apiserver does.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { goUnmarshalObjectError } from '../../runtime/machinery/go-json.js';

type Obj = Record<string, unknown>;
const strategy = strategiesFor(resources.find((r) => r.kind === 'Secret')!).main;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const secret = (type: string, data: Record<string, string> = {}, annotations?: Record<string, string>): Obj => ({
  metadata: { name: 's', namespace: 'default', ...(annotations ? { annotations } : {}) },
  type,
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const validate = (obj: Obj) => {
  const copy = structuredClone(obj);
  strategy.prepareForCreate(copy);
  return strategy.validate(copy);
};
const REDACTED = 'Invalid value: "<secret contents redacted>"';

describe('typed Secrets', () => {
  it.each<[string, Obj]>([
    ['a service account token naming its account', secret('kubernetes.io/service-account-token', {}, { 'kubernetes.io/service-account.name': 'default' })],
    ['a dockercfg of an object', secret('kubernetes.io/dockercfg', { '.dockercfg': '{"registry.example.com":{"auth":"eA=="}}' })],
    ['a dockerconfigjson of null (Go leaves the map nil)', secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': ' null ' })],
    ['basic-auth with only a username', secret('kubernetes.io/basic-auth', { username: 'admin' })],
    ['basic-auth with an empty password', secret('kubernetes.io/basic-auth', { password: '' })],
    ['ssh-auth with a key', secret('kubernetes.io/ssh-auth', { 'ssh-privatekey': 'KEY' })],
    ['tls with empty halves (only presence is checked)', secret('kubernetes.io/tls', { 'tls.crt': '', 'tls.key': '' })],
    ['an unknown type with no data', secret('example.com/custom')],
  ])('accepts %s', (_name, obj) => {
    expect(validate(obj)).toEqual([]);
  });

  it.each<[string, Obj, { reason: string; field: string; message: string }[]]>([
    ['a service account token without its account annotation', secret('kubernetes.io/service-account-token'), [{ reason: 'FieldValueRequired', field: 'metadata.annotations[kubernetes.io/service-account.name]', message: 'Required value' }]],
    ['a dockercfg without its key', secret('kubernetes.io/dockercfg'), [{ reason: 'FieldValueRequired', field: 'data[.dockercfg]', message: 'Required value' }]],
    ['a dockerconfigjson without its key', secret('kubernetes.io/dockerconfigjson', { other: '{}' }), [{ reason: 'FieldValueRequired', field: 'data[.dockerconfigjson]', message: 'Required value' }]],
    ['a dockercfg that is not JSON', secret('kubernetes.io/dockercfg', { '.dockercfg': 'nope' }), [{ reason: 'FieldValueInvalid', field: 'data[.dockercfg]', message: `${REDACTED}: invalid character 'o' in literal null (expecting 'u')` }]],
    ['a dockerconfigjson holding an array', secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '[]' }), [{ reason: 'FieldValueInvalid', field: 'data[.dockerconfigjson]', message: `${REDACTED}: json: cannot unmarshal array into Go value of type map[string]interface {}` }]],
    ['basic-auth with neither key', secret('kubernetes.io/basic-auth', { user: 'x' }), [
      { reason: 'FieldValueRequired', field: 'data[username]', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'data[password]', message: 'Required value' },
    ]],
    ['ssh-auth with an empty key', secret('kubernetes.io/ssh-auth', { 'ssh-privatekey': '' }), [{ reason: 'FieldValueRequired', field: 'data[ssh-privatekey]', message: 'Required value' }]],
    ['tls without either half', secret('kubernetes.io/tls'), [
      { reason: 'FieldValueRequired', field: 'data[tls.crt]', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'data[tls.key]', message: 'Required value' },
    ]],
    ['tls without the key', secret('kubernetes.io/tls', { 'tls.crt': 'CERT' }), [{ reason: 'FieldValueRequired', field: 'data[tls.key]', message: 'Required value' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(validate(obj)).toEqual(causes);
  });
});

describe("Go's json.Unmarshal errors into map[string]interface{}", () => {
  it.each<[string, string]>([
    ['{}', ''],
    ['{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\n"]}', ''],
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} {}', "invalid character '{' after top-level value"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
    ['{"a":"\n"}', "invalid character '\\n' in string literal"],
    ['{"a":-}', "invalid character '}' in numeric literal"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['"str"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['12', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
    ['true', 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
  ])('%j', (input, want) => {
    expect(goUnmarshalObjectError(Buffer.from(input, 'utf8'))).toBe(want);
  });
});

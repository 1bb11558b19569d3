// Bodies that do not fit the kind's Go types, refused as kube-apiserver's decoders refuse them:
// before defaulting or validation, as a 400 "<Kind> in version ... cannot be handled as a <Kind>:"
// with encoding/json's (sigs.k8s.io/json's) wording for create and update (JSON and YAML alike),
// the custom decoders' own texts for Quantity, Time, MicroTime, IntOrString and []byte, and a
// 422 on the field "patch" when a patch produces such an object (quoting the patched JSON for
// merge and JSON patches, the patch as Go prints a map for strategic merge patches).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeObject, loadDescriptorRoot } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const NS = '/api/v1/namespaces/default';
const JSON_TYPE = { 'content-type': 'application/json' };
const QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

beforeAll(async () => {
  wire = await startWireServer();
});
afterAll(async () => {
  await wire?.close();
});

type Obj = Record<string, unknown>;
const configMap = (fields: Obj, name = 'cm'): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...fields });
const pod = (container: Obj, spec: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'nginx', ...container }], ...spec },
});
const handled = (kind: string, why: string) => `${kind} in version "v1" cannot be handled as a ${kind}: ${why}`;

async function post(resource: string, body: Obj | string, headers: Record<string, string> = JSON_TYPE, query = '') {
  return wire.call('POST', `${NS}/${resource}${query}`, { headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

async function expectBadRequest(res: Awaited<ReturnType<typeof post>>, message: string) {
  expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message });
  expect(res.status).toBe(400);
}

describe('create: JSON bodies are decoded into the Go struct first', () => {
  const cases: [string, string, Obj, string][] = [
    ['a map given a number', 'configmaps', configMap({ data: 5 }), handled('ConfigMap', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string')],
    ['a map value of the wrong kind (map keys are not in the path)', 'configmaps', configMap({ data: { a: 5 } }), handled('ConfigMap', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string')],
    ['a bool where a map is', 'configmaps', configMap({ binaryData: true }), handled('ConfigMap', 'json: cannot unmarshal bool into Go struct field ConfigMap.binaryData of type map[string][]uint8')],
    ['a []byte that is no base64 (no field context)', 'configmaps', configMap({ binaryData: { b: 'a!==' } }), handled('ConfigMap', 'illegal base64 data at input byte 1')],
    ['a []byte without its padding', 'secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'abc' } }, handled('Secret', 'illegal base64 data at input byte 0')],
    ['a list where ObjectMeta has a map', 'configmaps', configMap({ metadata: { name: 'x', labels: ['a'] } }), handled('ConfigMap', 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string')],
    ['a string where a struct is', 'configmaps', configMap({ metadata: 'x' }), handled('ConfigMap', 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta')],
    ['an object where a bool is', 'configmaps', configMap({ immutable: {} }), handled('ConfigMap', 'json: cannot unmarshal object into Go struct field ConfigMap.immutable of type bool')],
    ['a Time that does not parse', 'configmaps', configMap({ metadata: { name: 'x', creationTimestamp: 'garbage' } }), handled('ConfigMap', 'parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"')],
    ['a Time with a month out of range', 'configmaps', configMap({ metadata: { name: 'x', creationTimestamp: '2024-13-01T00:00:00Z' } }), handled('ConfigMap', 'parsing time "2024-13-01T00:00:00Z": month out of range')],
    ['a Time that is a number (typed by its inner string decode)', 'configmaps', configMap({ metadata: { name: 'x', creationTimestamp: 5 } }), handled('ConfigMap', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string')],
    ['an int32 given a string, under the innermost struct with the full path', 'pods', pod({ ports: [{ containerPort: '80' }] }), handled('Pod', 'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32')],
    ['an int32 that overflows', 'pods', pod({ ports: [{ containerPort: 4294967296 }] }), handled('Pod', 'json: cannot unmarshal number 4294967296 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32')],
    ['an integer that is not integral', 'pods', pod({}, { terminationGracePeriodSeconds: 1.5 }), handled('Pod', 'json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64')],
    ['a list given an object', 'pods', { ...pod({}), spec: { containers: { name: 'c' } } }, handled('Pod', 'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container')],
    ['a list element of the wrong kind', 'pods', { ...pod({}), spec: { containers: [5] } }, handled('Pod', 'json: cannot unmarshal number into Go struct field PodSpec.spec.containers of type v1.Container')],
    ['a string list with a number', 'pods', pod({ args: ['a', 7] }), handled('Pod', 'json: cannot unmarshal number into Go struct field Container.spec.containers.args of type string')],
    ['an IntOrString given a bool', 'pods', pod({ readinessProbe: { httpGet: { port: true } } }), handled('Pod', 'json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.readinessProbe.httpGet.port of type int32')],
    ['an IntOrString given a fraction', 'pods', pod({ readinessProbe: { httpGet: { port: 80.5 } } }), handled('Pod', 'json: cannot unmarshal number 80.5 into Go struct field HTTPGetAction.spec.containers.readinessProbe.httpGet.port of type int32')],
    ['a quantity that does not parse', 'pods', pod({ resources: { limits: { cpu: '1 core' } } }), handled('Pod', QUANTITY)],
    ['a quantity with an unknown suffix', 'pods', pod({ resources: { requests: { memory: '1kk' } } }), handled('Pod', "unable to parse quantity's suffix")],
    ['a quantity that is a bool', 'pods', pod({ resources: { limits: { cpu: true } } }), handled('Pod', QUANTITY)],
    [
      'a claim storage request that is no quantity',
      'persistentvolumeclaims',
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1 GB' } } } },
      handled('PersistentVolumeClaim', QUANTITY),
    ],
    ['the first type error in document order', 'configmaps', configMap({ immutable: 'yes', data: 5 }), handled('ConfigMap', 'json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool')],
    ['a failing custom decoder over an earlier type error (it ends decoding)', 'pods', pod({ name: 5, resources: { limits: { cpu: 'lots' } } }), handled('Pod', QUANTITY)],
    [
      'a MicroTime without its six fractional digits',
      'events',
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, eventTime: '2024-01-01T00:00:00Z' },
      handled('Event', 'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
    ],
    [
      'a MicroTime that is a number',
      'events',
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, eventTime: 17 },
      handled('Event', 'json: cannot unmarshal number into Go struct field Event.eventTime of type string'),
    ],
  ];
  it.each(cases)('%s', async (_name, resource, body, message) => {
    await expectBadRequest(await post(resource, body), message);
  });

  it('judges numbers by their literal text, as Go does', async () => {
    const raw = (port: string) => `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n"},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":${port}}]}]}}`;
    const field = 'Go struct field ContainerPort.spec.containers.ports.containerPort of type int32';
    await expectBadRequest(await post('pods', raw('80.0')), handled('Pod', `json: cannot unmarshal number 80.0 into ${field}`));
    await expectBadRequest(await post('pods', raw('8e1')), handled('Pod', `json: cannot unmarshal number 8e1 into ${field}`));
    await expectBadRequest(await post('pods', raw('-0.5')), handled('Pod', `json: cannot unmarshal number -0.5 into ${field}`));
    const big = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n"},"spec":{"terminationGracePeriodSeconds":9223372036854775808,"containers":[{"name":"c","image":"nginx"}]}}';
    await expectBadRequest(await post('pods', big), handled('Pod', 'json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64'));
    // A quantity reads the literal as written.
    const cpu = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":0.5e1}}}]}}';
    expect((await post('pods', cpu)).status).toBe(201);
  });

  it('takes null for anything, as Go leaves the zero value', async () => {
    const res = await post('configmaps', configMap({ data: null, binaryData: null, immutable: null, metadata: { name: 'nulls', labels: null, creationTimestamp: null } }));
    expect(res.status).toBe(201);
  });

  it('reports a type error before unknown fields under fieldValidation=Strict', async () => {
    const res = await post('configmaps', configMap({ bogus: 1, data: 5 }), JSON_TYPE, '?fieldValidation=Strict');
    await expectBadRequest(res, handled('ConfigMap', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string'));
  });

  it('refuses an apiVersion or kind that is no string while reading them', async () => {
    const res = await post('configmaps', '{"apiVersion":"v1","kind":5,"metadata":{"name":"k"}}');
    await expectBadRequest(
      res,
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"apiVersion":"v1","kind":5,"m ...)',
    );
  });
});

describe('YAML bodies are converted to JSON first, so the messages are the same', () => {
  it('refuses a YAML body with a wrongly typed field', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata: 5\n';
    await expectBadRequest(await post('configmaps', yaml, { 'content-type': 'application/yaml' }), handled('ConfigMap', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string'));
  });

  it('refuses a YAML container port written as a quoted string', async () => {
    const yaml = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\nspec:\n  containers:\n  - name: c\n    image: nginx\n    ports:\n    - containerPort: "80"\n';
    await expectBadRequest(await post('pods', yaml, { 'content-type': 'application/yaml' }), handled('Pod', 'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'));
  });
});

describe('update and patch', () => {
  beforeAll(async () => {
    expect((await post('configmaps', configMap({ data: { a: 'b' } }, 'target'))).status).toBe(201);
  });

  it('refuses a PUT body that does not fit with the same 400', async () => {
    const res = await wire.call('PUT', `${NS}/configmaps/target`, { headers: JSON_TYPE, body: JSON.stringify(configMap({ data: { a: ['x'] } }, 'target')) });
    await expectBadRequest(res, handled('ConfigMap', 'json: cannot unmarshal array into Go struct field ConfigMap.data of type string'));
  });

  const patchCall = (type: string, body: unknown) => wire.call('PATCH', `${NS}/configmaps/target`, { headers: { 'content-type': type }, body: JSON.stringify(body) });

  /** The 422 of a patched object that no longer decodes: on the field "patch", with the decoder's words. */
  function expectInvalidPatch(res: Awaited<ReturnType<typeof patchCall>>, value: RegExp | string, why: string) {
    const status = res.json<{ message: string; reason: string; code: number; details: { causes: { reason: string; field: string; message: string }[] } }>();
    expect(res.status).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes).toHaveLength(1);
    const cause = status.details.causes[0];
    expect(cause.field).toBe('patch');
    expect(cause.reason).toBe('FieldValueInvalid');
    if (typeof value === 'string') expect(cause.message).toBe(`Invalid value: ${value}: ${why}`);
    else {
      expect(cause.message).toMatch(value);
      expect(cause.message.endsWith(`: ${why}`)).toBe(true);
    }
    expect(status.message).toBe(` "" is invalid: patch: ${cause.message}`);
  }

  it('a merge patch that sets a map to a number: 422 quoting the patched JSON', async () => {
    const res = await patchCall('application/merge-patch+json', { data: 5 });
    expectInvalidPatch(res, /^Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":5,\\"kind\\":\\"ConfigMap\\",\\"metadata\\":\{/, 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string');
  });

  it('a JSON patch that puts a number into a string map', async () => {
    const res = await patchCall('application/json-patch+json', [{ op: 'add', path: '/data/n', value: 1 }]);
    expectInvalidPatch(res, /^Invalid value: "\{/, 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  });

  it('a JSON patch that makes kind a number fails the version/kind step', async () => {
    const res = await patchCall('application/json-patch+json', [{ op: 'replace', path: '/kind', value: 5 }]);
    expectInvalidPatch(res, /^Invalid value: "\{/, "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string");
  });

  it('a merge patch with a Time that does not parse', async () => {
    const res = await patchCall('application/merge-patch+json', { metadata: { creationTimestamp: 'yesterday' } });
    expectInvalidPatch(res, /^Invalid value: "\{/, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  });

  it('a strategic merge patch that sets a map to a number: the converter\'s words, the patch as Go prints it', async () => {
    expectInvalidPatch(await patchCall('application/strategic-merge-patch+json', { data: 5 }), '"map[data:5]"', 'cannot restore map from int64');
    expectInvalidPatch(await patchCall('application/strategic-merge-patch+json', { data: { n: 1 } }), '"map[data:map[n:1]]"', 'cannot convert int64 to string');
    expectInvalidPatch(await patchCall('application/strategic-merge-patch+json', { immutable: 'yes' }), '"map[immutable:yes]"', 'unrecognized type: bool');
    expectInvalidPatch(await patchCall('application/strategic-merge-patch+json', { metadata: 'x' }), '"map[metadata:x]"', 'cannot restore struct from: string');
    expectInvalidPatch(await patchCall('application/strategic-merge-patch+json', { binaryData: { b: '!!' } }), '"map[binaryData:map[b:!!]]"', 'error decoding from json: illegal base64 data at input byte 0');
  });

  it('a strategic merge patch with a bad quantity: the custom decoder\'s own words', async () => {
    const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'smp' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    expect((await post('persistentvolumeclaims', claim)).status).toBe(201);
    const res = await wire.call('PATCH', `${NS}/persistentvolumeclaims/smp`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify({ spec: { resources: { requests: { storage: '1 GB' } } } }),
    });
    expectInvalidPatch(res, '"map[spec:map[resources:map[requests:map[storage:1 GB]]]]"', QUANTITY);
  });

  it('leaves the object as it was', async () => {
    const res = await wire.call('GET', `${NS}/configmaps/target`);
    expect(res.json<{ data: unknown }>().data).toEqual({ a: 'b' });
  });
});

describe('DELETE bodies are decoded into DeleteOptions, whose errors the delete handler passes on unwrapped', () => {
  // Node's client sends a DELETE body only with its length given.
  const del = (body: string) => wire.call('DELETE', `${NS}/configmaps/doomed`, { headers: { ...JSON_TYPE, 'content-length': String(Buffer.byteLength(body)) }, body });
  it.each([
    [{ gracePeriodSeconds: 'soon' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    [{ preconditions: { resourceVersion: 5 } }, 'json: cannot unmarshal number into Go struct field Preconditions.preconditions.resourceVersion of type string'],
    [{ dryRun: 'All' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string'],
    [{ kind: true }, "couldn't get version/kind; json parse error: json: cannot unmarshal bool into Go struct field .kind of type string"],
  ])('%j: 500 with no reason', async (body, message) => {
    expect((await post('configmaps', configMap({}, 'doomed'))).status).toBeLessThan(300);
    const res = await del(JSON.stringify(body));
    expect(res.status).toBe(500);
    const status = res.json();
    expect(status).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message });
    expect(status.reason ?? '').toBe('');
    // The object is untouched; a good body deletes it.
    expect((await del('{"gracePeriodSeconds":0}')).status).toBe(200);
  });
});

describe('protobuf bodies are typed by their decoder, which still parses quantities', () => {
  const PROTOBUF = { 'content-type': 'application/vnd.kubernetes.protobuf' };
  const encodePod = (pod: Obj) => new Uint8Array(encodeObject(loadDescriptorRoot(generatedPath('protobuf/descriptors.json')), 'k8s.io.api.core.v1.Pod', pod));

  it('refuses a quantity that does not parse with the same 400', async () => {
    const body = encodePod({ ...pod({ resources: { limits: { cpu: 'lots' } } }), metadata: { name: 'pb-bad' } });
    const res = await wire.call('POST', `${NS}/pods`, { headers: PROTOBUF, body });
    expect({ status: res.status, text: res.text }).toMatchObject({ status: 400, text: expect.stringContaining(JSON.stringify(handled('Pod', QUANTITY))) });
  });

  it('takes a well-typed protobuf pod with 64-bit integers and quantities', async () => {
    const body = encodePod({ ...pod({ resources: { limits: { cpu: '500m' } }, ports: [{ containerPort: 80 }] }, { terminationGracePeriodSeconds: 30, activeDeadlineSeconds: 600 }), metadata: { name: 'pb-good' } });
    const res = await wire.call('POST', `${NS}/pods`, { headers: PROTOBUF, body });
    expect({ status: res.status, text: res.text }).toMatchObject({ status: 201 });
  });
});

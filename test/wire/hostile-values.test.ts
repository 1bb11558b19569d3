// Hostile values through every write path, over HTTPS: a JSON Patch that doubles the object with
// each copy, numbers Go's types cannot hold (int32 overflow, 1e400), negative and absurd
// quantities. Each row checks kube-apiserver's answer, that the server still answers, and what is
// stored (unchanged after a refusal, Go's own value after an acceptance).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireServer, type WireResult, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
beforeAll(async () => {
  wire = await startWireServer();
});
afterAll(async () => {
  await wire?.close();
});

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const EVENTS = '/api/v1/namespaces/default/events';
const PODS = '/api/v1/namespaces/default/pods';
const PVS = '/api/v1/persistentvolumes';

const TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;
type PatchType = keyof typeof TYPES;

type Json = Record<string, any>;

async function create(path: string, body: Json): Promise<Json> {
  const r = await wire.call('POST', path, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status, r.text).toBe(201);
  return r.json();
}

const get = async (path: string): Promise<Json> => (await wire.call('GET', path)).json();

function patch(path: string, type: PatchType, body: string, query = ''): Promise<WireResult> {
  const params = type === 'apply' ? `?fieldManager=hostile&force=true${query ? `&${query}` : ''}` : query ? `?${query}` : '';
  return wire.call('PATCH', `${path}${params}`, { headers: { 'content-type': TYPES[type] }, body });
}

async function expectServing(): Promise<void> {
  const r = await wire.call('GET', '/readyz');
  expect(r.status).toBe(200);
}

/**
 * The 422 kube-apiserver sends for a patched object that does not decode into its Go type: the
 * patched JSON quoted on the field "patch" (numbers as the patch spelled them), then the error.
 */
function expectUndecodablePatch(r: WireResult, spelled: string, why: string): void {
  expect(r.status, r.text).toBe(422);
  const status = r.json<Json>();
  expect(status.reason).toBe('Invalid');
  expect(status.details.causes).toHaveLength(1);
  const cause = status.details.causes[0];
  expect(cause.reason).toBe('FieldValueInvalid');
  expect(cause.field).toBe('patch');
  const quoted = JSON.parse(/^Invalid value: (".*"): /.exec(cause.message)![1]) as string;
  expect(quoted).toContain(spelled);
  expect(cause.message).toBe(`Invalid value: ${JSON.stringify(quoted)}: ${why}`);
  expect(status.message).toBe(` "" is invalid: patch: ${cause.message}`);
}

describe('a JSON Patch of doubling copies', () => {
  it('fails at the 3 MiB copy limit with the library error kube sends, and stores nothing', async () => {
    const before = await create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'copy-bomb', annotations: { seed: 'x'.repeat(100) } } });
    const ops = Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/k${i}` }));
    const body = JSON.stringify(ops);
    expect(body.length).toBeLessThan(3500);
    const r = await patch(`${CONFIGMAPS}/copy-bomb`, 'json', body);
    expect(r.status).toBe(422);
    const status = r.json<Json>();
    expect(status.message).toBe('the server rejected our request due to an error in our request');
    expect(status.details.causes).toHaveLength(1);
    expect(status.details.causes[0].reason).toBe('UnexpectedServerResponse');
    expect(status.details.causes[0].message).toMatch(/^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
    await expectServing();
    const after = await get(`${CONFIGMAPS}/copy-bomb`);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.annotations).toEqual({ seed: 'x'.repeat(100) });
  });
});

describe('numbers an int32 cannot hold', () => {
  const HUGE = '99999999999999999999999';
  const event = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
    reason: 'Hostile',
    count: 1,
  });
  const applied = (name: string, count: string) => `apiVersion: v1\nkind: Event\nmetadata: {name: ${name}}\ncount: ${count}\n`;

  interface Row {
    name: string;
    type: PatchType;
    body: (name: string) => string;
    query?: string;
    /** The stored count after an accepted patch (the value Go's conversion gives). */
    stored?: number;
    status?: number;
    message?: string;
    undecodable?: boolean;
  }
  const rows: Row[] = [
    { name: 'merge', type: 'merge', body: () => `{"count":${HUGE}}`, undecodable: true },
    { name: 'json', type: 'json', body: () => `[{"op":"replace","path":"/count","value":${HUGE}}]`, undecodable: true },
    { name: 'json-moved', type: 'json', body: () => `[{"op":"add","path":"/x","value":${HUGE}},{"op":"move","from":"/x","path":"/count"}]`, undecodable: true },
    // kube converts a strategic merge (and apply) result from its map: a float64 beyond int64
    // becomes math.MinInt64 (amd64), whose low 32 bits are 0; an int64 keeps its low 32 bits.
    { name: 'strategic', type: 'strategic', body: () => `{"count":${HUGE}}`, stored: 0 },
    { name: 'strategic-int64', type: 'strategic', body: () => '{"count":3000000000}', stored: -1294967296 },
    { name: 'apply', type: 'apply', body: (n) => applied(n, HUGE), stored: 0 },
    { name: 'strategic-inf', type: 'strategic', body: () => '{"count":1e400}', status: 400, message: 'json: cannot unmarshal number 1e400 into Go value of type float64' },
    {
      name: 'strategic-inf-ignore',
      type: 'strategic',
      body: () => '{"count":1e400}',
      query: 'fieldValidation=Ignore',
      status: 400,
      message: 'json: cannot unmarshal number 1e400 into Go value of type float64',
    },
    { name: 'merge-inf', type: 'merge', body: () => '{"count":-1E400}', status: 400, message: 'error decoding patch: json: cannot unmarshal number -1E400 into Go value of type float64' },
    {
      name: 'json-inf',
      type: 'json',
      body: () => '[{"op":"replace","path":"/count","value":1e400}]',
      status: 400,
      message: 'error decoding patch: json: cannot unmarshal number 1e400 into Go struct field jsonPatchOp.value of type float64',
    },
    { name: 'apply-inf', type: 'apply', body: (n) => applied(n, '.inf'), status: 400, message: 'error decoding YAML: error converting YAML to JSON: json: unsupported value: +Inf' },
    { name: 'apply-nan', type: 'apply', body: (n) => applied(n, '.nan'), status: 400, message: 'error decoding YAML: error converting YAML to JSON: json: unsupported value: NaN' },
  ];

  it.each(rows)('$name', async (row) => {
    const name = `int32-${row.name}`;
    const before = await create(EVENTS, event(name));
    const r = await patch(`${EVENTS}/${name}`, row.type, row.body(name), row.query);
    await expectServing();
    const after = await get(`${EVENTS}/${name}`);
    if (row.stored !== undefined) {
      expect(r.status, r.text).toBe(200);
      expect(r.json<Json>().count).toBe(row.stored);
      expect(after.count).toBe(row.stored);
      return;
    }
    if (row.undecodable) expectUndecodablePatch(r, `"count":${HUGE}`, `json: cannot unmarshal number ${HUGE} into Go struct field Event.count of type int32`);
    else {
      expect(r.status, r.text).toBe(row.status);
      expect(r.json<Json>().message).toBe(row.message);
    }
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.count).toBe(1);
  });
});

describe('quantities through every patch type, validated as an update is', () => {
  const pv = (name: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } },
  });
  const bodies: Record<PatchType, (name: string, value: string) => string> = {
    json: (_, v) => `[{"op":"replace","path":"/spec/capacity/storage","value":${v}}]`,
    merge: (_, v) => `{"spec":{"capacity":{"storage":${v}}}}`,
    strategic: (_, v) => `{"spec":{"capacity":{"storage":${v}}}}`,
    apply: (n, v) => `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"${n}"},"spec":{"capacity":{"storage":${v}}}}`,
  };

  /** The update (PUT) of the same change: every patch type must answer as it does. */
  async function put(name: string, value: string): Promise<WireResult> {
    const current = await get(`${PVS}/${name}`);
    const text = JSON.stringify(current).replace('"storage":"1Gi"', `"storage":${value}`);
    return wire.call('PUT', `${PVS}/${name}`, { headers: { 'content-type': 'application/json' }, body: text });
  }

  it.each(['"-5"', '"-1Gi"'])('refuses a negative capacity %s on every path with the update error', async (value) => {
    const name = `pv-neg-${value.replace(/\W/g, '').toLowerCase()}`;
    const before = await create(PVS, pv(name));
    const updated = await put(name, value);
    expect(updated.status).toBe(422);
    const canonical = JSON.parse(value);
    const number = canonical === '-5' ? '-5' : '-1073741824';
    expect(updated.json<Json>().message).toBe(
      `PersistentVolume "${name}" is invalid: [spec.capacity[storage]: Invalid value: ${number}: must be a valid resource quantity, spec.capacity[storage]: Invalid value: "${canonical}": must be greater than zero]`,
    );
    for (const type of Object.keys(TYPES) as PatchType[]) {
      const r = await patch(`${PVS}/${name}`, type, bodies[type](name, value));
      expect(r.status, `${type}: ${r.text}`).toBe(422);
      expect(r.json<Json>().message, type).toBe(updated.json<Json>().message);
    }
    await expectServing();
    expect((await get(`${PVS}/${name}`)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('stores an exponent quantity in Go canonical form whatever its size, on every path', async () => {
    for (const type of [...(Object.keys(TYPES) as PatchType[]), 'put' as const]) {
      const name = `pv-exp-${type}`;
      await create(PVS, pv(name));
      const r = type === 'put' ? await put(name, '"1e2000000000"') : await patch(`${PVS}/${name}`, type, bodies[type](name, '"1e2000000000"'));
      expect(r.status, `${type}: ${r.text}`).toBe(200);
      expect((await get(`${PVS}/${name}`)).spec.capacity.storage).toBe('100e1999999998');
    }
    await expectServing();
  });

  it('reads 1e400 as the quantity it is where the patch keeps its bytes, and refuses it where a map must hold it', async () => {
    const accepted = { put: 'put', apply: 'apply' } as const;
    for (const type of Object.keys(accepted) as (keyof typeof accepted)[]) {
      const name = `pv-inf-${type}`;
      await create(PVS, pv(name));
      const r = type === 'put' ? await put(name, '1e400') : await patch(`${PVS}/${name}`, 'apply', bodies.apply(name, '1e400'));
      expect(r.status, `${type}: ${r.text}`).toBe(200);
      expect((await get(`${PVS}/${name}`)).spec.capacity.storage).toBe('10e399');
    }
    // Under Ignore, merge and JSON patches are not decoded into a map first: the library keeps the
    // number's bytes and the quantity reads them.
    for (const type of ['merge', 'json'] as const) {
      const name = `pv-inf-ignore-${type}`;
      await create(PVS, pv(name));
      const r = await patch(`${PVS}/${name}`, type, bodies[type](name, '1e400'), 'fieldValidation=Ignore');
      expect(r.status, `${type}: ${r.text}`).toBe(200);
      expect((await get(`${PVS}/${name}`)).spec.capacity.storage).toBe('10e399');
    }
    const refused: [PatchType, string][] = [
      ['strategic', 'json: cannot unmarshal number 1e400 into Go value of type float64'],
      ['merge', 'error decoding patch: json: cannot unmarshal number 1e400 into Go value of type float64'],
      ['json', 'error decoding patch: json: cannot unmarshal number 1e400 into Go struct field jsonPatchOp.value of type float64'],
    ];
    const name = 'pv-inf-refused';
    const before = await create(PVS, pv(name));
    for (const [type, message] of refused) {
      const r = await patch(`${PVS}/${name}`, type, bodies[type](name, '1e400'));
      expect(r.status, type).toBe(400);
      expect(r.json<Json>().message).toBe(message);
    }
    await expectServing();
    const after = await get(`${PVS}/${name}`);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec.capacity.storage).toBe('1Gi');
  });
});

describe('container quantities on create', () => {
  const pod = (name: string, resources: string) =>
    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}"},"spec":{"containers":[{"name":"c","image":"busybox","resources":${resources}}]}}`;
  const post = (body: string) => wire.call('POST', PODS, { headers: { 'content-type': 'application/json' }, body });
  const negative = (name: string, list: string, resource: string, value: string) =>
    `spec.containers[0].resources.${list}[${resource}]: Invalid value: "${value}": must be greater than or equal to 0`;

  it.each([
    { name: 'neg-cpu', resources: '{"limits":{"cpu":"-5"}}', errors: [negative('', 'limits', 'cpu', '-5'), negative('', 'requests', 'cpu', '-5')] },
    { name: 'neg-memory', resources: '{"requests":{"memory":"-1Gi"}}', errors: [negative('', 'requests', 'memory', '-1Gi')] },
    {
      name: 'neg-huge',
      resources: '{"limits":{"cpu":"-1e2000000000"}}',
      errors: [negative('', 'limits', 'cpu', '-100e1999999998'), negative('', 'requests', 'cpu', '-100e1999999998')],
    },
  ])('refuses $name with ValidateNonnegativeQuantity', async ({ name, resources, errors }) => {
    const r = await post(pod(name, resources));
    expect(r.status, r.text).toBe(422);
    const message = r.json<Json>().message as string;
    expect(message).toBe(`Pod "${name}" is invalid: ${errors.length > 1 ? `[${errors.join(', ')}]` : errors[0]}`);
    expect((await wire.call('GET', `${PODS}/${name}`)).status).toBe(404);
  });

  it.each([
    { name: 'inf', cpu: '1e400', stored: '10e399' },
    { name: 'tiny', cpu: '1e-400', stored: '1e-9' },
    { name: 'exp', cpu: '1e3', stored: '1e3' },
    { name: 'huge', cpu: '"1e2000000000"', stored: '100e1999999998' },
  ])('stores cpu $cpu as Go prints the quantity', async ({ name, cpu, stored }) => {
    const r = await post(pod(name, `{"limits":{"cpu":${cpu}}}`));
    expect(r.status, r.text).toBe(201);
    const resources = (await get(`${PODS}/${name}`)).spec.containers[0].resources;
    expect(resources).toEqual({ limits: { cpu: stored }, requests: { cpu: stored } });
  });

  it.each(['"NaN"', '"+Inf"', '"0x10"'])('refuses cpu %s as the quantity decoder does', async (cpu) => {
    const r = await post(pod('nan', `{"limits":{"cpu":${cpu}}}`));
    expect(r.status).toBe(400);
    expect(r.json<Json>().message).toBe(
      `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });

  it('refuses a negative quantity in an apply that creates the pod, as a create does', async () => {
    const body = pod('apply-neg', '{"limits":{"cpu":"-5"}}');
    const r = await patch(`${PODS}/apply-neg`, 'apply', body);
    expect(r.status, r.text).toBe(422);
    expect(r.json<Json>().message).toBe(`Pod "apply-neg" is invalid: [${negative('', 'limits', 'cpu', '-5')}, ${negative('', 'requests', 'cpu', '-5')}]`);
    expect((await wire.call('GET', `${PODS}/apply-neg`)).status).toBe(404);
    await expectServing();
  });
});

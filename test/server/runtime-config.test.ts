// --runtime-config: the flag's syntax, its resolution with kube-apiserver's rules and messages
// (k8s.io/apiserver resourceconfig.MergeAPIResourceConfigs), and what a server started with it
// serves: ResourceSlice needs both the DynamicResourceAllocation gate and
// resource.k8s.io/v1beta2 enabled; a disabled group version is gone from routing, discovery
// (legacy and aggregated) and OpenAPI v2/v3.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { parseFlags } from '../../runtime/server/flags.js';
import { parseRuntimeConfigFlag, resolveRuntimeConfig, type GroupVersion } from '../../runtime/server/runtime-config.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

const KNOWN: GroupVersion[] = [
  { group: '', version: 'v1' },
  { group: 'storage.k8s.io', version: 'v1' },
  { group: 'storage.k8s.io', version: 'v1beta1' },
  { group: 'resource.k8s.io', version: 'v1beta2' },
  { group: 'example.k8s.io', version: 'v1alpha1' },
];

describe('--runtime-config syntax', () => {
  it.each<[string, Record<string, string>]>([
    ['resource.k8s.io/v1beta2=true', { 'resource.k8s.io/v1beta2': 'true' }],
    ['resource.k8s.io/v1beta2', { 'resource.k8s.io/v1beta2': '' }],
    [' api/all=false , storage.k8s.io/v1/csidrivers=true,,', { 'api/all': 'false', 'storage.k8s.io/v1/csidrivers': 'true' }],
    ['a=b=c', { a: 'b=c' }],
  ])('%s', (flag, entries) => {
    expect(parseRuntimeConfigFlag(flag)).toEqual(entries);
  });

  it('is a flag of the command line', () => {
    const parsed = parseFlags(['--runtime-config', 'resource.k8s.io/v1beta2=true']);
    expect(parsed.help === false && parsed.options.runtimeConfig).toBe('resource.k8s.io/v1beta2=true');
  });
});

describe('--runtime-config resolution', () => {
  const served = (flag: string) => {
    const enabled = resolveRuntimeConfig(parseRuntimeConfigFlag(flag), KNOWN);
    return (gv: string, resource = 'things') => {
      const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
      return enabled(group as string, version as string, resource);
    };
  };

  it('serves stable versions only by default', () => {
    const s = served('');
    expect([s('v1'), s('storage.k8s.io/v1'), s('storage.k8s.io/v1beta1'), s('resource.k8s.io/v1beta2'), s('example.k8s.io/v1alpha1')]).toEqual([true, true, false, false, false]);
  });

  it.each<[string, boolean[]]>([
    ['resource.k8s.io/v1beta2=true', [true, true, false, true, false]],
    ['resource.k8s.io/v1beta2', [true, true, false, true, false]],
    ['storage.k8s.io/v1=false', [true, false, false, false, false]],
    ['api/beta=true', [true, true, true, true, false]],
    ['api/alpha=true', [true, true, false, false, true]],
    ['api/all=true', [true, true, true, true, true]],
    ['api/all', [true, true, true, true, true]],
    ['api/ga=false', [false, false, false, false, false]],
    ['api/all=false,storage.k8s.io/v1=true', [false, true, false, false, false]],
    ['api/beta=true,storage.k8s.io/v1beta1=false', [true, true, false, true, false]],
    ['api/v1=false', [false, true, false, false, false]],
    ['other.example.com/v1=true,unrelated', [true, true, false, false, false]],
    ['resource.k8s.io/v1beta2=t', [true, true, false, true, false]],
    ['resource.k8s.io/v1beta2=0', [true, true, false, false, false]],
  ])('%s', (flag, expected) => {
    const s = served(flag);
    expect([s('v1'), s('storage.k8s.io/v1'), s('storage.k8s.io/v1beta1'), s('resource.k8s.io/v1beta2'), s('example.k8s.io/v1alpha1')]).toEqual(expected);
  });

  it('turns single resources on and off over their version', () => {
    const s = served('storage.k8s.io/v1/csidrivers=false,storage.k8s.io/v1beta1/volumeattributesclasses=true');
    expect([s('storage.k8s.io/v1', 'csidrivers'), s('storage.k8s.io/v1', 'storageclasses'), s('storage.k8s.io/v1', 'csidrivers/status')]).toEqual([false, true, false]);
    expect([s('storage.k8s.io/v1beta1', 'volumeattributesclasses'), s('storage.k8s.io/v1beta1', 'others')]).toEqual([true, false]);
  });

  it.each<[string, string]>([
    ['api/all=maybe', 'invalid value api/all=maybe'],
    ['api/beta=1', 'invalid value api/beta=1'],
    ['resource.k8s.io/v1beta2=maybe', 'invalid value of resource.k8s.io/v1beta2: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ['storage.k8s.io/v2=true', 'group version storage.k8s.io/v2 that has not been registered'],
    ['storage.k8s.io/v1/CSIDrivers=false', 'invalid key storage.k8s.io/v1/CSIDrivers: group/version/resource and resource is always lowercase plural, not "CSIDrivers"'],
    ['storage.k8s.io/=true', 'invalid key storage.k8s.io/'],
  ])('rejects %s', (flag, message) => {
    expect(() => resolveRuntimeConfig(parseRuntimeConfigFlag(flag), KNOWN)).toThrow(message);
  });

  it('stops startServer with the flag in the message', async () => {
    await expect(startServer({ storage: 'memory', runtimeConfig: 'storage.k8s.io/v9=true' })).rejects.toThrow('group version storage.k8s.io/v9 that has not been registered');
  });
});

describe('what a server serves per --runtime-config and --feature-gates', () => {
  const servers: Record<string, RunningServer> = {};
  beforeAll(async () => {
    const [plain, gateOnly, both, resourceOff] = await Promise.all([
      startServer({ storage: 'memory' }),
      startServer({ storage: 'memory', featureGates: 'DynamicResourceAllocation=true' }),
      startServer({ storage: 'memory', featureGates: 'DynamicResourceAllocation=true', runtimeConfig: { 'resource.k8s.io/v1beta2': true, 'storage.k8s.io/v1beta1': true } }),
      startServer({ storage: 'memory', runtimeConfig: 'storage.k8s.io/v1/csidrivers=false' }),
    ]);
    Object.assign(servers, { plain, gateOnly, both, resourceOff });
  });
  afterAll(() => Promise.all(Object.values(servers).map((s) => s.close())));

  const get = (name: string, path: string, accept?: string) =>
    call(servers[name]!.url, path, kubeconfigCredentials(servers[name]!.kubeconfig), accept ? { headers: { accept } } : {});
  const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

  async function presence(name: string) {
    const groups = (await get(name, '/apis')).json<{ groups: { name: string; versions: { version: string }[] }[] }>().groups;
    const aggregated = (await get(name, '/apis', AGGREGATED)).json<{ items: { metadata: { name: string }; versions: { version: string }[] }[] }>().items;
    const v3 = Object.keys((await get(name, '/openapi/v3')).json<{ paths: Record<string, unknown> }>().paths);
    const v2 = Object.keys((await get(name, '/openapi/v2')).json<{ paths: Record<string, unknown> }>().paths);
    const versionsOf = (g: string) => groups.find((x) => x.name === g)?.versions.map((v) => v.version) ?? [];
    const aggregatedOf = (g: string) => aggregated.find((x) => x.metadata.name === g)?.versions.map((v) => v.version) ?? [];
    return {
      list: (await get(name, '/apis/resource.k8s.io/v1beta2/resourceslices')).status,
      groupVersion: (await get(name, '/apis/resource.k8s.io/v1beta2')).status,
      legacy: versionsOf('resource.k8s.io'),
      aggregated: aggregatedOf('resource.k8s.io'),
      storage: versionsOf('storage.k8s.io'),
      v3: v3.includes('apis/resource.k8s.io/v1beta2'),
      v2: v2.some((p) => p.startsWith('/apis/resource.k8s.io/v1beta2/')),
    };
  }

  it('hides ResourceSlice without the gate, and with the gate alone', async () => {
    for (const name of ['plain', 'gateOnly']) {
      expect(await presence(name)).toEqual({ list: 404, groupVersion: 404, legacy: [], aggregated: [], storage: ['v1'], v3: false, v2: false });
    }
  });

  it('serves ResourceSlice with the gate and resource.k8s.io/v1beta2 enabled', async () => {
    expect(await presence('both')).toEqual({ list: 200, groupVersion: 200, legacy: ['v1beta2'], aggregated: ['v1beta2'], storage: ['v1', 'v1beta1'], v3: true, v2: true });
    const creds = kubeconfigCredentials(servers.both!.kubeconfig);
    const body = {
      apiVersion: 'resource.k8s.io/v1beta2',
      kind: 'ResourceSlice',
      metadata: { name: 'node-1-gpu' },
      spec: { driver: 'gpu.example.com', pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', devices: [{ name: 'gpu-0', attributes: { model: { string: 'x' } } }] },
    };
    const created = await call(servers.both!.url, '/apis/resource.k8s.io/v1beta2/resourceslices', creds, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(created.status).toBe(201);
    expect(created.json<{ metadata: { generation: number } }>().metadata.generation).toBe(1);
    const bad = await call(servers.both!.url, '/apis/resource.k8s.io/v1beta2/resourceslices', creds, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, metadata: { name: 'bad' }, spec: { ...body.spec, allNodes: true } }),
    });
    expect(bad.status).toBe(422);
    expect(bad.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set' },
    ]);
    const byDriver = await get('both', '/apis/resource.k8s.io/v1beta2/resourceslices?fieldSelector=spec.driver%3Dgpu.example.com');
    expect(byDriver.json<{ items: unknown[] }>().items).toHaveLength(1);
    const byNode = await get('both', '/apis/resource.k8s.io/v1beta2/resourceslices?fieldSelector=spec.nodeName%3Dnode-2');
    expect(byNode.json<{ items: unknown[] }>().items).toHaveLength(0);
  });

  it('disables a single resource of an enabled version', async () => {
    expect((await get('resourceOff', '/apis/storage.k8s.io/v1/csidrivers')).status).toBe(404);
    expect((await get('resourceOff', '/apis/storage.k8s.io/v1/storageclasses')).status).toBe(200);
    const resources = (await get('resourceOff', '/apis/storage.k8s.io/v1')).json<{ resources: { name: string }[] }>().resources.map((r) => r.name);
    expect(resources).toContain('storageclasses');
    expect(resources).not.toContain('csidrivers');
  });
});

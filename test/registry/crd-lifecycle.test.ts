// A CustomResourceDefinition's life through the API, as apiextensions-apiserver's strategy and
// REST store handle it: create resets status to the storage version alone at generation 1; a
// spec update bumps generation and records a new storage version, keeping status; the status
// endpoint keeps the spec; group and plural never change; a version still in storedVersions
// cannot leave spec.versions; no write without resourceVersion; the first delete only marks the
// definition (cleanup finalizer, Terminating), whatever the propagation policy.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
// The naming and establishing controllers write status meanwhile; their own test covers them.
const server = useMemoryServer({ controllers: ['*', '-crd-naming', '-crd-establishing'] });

type Obj = Record<string, any>;

const version = (name: string, storage: boolean): Obj => ({
  name,
  served: true,
  storage,
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
});

function crd(plural: string, extra: Obj = {}): Obj {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: { group: 'example.com', names: { plural, kind }, scope: 'Namespaced', versions: [version('v1', true)] },
    ...extra,
  };
}

async function create(plural: string, extra: Obj = {}): Promise<Obj> {
  const res = await server.send<Obj>('POST', CRDS, crd(plural, extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const get = async (name: string): Promise<Obj> => (await server.send<Obj>('GET', `${CRDS}/${name}`)).body;

describe('CustomResourceDefinition lifecycle', () => {
  it('create ignores the status sent and starts at generation 1 with the storage version stored', async () => {
    const made = await create('apples', { status: { storedVersions: ['v0'], acceptedNames: { plural: 'x', kind: 'X' }, conditions: [{ type: 'Established', status: 'True' }] } });
    expect(made.metadata.generation).toBe(1);
    expect(made.status).toEqual({ conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    expect(made.metadata.finalizers).toBeUndefined();
  });

  it('a spec update bumps generation and adds a new storage version; status stays', async () => {
    const made = await create('pears');
    made.spec.versions = [version('v1', false), version('v2', true)];
    made.status = { storedVersions: ['v2'] };
    const res = await server.send<Obj>('PUT', `${CRDS}/pears.example.com`, made);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata.generation).toBe(2);
    expect(res.body.status.storedVersions).toEqual(['v1', 'v2']);
    // Metadata alone leaves generation as it is.
    res.body.metadata.labels = { fruit: 'yes' };
    const again = await server.send<Obj>('PUT', `${CRDS}/pears.example.com`, res.body);
    expect(again.body.metadata.generation).toBe(2);
  });

  it('needs metadata.resourceVersion to update', async () => {
    const made = await create('plums');
    delete made.metadata.resourceVersion;
    const res = await server.send<Obj>('PUT', `${CRDS}/plums.example.com`, made);
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([expect.objectContaining({ field: 'metadata.resourceVersion', message: expect.stringMatching(/: must be specified for an update$/) })]);
  });

  it('refuses changing group or plural, and dropping a stored version', async () => {
    const made = await create('figs');
    const changed = structuredClone(made);
    changed.spec.group = 'example.org';
    changed.spec.names.plural = 'figz';
    changed.spec.versions = [version('v2', true)];
    const res = await server.send<Obj>('PUT', `${CRDS}/figs.example.com`, changed);
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      expect.objectContaining({ field: 'metadata.name', message: 'Invalid value: "figs.example.com": must be spec.names.plural+"."+spec.group' }),
      expect.objectContaining({ field: 'spec.group', message: 'Invalid value: "example.org": field is immutable' }),
      expect.objectContaining({ field: 'spec.names.plural', message: 'Invalid value: "figz": field is immutable' }),
      expect.objectContaining({
        field: 'status.storedVersions[0]',
        message:
          'Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
      }),
    ]);
    expect((await get('figs.example.com')).metadata.resourceVersion).toBe(made.metadata.resourceVersion);
  });

  it('the status endpoint keeps the spec, checks accepted names, and may migrate storedVersions', async () => {
    const made = await create('kiwis');
    made.spec.versions = [version('v1', false), version('v2', true)];
    const grown = (await server.send<Obj>('PUT', `${CRDS}/kiwis.example.com`, made)).body;
    expect(grown.status.storedVersions).toEqual(['v1', 'v2']);

    const bad = structuredClone(grown);
    bad.status.acceptedNames = { plural: 'Kiwis', kind: 'Kiwi' };
    const refused = await server.send<Obj>('PUT', `${CRDS}/kiwis.example.com/status`, bad);
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes).toEqual([
      expect.objectContaining({
        field: 'status.acceptedNames.plural',
        message:
          "Invalid value: \"Kiwis\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      }),
    ]);

    const migrated = structuredClone(grown);
    migrated.status.storedVersions = ['v2'];
    migrated.spec.scope = 'Cluster';
    const res = await server.send<Obj>('PUT', `${CRDS}/kiwis.example.com/status`, migrated);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status.storedVersions).toEqual(['v2']);
    expect(res.body.spec.scope).toBe('Namespaced');
    expect(res.body.metadata.generation).toBe(2);

    // Now v1 may leave the spec.
    res.body.spec.versions = [version('v2', true)];
    const dropped = await server.send<Obj>('PUT', `${CRDS}/kiwis.example.com`, res.body);
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
  });

  it('the first delete marks it for cleanup, whatever the propagation policy', async () => {
    await create('limes');
    const res = await server.send<Obj>('DELETE', `${CRDS}/limes.example.com`, { propagationPolicy: 'Foreground' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The answer is the marked definition; the cleanup finalizer controller then runs at once.
    const marked = res.body;
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    expect(marked.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(marked.metadata.generation).toBe(1);
    expect(marked.status.conditions).toEqual([
      expect.objectContaining({
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      }),
    ]);

    // Never established, it has no instances: the cleanup takes its finalizer away and it is gone.
    for (let i = 0; i < 100 && (await server.send('GET', `${CRDS}/limes.example.com`)).status !== 404; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await server.send('GET', `${CRDS}/limes.example.com`)).status).toBe(404);
  });
});

describe('CustomResourceDefinition rules that wait for Established', () => {
  // These run with the controllers, which establish the definitions as kube-apiserver does.
  const live = useMemoryServer();
  const established = async (name: string): Promise<Obj> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const obj = (await live.send<Obj>('GET', `${CRDS}/${name}`)).body;
      const ok = (obj.status?.conditions ?? []).some((c: Obj) => c.type === 'Established' && c.status === 'True');
      if (ok || Date.now() > deadline) return obj;
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('scope and kind become immutable once Established', async () => {
    expect((await live.send('POST', CRDS, crd('melons'))).status).toBe(201);
    const obj = await established('melons.example.com');
    obj.spec.scope = 'Cluster';
    obj.spec.names.kind = 'Melonn';
    obj.spec.names.listKind = 'MelonnList';
    const res = await live.send<Obj>('PUT', `${CRDS}/melons.example.com`, obj);
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      expect.objectContaining({ field: 'spec.scope', message: 'Invalid value: "Cluster": field is immutable' }),
      expect.objectContaining({ field: 'spec.names.kind', message: 'Invalid value: "Melonn": field is immutable' }),
    ]);
  });

  it('an invalid conversion CA bundle is refused once Established, and keeps a new CRD from being Established', async () => {
    const webhook = (caBundle: string): Obj => ({ strategy: 'Webhook', webhook: { clientConfig: { url: 'https://convert.example.com/crd', caBundle }, conversionReviewVersions: ['v1'] } });
    const bad = Buffer.from('not a certificate').toString('base64');
    // On create an invalid bundle is allowed (kube allows it until Established) ...
    expect((await live.send('POST', CRDS, crd('grapes', { spec: { ...crd('grapes').spec, conversion: webhook(bad) } }))).status).toBe(201);
    const deadline = Date.now() + 10_000;
    let grapes: Obj;
    do {
      grapes = (await live.send<Obj>('GET', `${CRDS}/grapes.example.com`)).body;
      await new Promise((r) => setTimeout(r, 25));
    } while (!(grapes.status?.conditions ?? []).some((c: Obj) => c.type === 'Established' && c.reason === 'InvalidCABundle') && Date.now() < deadline);
    // ... but the establishing controller will not serve it.
    expect((grapes.status.conditions as Obj[]).find((c) => c.type === 'Established')).toEqual(
      expect.objectContaining({ status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' }),
    );

    expect((await live.send('POST', CRDS, crd('berries'))).status).toBe(201);
    const berries = await established('berries.example.com');
    berries.spec.conversion = webhook(bad);
    const res = await live.send<Obj>('PUT', `${CRDS}/berries.example.com`, berries);
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      expect.objectContaining({
        field: 'spec.conversion.webhookClientConfig.caBundle',
        message: `Invalid value: []byte{${[...Buffer.from('not a certificate')].map((b) => `0x${b.toString(16)}`).join(', ')}}: unable to load root certificates: unable to parse bytes as PEM block`,
      }),
    ]);
  });
});

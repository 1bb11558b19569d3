// The CRD naming and establishing controllers, as apiextensions-apiserver runs them: a CRD
// whose names nobody in its group holds gets them accepted (NamesAccepted True `NoConflicts`,
// acceptedNames = spec.names) and is then Established (True `InitialNamesAccepted`); a CRD
// asking for a name another CRD of the group holds gets NamesAccepted False with the conflict's
// reason, keeps the names it could take, and is not Established until the holder is gone.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const server = useMemoryServer();

type Obj = Record<string, any>;

function crd(plural: string, names: Obj, group = 'example.com'): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, ...names },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

async function create(body: Obj): Promise<void> {
  const res = await server.send('POST', CRDS, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

const get = async (name: string): Promise<Obj> => (await server.send<Obj>('GET', `${CRDS}/${name}`)).body;
const condition = (obj: Obj, type: string): Obj | undefined => (obj.status?.conditions ?? []).find((c: Obj) => c.type === type);

/** Polls until `done` holds for the CRD (the controllers run in the background). */
async function until(name: string, done: (obj: Obj) => boolean): Promise<Obj> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const obj = await get(name);
    if (done(obj) || Date.now() > deadline) return obj;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Deletes a CRD for good: its first delete only marks it; the cleanup finalizer controller then deletes its instances and lets it go. */
async function remove(name: string): Promise<void> {
  expect((await server.send('DELETE', `${CRDS}/${name}`)).status).toBe(200);
  const deadline = Date.now() + 10_000;
  while ((await server.send('GET', `${CRDS}/${name}`)).status !== 404) {
    if (Date.now() > deadline) throw new Error(`${name} was not cleaned up`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('CRD naming and establishing controllers', () => {
  it('accepts free names and establishes the CRD', async () => {
    await create(crd('widgets', { kind: 'Widget', shortNames: ['wd'], categories: ['toys'] }));
    const obj = await until('widgets.example.com', (o) => condition(o, 'Established')?.status === 'True');
    expect(condition(obj, 'NamesAccepted')).toEqual(expect.objectContaining({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }));
    expect(condition(obj, 'Established')).toEqual(expect.objectContaining({ status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }));
    expect(condition(obj, 'Established')?.lastTransitionTime).toEqual(expect.any(String));
    expect(obj.status.acceptedNames).toEqual(obj.spec.names);
    expect(obj.status.acceptedNames).toEqual({ plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList', categories: ['toys'] });
    expect(obj.status.storedVersions).toEqual(['v1']);
  });

  it.each<[string, Obj, string, Record<string, string>]>([
    ['KindConflict', crd('gadgets', { kind: 'Widget', listKind: 'GadgetList' }), '"Widget" is already in use', { plural: 'gadgets', listKind: 'GadgetList' }],
    ['PluralConflict', crd('wd', { kind: 'Wdx' }), '"wd" is already in use', { singular: 'wdx', kind: 'Wdx', listKind: 'WdxList' }],
    // Each conflict found overwrites the last: a kind taken takes its singular and list kind with it.
    ['ListKindConflict', crd('gizmos', { kind: 'Widget' }), '"WidgetList" is already in use', { plural: 'gizmos' }],
    ['ShortNamesConflict', crd('doodads', { kind: 'Doodad', shortNames: ['wd', 'dd'] }), '"wd" is already in use', { plural: 'doodads', singular: 'doodad', kind: 'Doodad', listKind: 'DoodadList' }],
    ['ListKindConflict', crd('sprockets', { kind: 'Sprocket', listKind: 'WidgetList' }), '"WidgetList" is already in use', { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' }],
  ])('reports %s against a CRD of the same group and is not Established', async (reason, body, message, accepted) => {
    await create(body);
    const obj = await until(body.metadata.name, (o) => condition(o, 'NamesAccepted') !== undefined);
    expect(condition(obj, 'NamesAccepted')).toEqual(expect.objectContaining({ status: 'False', reason, message }));
    expect(condition(obj, 'Established')).toEqual(expect.objectContaining({ status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }));
    expect(obj.status.acceptedNames).toEqual({ ...accepted, plural: accepted.plural ?? '', kind: accepted.kind ?? '' });
  });

  it('lets another group use the same names', async () => {
    await create(crd('widgets', { kind: 'Widget', shortNames: ['wd'] }, 'example.org'));
    const obj = await until('widgets.example.org', (o) => condition(o, 'Established')?.status === 'True');
    expect(condition(obj, 'NamesAccepted')?.reason).toBe('NoConflicts');
  });

  it('resolves the conflicts once the CRD holding the names is gone', async () => {
    await remove('widgets.example.com');
    for (const name of ['gadgets.example.com', 'wd.example.com', 'gizmos.example.com', 'doodads.example.com', 'sprockets.example.com']) {
      const obj = await until(name, (o) => condition(o, 'Established')?.status === 'True');
      expect(condition(obj, 'NamesAccepted'), name).toEqual(expect.objectContaining({ status: 'True', reason: 'NoConflicts' }));
      expect(condition(obj, 'Established'), name).toEqual(expect.objectContaining({ status: 'True', reason: 'InitialNamesAccepted' }));
    }
  });
});

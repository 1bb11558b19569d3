// The garbage collector's owner graph on its own: which nodes it keeps and what work each change asks for.
import { describe, expect, it } from 'vitest';
import { OwnerGraph, type Work } from '../../runtime/controllers/owner-graph.js';
import type { KubeObject } from '../../runtime/machinery/object.js';

const scope = (apiVersion: string, kind: string) =>
  kind === 'ConfigMap' ? { namespaced: true } : kind === 'ClusterRole' ? { namespaced: false } : undefined;

function obj(uid: string, meta: Record<string, unknown> = {}, namespace = 'ns'): KubeObject {
  return { metadata: { name: uid, uid, ...(namespace ? { namespace } : {}), ...meta } };
}
const ref = (uid: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, ...extra });
const summary = (work: Work[]) => work.map((w) => `${w.queue}:${w.node.identity.uid}`).sort();

describe('OwnerGraph', () => {
  const cases: Array<{ name: string; steps: (g: OwnerGraph) => Work[]; work: string[]; nodes: string[] }> = [
    { name: 'an object without owners is not kept', steps: (g) => g.observe(obj('a'), 'v1', 'ConfigMap'), work: [], nodes: [] },
    {
      name: 'an owner known only from a reference is virtual and looked up',
      steps: (g) => g.observe(obj('d', { ownerReferences: [ref('o')] }), 'v1', 'ConfigMap'),
      work: ['delete:o'],
      nodes: ['d', 'o'],
    },
    {
      name: 'an owner seen after its dependent stops being virtual; no more work',
      steps: (g) => {
        g.observe(obj('d', { ownerReferences: [ref('o')] }), 'v1', 'ConfigMap');
        return g.observe(obj('o'), 'v1', 'ConfigMap');
      },
      work: [],
      nodes: ['d', 'o'],
    },
    {
      name: 'deleting an owner queues its dependents',
      steps: (g) => {
        g.observe(obj('d1', { ownerReferences: [ref('o')] }), 'v1', 'ConfigMap');
        g.observe(obj('d2', { ownerReferences: [ref('o')] }), 'v1', 'ConfigMap');
        g.observe(obj('o'), 'v1', 'ConfigMap');
        return g.forget(obj('o'));
      },
      work: ['delete:d1', 'delete:d2'],
      nodes: ['d1', 'd2', 'o'],
    },
    {
      name: 'foregroundDeletion queues the owner and every dependent',
      steps: (g) => {
        g.observe(obj('d', { ownerReferences: [ref('o', { blockOwnerDeletion: true })] }), 'v1', 'ConfigMap');
        g.observe(obj('o'), 'v1', 'ConfigMap');
        return g.observe(obj('o', { deletionTimestamp: 'now', finalizers: ['foregroundDeletion'] }), 'v1', 'ConfigMap');
      },
      work: ['delete:d', 'delete:o'],
      nodes: ['d', 'o'],
    },
    {
      name: 'an orphan finalizer on a deleting object queues it for orphaning, once',
      steps: (g) => {
        g.observe(obj('o', { deletionTimestamp: 'now', finalizers: ['orphan'] }), 'v1', 'ConfigMap');
        return g.observe(obj('o', { deletionTimestamp: 'now', finalizers: ['orphan'], labels: { a: 'b' } }), 'v1', 'ConfigMap');
      },
      work: [],
      nodes: ['o'],
    },
    {
      name: 'a dependent dropping a blocking reference lets a foreground owner go on',
      steps: (g) => {
        g.observe(obj('d', { ownerReferences: [ref('o', { blockOwnerDeletion: true })] }), 'v1', 'ConfigMap');
        g.observe(obj('o', { deletionTimestamp: 'now', finalizers: ['foregroundDeletion'] }), 'v1', 'ConfigMap');
        return g.observe(obj('d', { ownerReferences: [ref('o')] }), 'v1', 'ConfigMap');
      },
      work: ['delete:o'],
      nodes: ['d', 'o'],
    },
    {
      name: 'a dependent whose owner lives in another namespace is reported and checked',
      steps: (g) => {
        g.observe(obj('o', { ownerReferences: [ref('x')] }, 'other'), 'v1', 'ConfigMap');
        g.observe(obj('x', {}, 'other'), 'v1', 'ConfigMap');
        return g.observe(obj('d', { ownerReferences: [ref('o')] }), 'v1', 'ConfigMap');
      },
      work: ['delete:d', 'invalidNamespace:d'],
      nodes: ['d', 'o', 'x'],
    },
    {
      name: 'a virtual owner of a cluster-scoped kind has no namespace',
      steps: (g) => g.observe(obj('d', { ownerReferences: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'r', uid: 'r' }] }), 'v1', 'ConfigMap'),
      work: ['delete:r'],
      nodes: ['d', 'r'],
    },
    {
      name: 'a self-reference neither loops nor blocks',
      steps: (g) => {
        g.observe(obj('s', { ownerReferences: [ref('s', { blockOwnerDeletion: true })] }), 'v1', 'ConfigMap');
        const work = g.observe(obj('s', { ownerReferences: [ref('s', { blockOwnerDeletion: true })], deletionTimestamp: 'now', finalizers: ['foregroundDeletion'] }), 'v1', 'ConfigMap');
        expect(g.nodes.get('s')!.blockingDependents()).toEqual([]);
        return work;
      },
      work: ['delete:s', 'delete:s'],
      nodes: ['s'],
    },
    {
      name: 'a virtual owner proved absent is removed and its dependents queued',
      steps: (g) => {
        g.observe(obj('d', { ownerReferences: [ref('gone')] }), 'v1', 'ConfigMap');
        return g.absent(g.nodes.get('gone')!);
      },
      work: ['delete:d'],
      nodes: ['d', 'gone'],
    },
    {
      name: 'the last dependent of a virtual owner takes it out of the graph',
      steps: (g) => {
        g.observe(obj('d', { ownerReferences: [ref('v')] }), 'v1', 'ConfigMap');
        return g.forget(obj('d'));
      },
      work: [],
      nodes: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const g = new OwnerGraph(scope);
      expect(summary(c.steps(g))).toEqual(c.work);
      expect([...g.nodes.keys()].sort()).toEqual(c.nodes);
    });
  }

  it('a cluster-scoped kind as owner gets no namespace; an unknown kind is assumed namespaced', () => {
    const g = new OwnerGraph(scope);
    g.observe(obj('d', { ownerReferences: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'r', uid: 'r' }, { apiVersion: 'x/v1', kind: 'Widget', name: 'w', uid: 'w' }] }), 'v1', 'ConfigMap');
    expect(g.nodes.get('r')!.identity.namespace).toBe('');
    expect(g.nodes.get('w')!.identity.namespace).toBe('ns');
  });

  it('keeps 10,000 dependents of one owner and queues each once when it goes', () => {
    const g = new OwnerGraph(scope);
    g.observe(obj('o'), 'v1', 'ConfigMap');
    for (let i = 0; i < 10_000; i++) g.observe(obj(`d${i}`, { ownerReferences: [ref('o')] }), 'v1', 'ConfigMap');
    const work = g.forget(obj('o'));
    expect(work.length).toBe(10_000);
    expect(new Set(work.map((w) => w.node.identity.uid)).size).toBe(10_000);
  });
  it("keeps copies of an object's owner references: a later change to the object is not a change to the graph", () => {
    const g = new OwnerGraph(scope);
    const dependent = obj('d', { ownerReferences: [ref('o', { blockOwnerDeletion: true })] });
    g.observe(dependent, 'v1', 'ConfigMap');
    // The informer's objects may share their parts with a write's answer (serialization-cache.ts).
    const refs = dependent.metadata!.ownerReferences as Array<Record<string, unknown>>;
    refs[0]!.uid = 'someone-else';
    refs.push(ref('p'));
    expect(g.nodes.get('d')!.owners).toEqual([ref('o', { blockOwnerDeletion: true })]);
  });
});

// The garbage collector's owner graph, after kube-controller-manager's GraphBuilder: a node per
// object that has owners, is named as an owner, or waits on the collector (deletionTimestamp with
// `orphan` or `foregroundDeletion`). Objects outside those three are never kept, so the graph
// costs nothing for kinds nobody owns. An owner known only from a reference is a virtual node
// until an informer shows it or a live lookup proves it absent. Every change answers with the
// work it makes (which node to try to delete, which to orphan); the graph itself never waits.

import { metaOf, type KubeObject } from '../machinery/object.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../registry/gc-finalizers.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Where an object lives: its coordinates, as kube's objectReference. */
export interface Identity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

export class GraphNode {
  owners: OwnerReference[] = [];
  readonly dependents = new Set<GraphNode>();
  /** Known only from a dependent's reference, not yet seen by an informer. */
  virtual = true;
  beingDeleted = false;
  deletingDependents = false;
  orphaning = false;
  constructor(public identity: Identity) {}

  /** Dependents whose reference to this node blocks its deletion (an object never blocks itself). */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) => d !== this && d.owners.some((o) => o.uid === this.identity.uid && o.blockOwnerDeletion === true));
  }
}

export type Work = { queue: 'delete' | 'orphan'; node: GraphNode } | { queue: 'invalidNamespace'; node: GraphNode; owner: OwnerReference };

/** The kind's apiVersion and whether it is namespaced, for a reference's apiVersion and kind (undefined: not served). */
export type KindScope = (apiVersion: string, kind: string) => { namespaced: boolean } | undefined;

export function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  const refs = metaOf(obj).ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
}

function waitsForCollector(obj: KubeObject): boolean {
  const meta = metaOf(obj);
  return Boolean(meta.deletionTimestamp) && (meta.finalizers ?? []).some((f) => f === FINALIZER_ORPHAN || f === FINALIZER_FOREGROUND);
}

export class OwnerGraph {
  readonly nodes = new Map<string, GraphNode>();

  constructor(private readonly scopeOf: KindScope) {}

  /** An object added or changed (the informer's add and update, or a live read). */
  observe(obj: KubeObject, apiVersion: string, kind: string): Work[] {
    const meta = metaOf(obj);
    const uid = meta.uid ?? '';
    const refs = ownerReferencesOf(obj);
    let node = this.nodes.get(uid);
    if (!node && refs.length === 0 && !waitsForCollector(obj)) return [];
    const work: Work[] = [];
    if (!node) {
      node = new GraphNode({ apiVersion, kind, namespace: meta.namespace ?? '', name: meta.name ?? '', uid });
      this.nodes.set(uid, node);
    }
    node.identity = { apiVersion, kind, namespace: meta.namespace ?? '', name: meta.name ?? '', uid };
    node.virtual = false;
    const before = node.owners;
    const added = refs.filter((r) => !before.some((b) => b.uid === r.uid));
    const removed = before.filter((b) => !refs.some((r) => r.uid === b.uid));
    // An owner waiting on blocking dependents may go once a reference stops blocking it.
    for (const old of before) {
      const now = refs.find((r) => r.uid === old.uid);
      if (old.blockOwnerDeletion && (!now || !now.blockOwnerDeletion)) {
        const owner = this.nodes.get(old.uid);
        if (owner?.deletingDependents) work.push({ queue: 'delete', node: owner });
      }
    }
    // Copies: the object is the informer's, and may share its references with the write that made it.
    node.owners = refs.map((ref) => ({ ...ref }));
    for (const ref of removed) {
      const owner = this.nodes.get(ref.uid);
      owner?.dependents.delete(node);
      if (owner) this.dropIfUnneeded(owner);
    }
    work.push(...this.addToOwners(node, added));
    const deleting = Boolean(meta.deletionTimestamp);
    const finalizers = meta.finalizers ?? [];
    node.beingDeleted = deleting;
    const orphaning = deleting && finalizers.includes(FINALIZER_ORPHAN);
    const foreground = deleting && finalizers.includes(FINALIZER_FOREGROUND);
    if (orphaning && !node.orphaning) work.push({ queue: 'orphan', node });
    else if (foreground && !node.deletingDependents) {
      for (const dependent of node.dependents) work.push({ queue: 'delete', node: dependent });
      work.push({ queue: 'delete', node });
    }
    node.orphaning = orphaning;
    node.deletingDependents = foreground;
    // An object that neither owns, is owned, nor waits on the collector is not kept.
    if (refs.length === 0 && node.dependents.size === 0 && !deleting) this.nodes.delete(uid);
    return work;
  }

  private addToOwners(node: GraphNode, refs: OwnerReference[]): Work[] {
    const work: Work[] = [];
    let suspect = false;
    for (const ref of refs) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        const namespaced = this.scopeOf(ref.apiVersion, ref.kind)?.namespaced ?? true;
        owner = new GraphNode({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: namespaced ? node.identity.namespace : '' });
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(node);
        // The collector looks it up: absent, its dependents are collected.
        work.push({ queue: 'delete', node: owner });
        continue;
      }
      owner.dependents.add(node);
      if (owner.identity.namespace && owner.identity.namespace !== node.identity.namespace) {
        if (!owner.virtual) work.push({ queue: 'invalidNamespace', node, owner: ref });
        suspect = true;
      } else if (owner.identity.kind !== ref.kind || owner.identity.name !== ref.name || owner.identity.apiVersion !== ref.apiVersion) {
        suspect = true;
      }
    }
    // A reference that disagrees with what is known of its owner is checked live.
    if (suspect) work.push({ queue: 'delete', node });
    return work;
  }

  /** An object removed from storage (the informer's delete). */
  forget(obj: KubeObject): Work[] {
    const node = this.nodes.get(metaOf(obj).uid ?? '');
    if (!node) return [];
    return this.remove(node);
  }

  /** A live lookup found no object for a virtual node: its dependents lost that owner. */
  absent(node: GraphNode): Work[] {
    if (!node.virtual || this.nodes.get(node.identity.uid) !== node) return [];
    return this.remove(node);
  }

  private remove(node: GraphNode): Work[] {
    this.nodes.delete(node.identity.uid);
    const work: Work[] = [];
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      if (!owner) continue;
      owner.dependents.delete(node);
      if (owner.deletingDependents) work.push({ queue: 'delete', node: owner });
      this.dropIfUnneeded(owner);
    }
    for (const dependent of node.dependents) if (dependent !== node) work.push({ queue: 'delete', node: dependent });
    // Dependents keep their references: a virtual node stands for the owner until they are gone.
    const remaining = [...node.dependents].filter((d) => d !== node && this.nodes.get(d.identity.uid) === d);
    if (remaining.length) {
      const ghost = new GraphNode(node.identity);
      for (const d of remaining) ghost.dependents.add(d);
      this.nodes.set(node.identity.uid, ghost);
    }
    return work;
  }

  /** A virtual owner no dependent names any more is forgotten. */
  private dropIfUnneeded(node: GraphNode): void {
    if (node.virtual && node.dependents.size === 0) this.nodes.delete(node.identity.uid);
  }
}

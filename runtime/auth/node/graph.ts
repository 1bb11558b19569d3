// The Node authorizer's graph (kube's plugin/pkg/auth/authorizer/node/graph.go): vertices are
// API objects (pod, secret, configmap, claim, volume, service account, attachment, slice, node),
// and an edge A -> B says that whoever may see B may see A. A node may read an object when a
// path leads from the object's vertex to the node's. Each source object (a pod, a volume, an
// attachment, a slice) owns the edges it was added with, so replacing or deleting it removes
// exactly those; vertices nobody references any more disappear with their last edge.

export type VertexType = 'configmap' | 'node' | 'pod' | 'pv' | 'pvc' | 'resourceclaim' | 'resourceslice' | 'secret' | 'serviceAccount' | 'volumeattachment';

/** kube's names of the vertex types, as its denial messages print them. */
export const VERTEX_TYPE_NAMES: Record<VertexType, string> = {
  configmap: 'configmap',
  node: 'node',
  pod: 'pod',
  pv: 'pv',
  pvc: 'pvc',
  resourceclaim: 'resourceclaim',
  resourceslice: 'resourceslice',
  secret: 'secret',
  serviceAccount: 'serviceAccount',
  volumeattachment: 'volumeattachment',
};

export interface Vertex {
  type: VertexType;
  namespace: string;
  name: string;
}

/** A key no name can forge: the parts are JSON-quoted, so a '/' in a name stays inside its part. */
const keyOf = (type: VertexType, namespace: string, name: string): string => JSON.stringify([type, namespace, name]);

export class Graph {
  /** Out-edges by vertex key, each with how many owners added it. */
  private readonly edges = new Map<string, Map<string, number>>();
  /** Vertices with at least one edge, in or out. */
  private readonly vertices = new Map<string, { vertex: Vertex; degree: number }>();
  /** The edges each source object added, by the source's key. */
  private readonly owned = new Map<string, [string, string][]>();

  /** Replaces every edge `owner` added with `edges` (empty: removes the owner). */
  setEdges(owner: Vertex, edges: [Vertex, Vertex][]): void {
    const ownerKey = keyOf(owner.type, owner.namespace, owner.name);
    for (const [from, to] of this.owned.get(ownerKey) ?? []) this.removeEdge(from, to);
    if (edges.length === 0) {
      this.owned.delete(ownerKey);
      return;
    }
    const keys: [string, string][] = [];
    for (const [from, to] of edges) {
      const f = this.addVertex(from);
      const t = this.addVertex(to);
      const out = this.edges.get(f) ?? new Map<string, number>();
      out.set(t, (out.get(t) ?? 0) + 1);
      this.edges.set(f, out);
      keys.push([f, t]);
    }
    this.owned.set(ownerKey, keys);
  }

  /** Drops every edge owned by a source of `type` (a relist replaces them all). */
  clearOwners(type: VertexType): void {
    const prefix = JSON.stringify([type]).slice(0, -1) + ',';
    for (const [ownerKey, keys] of [...this.owned]) {
      if (!ownerKey.startsWith(prefix)) continue;
      for (const [from, to] of keys) this.removeEdge(from, to);
      this.owned.delete(ownerKey);
    }
  }

  has(type: VertexType, namespace: string, name: string): boolean {
    return this.vertices.has(keyOf(type, namespace, name));
  }

  /**
   * Whether a path leads from the vertex to node `nodeName`. Paths through another node stop
   * there: a node vertex has no out-edges, and only the wanted one counts as found.
   */
  hasPath(type: VertexType, namespace: string, name: string, nodeName: string): boolean {
    const target = keyOf('node', '', nodeName);
    const start = keyOf(type, namespace, name);
    if (!this.vertices.has(target) || !this.vertices.has(start)) return false;
    const seen = new Set([start]);
    const stack = [start];
    while (stack.length > 0) {
      const at = stack.pop()!;
      for (const next of this.edges.get(at)?.keys() ?? []) {
        if (next === target) return true;
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return false;
  }

  /** Vertex and edge counts, for tests of the bookkeeping. */
  size(): { vertices: number; edges: number } {
    let edges = 0;
    for (const out of this.edges.values()) edges += out.size;
    return { vertices: this.vertices.size, edges };
  }

  private addVertex(v: Vertex): string {
    const key = keyOf(v.type, v.namespace, v.name);
    const entry = this.vertices.get(key);
    if (entry) entry.degree += 1;
    else this.vertices.set(key, { vertex: { type: v.type, namespace: v.namespace, name: v.name }, degree: 1 });
    return key;
  }

  private releaseVertex(key: string): void {
    const entry = this.vertices.get(key);
    if (!entry) return;
    entry.degree -= 1;
    if (entry.degree <= 0) this.vertices.delete(key);
  }

  private removeEdge(from: string, to: string): void {
    const out = this.edges.get(from);
    const count = out?.get(to);
    if (!out || count === undefined) return;
    if (count <= 1) out.delete(to);
    else out.set(to, count - 1);
    if (out.size === 0) this.edges.delete(from);
    this.releaseVertex(from);
    this.releaseVertex(to);
  }
}

// Keeps the Node authorizer's graph current from informers over pods, persistent volumes,
// VolumeAttachments and ResourceSlices (kube's graph_populator), so a node's request is decided
// without a storage read. A relist replaces a kind's edges; kinds not served add none.

import { Graph, type Vertex, type VertexType } from '../auth/node/graph.js';
import { nodeNameEdges, persistentVolumeEdges, podEdges } from '../auth/node/references.js';
import { asObject, asString, type KubeObject } from '../machinery/object.js';
import type { ResourceRegistry } from '../registry/registry.js';
import { Informer } from './informer.js';

export interface NodeGraphWatch {
  graph: Graph;
  /** Resolves once every served kind's first list is in the graph. */
  ready: Promise<void>;
  close(): void;
}

interface Source {
  group: string;
  version: string;
  plural: string;
  type: VertexType;
  edges(obj: KubeObject): [Vertex, Vertex][];
}

const SOURCES: Source[] = [
  { group: '', version: 'v1', plural: 'pods', type: 'pod', edges: podEdges },
  { group: '', version: 'v1', plural: 'persistentvolumes', type: 'pv', edges: persistentVolumeEdges },
  { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments', type: 'volumeattachment', edges: (o) => nodeNameEdges('volumeattachment', o) },
  { group: 'resource.k8s.io', version: 'v1beta2', plural: 'resourceslices', type: 'resourceslice', edges: (o) => nodeNameEdges('resourceslice', o) },
];

function ownerOf(type: VertexType, obj: KubeObject): Vertex {
  const meta = asObject(obj.metadata);
  return { type, namespace: asString(meta.namespace), name: asString(meta.name) };
}

export function watchNodeGraph(registry: ResourceRegistry, graph = new Graph()): NodeGraphWatch {
  const informers: Informer[] = [];
  for (const source of SOURCES) {
    const store = registry.storeFor(source.group, source.version, source.plural);
    if (!store) continue;
    const set = (obj: KubeObject) => graph.setEdges(ownerOf(source.type, obj), source.edges(obj));
    informers.push(
      new Informer(store, {
        onList: (all) => {
          graph.clearOwners(source.type);
          for (const o of all) set(o);
        },
        onAdd: set,
        onUpdate: set,
        onDelete: (obj) => graph.setEdges(ownerOf(source.type, obj), []),
      }),
    );
  }
  return {
    graph,
    ready: Promise.all(informers.map((i) => i.start())).then(() => undefined),
    close: () => {
      for (const i of informers) i.close();
    },
  };
}

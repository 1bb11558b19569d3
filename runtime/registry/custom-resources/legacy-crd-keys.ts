// CustomResourceDefinitions live at /registry/apiextensions.k8s.io/customresourcedefinitions/<name>,
// where kube-apiserver keeps them: its apiextensions server stores every resource under
// `<group>/<resource>` (SimpleRestOptionsFactory), unlike the built-in kinds' bare `<resource>`.
// Data directories written before this server used that prefix hold them at
// /registry/customresourcedefinitions/<name>; they are moved once, at start, before anything reads
// CRDs. (kube never moved its own layout, so it has no such step; this one only repairs ours.)

import type { Storage } from '../../storage/interface.js';
import { StorageError } from '../../storage/interface.js';

const OLD_PREFIX = '/registry/customresourcedefinitions/';
const CRD_KEY_PREFIX = '/registry/apiextensions.k8s.io/customresourcedefinitions/';

/** Moves CRDs stored under the old prefix to kube's; returns how many were moved. */
export async function moveLegacyCRDKeys(storage: Storage): Promise<number> {
  const { items } = await storage.list(OLD_PREFIX);
  let moved = 0;
  for (const kv of items) {
    const key = CRD_KEY_PREFIX + kv.key.slice(OLD_PREFIX.length);
    try {
      await storage.create(key, kv.value);
      moved++;
    } catch (e) {
      // Already there (another server moved it, or it was created since): that one is current.
      if (!(e instanceof StorageError && e.code === 'KeyExists')) throw e;
    }
    try {
      await storage.delete(kv.key, kv.modRevision);
    } catch (e) {
      if (!(e instanceof StorageError && (e.code === 'KeyNotFound' || e.code === 'Conflict'))) throw e;
    }
  }
  return moved;
}

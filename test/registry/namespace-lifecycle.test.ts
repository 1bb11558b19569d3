// NamespaceLifecycle on create: the same answers whether the namespace is at hand (the watch
// cache's, looked up without waiting) or has to be read from storage.
import { describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import type { ResourceDefinition } from '../../runtime/registry/definition.js';
import { admitCreate, type NamespaceLookup } from '../../runtime/registry/namespace-lifecycle.js';

const configMaps = { group: '', plural: 'configmaps', namespaced: true } as ResourceDefinition;
const namespaces: Record<string, KubeObject> = {
  active: { metadata: { name: 'active' }, status: { phase: 'Active' } },
  doomed: { metadata: { name: 'doomed' }, status: { phase: 'Terminating' } },
};
const atHand: NamespaceLookup = (name) => namespaces[name];
const read: NamespaceLookup = async (name) => namespaces[name];

/** The refusal of a create into `namespace`, however the lookup answers. */
async function refusal(lookup: NamespaceLookup, namespace: string): Promise<StatusError | undefined> {
  try {
    await admitCreate(lookup, configMaps, namespace, 'x');
    return undefined;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
}

describe('admitCreate', () => {
  it('admits into a namespace at hand without a promise, and into one read from storage after it', async () => {
    expect(admitCreate(atHand, configMaps, 'active', 'x')).toBeUndefined();
    const later = admitCreate(read, configMaps, 'active', 'x');
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toBeUndefined();
    expect(admitCreate(read, { ...configMaps, namespaced: false }, 'active', 'x')).toBeUndefined();
  });

  it('refuses a missing namespace (404) and a terminating one (403) alike on both paths', async () => {
    for (const lookup of [atHand, read]) {
      const missing = await refusal(lookup, 'nowhere');
      expect([missing?.code, missing?.message]).toEqual([404, 'namespaces "nowhere" not found']);
      const terminating = await refusal(lookup, 'doomed');
      expect([terminating?.code, terminating?.reason, terminating?.message]).toEqual([
        403,
        'Forbidden',
        'configmaps "x" is forbidden: unable to create new content in namespace doomed because it is being terminated',
      ]);
      expect(terminating?.details?.causes).toEqual([{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }]);
      expect(await refusal(lookup, 'active')).toBeUndefined();
    }
  });
});

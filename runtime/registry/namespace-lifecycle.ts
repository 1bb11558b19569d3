// NamespaceLifecycle admission, the part the store needs: new objects only go into namespaces
// that exist (404 for the namespace otherwise) and are not being terminated (403). Updates and
// deletes of existing content are always allowed, as upstream.

import { StatusError, notFound } from '../errors/status-error.js';
import type { ResourceDefinition } from './definition.js';
import { isPlainObject, type KubeObject } from '../machinery/object.js';

/** Returns the namespace object, or undefined when there is none. */
export type NamespaceLookup = (name: string) => Promise<KubeObject | undefined>;

export async function admitCreate(
  lookup: NamespaceLookup | undefined,
  def: ResourceDefinition,
  namespace: string,
  name: string,
): Promise<void> {
  if (!lookup || !def.namespaced || !namespace) return;
  const ns = await lookup(namespace);
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  const phase = isPlainObject(ns.status) ? ns.status.phase : undefined;
  if (phase !== 'Terminating') return;
  const qualified = def.group ? `${def.plural}.${def.group}` : def.plural;
  const subject = name ? `${qualified} "${name}"` : qualified;
  throw new StatusError(
    403,
    'Forbidden',
    `${subject} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      name,
      ...(def.group ? { group: def.group } : {}),
      kind: def.plural,
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
    },
  );
}

// NamespaceLifecycle admission, the part the store needs: new objects only go into namespaces
// that exist (404 for the namespace otherwise) and are not being terminated (403). Updates and
// deletes of existing content are always allowed, as upstream.

import { StatusError, notFound } from '../errors/status-error.js';
import type { ResourceDefinition } from './definition.js';
import { isPlainObject, type KubeObject } from '../machinery/object.js';

/** The namespace object, or undefined when there is none: at once when it is at hand (the watch cache's), else later. */
export type NamespaceLookup = (name: string) => KubeObject | undefined | Promise<KubeObject | undefined>;

/**
 * Throws when the namespace refuses the create. Returns a promise only when the namespace had to
 * be read; a namespace found at hand (every create into a cached namespace) admits the create
 * without a turn of the event loop.
 */
export function admitCreate(
  lookup: NamespaceLookup | undefined,
  def: ResourceDefinition,
  namespace: string,
  name: string,
): Promise<void> | undefined {
  if (!lookup || !def.namespaced || !namespace) return undefined;
  const found = lookup(namespace);
  if (found instanceof Promise) return found.then((ns) => admitInto(ns, def, namespace, name));
  admitInto(found, def, namespace, name);
  return undefined;
}

function admitInto(ns: KubeObject | undefined, def: ResourceDefinition, namespace: string, name: string): void {
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

// ComponentStatus (core/v1, deprecated in 1.19): kube-apiserver's read-only view of the health of
// the components it depends on, probed anew on every get and list and never stored. kube lists
// `etcd-<n>` for each store configuration and probes a scheduler and a controller manager on
// their fixed local ports; this server has neither of those, so it lists what exists: its store,
// named `etcd-0` on etcd and `sqlite-0` or `memory-0` otherwise (the backend's name where kube
// writes "etcd", with kube's index), probed as kube probes etcd.

import { StatusError } from '../../errors/status-error.js';
import type { KubeObject } from '../../machinery/object.js';
import type { Storage } from '../../storage/interface.js';
import { compilePredicate, type SelectionOptions } from '../selection.js';

/** A component whose health is reported: its probe resolves with a message, or rejects with why not. */
export interface ProbedComponent {
  name: string;
  probe(): Promise<string>;
}

/** kube's probeTimeOut for every component check. */
const PROBE_TIMEOUT_MS = 20_000;

/**
 * The store as a component. An etcd store is read once (kube's etcd prober reads one key) and
 * fails with the prober's words; stores inside this process answer while the process runs.
 */
export function storeComponent(backend: string, storage: Storage): ProbedComponent {
  return {
    name: `${backend}-0`,
    async probe() {
      if (!storage.healthCheck) return 'ok';
      const started = Date.now();
      try {
        await storage.healthCheck(PROBE_TIMEOUT_MS);
      } catch (err) {
        // Go's etcd client retries an unreachable etcd until the probe's deadline and then says
        // only that; this one knows sooner and says why (grpc's empty resolution note left out).
        const timedOut = Date.now() - started >= PROBE_TIMEOUT_MS - 50;
        const why = timedOut ? 'context deadline exceeded' : (err instanceof Error ? err.message : String(err)).replace(/\s*Resolution note:\s*$/, '');
        throw new Error(`error getting data from ${backend}: ${why}`);
      }
      return 'ok';
    },
  };
}

async function componentStatus(component: ProbedComponent): Promise<KubeObject> {
  let condition: Record<string, string>;
  try {
    condition = { type: 'Healthy', status: 'True', message: await component.probe() };
  } catch (err) {
    condition = { type: 'Healthy', status: 'False', error: err instanceof Error ? err.message : String(err) };
  }
  // Go writes a zero creationTimestamp as null; the object was never created anywhere.
  return { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: component.name, creationTimestamp: null }, conditions: [condition] };
}

/** The object-meta fields kube selects cluster-scoped objects by. */
const selectableFields = (obj: KubeObject) => ({ 'metadata.name': String((obj.metadata as { name?: unknown }).name ?? ''), 'metadata.namespace': '' });

export function componentStatusView(components: readonly ProbedComponent[]): { get(name: string): Promise<KubeObject>; list(options: SelectionOptions): Promise<KubeObject> } {
  return {
    async get(name) {
      const component = components.find((c) => c.name === name);
      // kube's REST answers a plain error here, which its handler sends as a 500 without a reason.
      if (!component) throw new StatusError(500, '', `Component not found: ${name}`);
      return componentStatus(component);
    },
    async list(options) {
      const predicate = compilePredicate({ selectableFields }, options);
      const items = await Promise.all(components.map(componentStatus));
      // List items carry no type fields of their own.
      const matching = items.filter((item) => predicate.matches(item)).map(({ apiVersion: _v, kind: _k, ...item }) => item);
      return { apiVersion: 'v1', kind: 'ComponentStatusList', metadata: {}, items: matching };
    },
  };
}

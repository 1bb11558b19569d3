// The computed columns of `kubectl get pods` (kube-apiserver's pod table printer): READY,
// STATUS, RESTARTS and the wide IP and READINESS GATES. STATUS is a summary: the phase, unless
// a reason, a scheduling gate, a failing or waiting init container, or a container's waiting or
// terminated reason says more; a pod being deleted reads Terminating.

import { humanDuration } from '../../machinery/human-duration.js';
import { asObject, asObjectList, asString } from '../../machinery/object.js';

type Obj = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

interface PodParts {
  spec: Obj;
  status: Obj;
  initContainers: Obj[];
  /** Init containers with restartPolicy Always (sidecars) count as regular containers. */
  sidecars: Set<string>;
}

function parts(pod: Obj): PodParts {
  const spec = asObject(pod.spec);
  const initContainers = asObjectList(spec.initContainers);
  return {
    spec,
    status: asObject(pod.status),
    initContainers,
    sidecars: new Set(initContainers.filter((c) => c.restartPolicy === 'Always').map((c) => asString(c.name))),
  };
}

function conditionTrue(status: Obj, type: string): boolean {
  const c = asObjectList(status.conditions).find((x) => x.type === type);
  return c?.status === 'True';
}

/** The restart count and the time of the last restart, as the printer sums them. */
interface Summary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart: number;
}

function terminatedAt(container: Obj): number {
  const finished = asString(asObject(asObject(container.lastState).terminated).finishedAt);
  const t = finished ? Date.parse(finished) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

function terminationReason(terminated: Obj, prefix: string): string {
  if (asString(terminated.reason)) return prefix + asString(terminated.reason);
  if (num(terminated.signal) !== 0) return `${prefix}Signal:${num(terminated.signal)}`;
  return `${prefix}ExitCode:${num(terminated.exitCode)}`;
}

export function summarizePod(pod: Obj): Summary {
  const { spec, status, initContainers, sidecars } = parts(pod);
  const s: Summary = {
    ready: 0,
    total: asObjectList(spec.containers).length + sidecars.size,
    reason: asString(status.reason) || asString(status.phase),
    restarts: 0,
    lastRestart: 0,
  };
  if (asObjectList(status.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) s.reason = 'SchedulingGated';

  let sidecarRestarts = 0;
  let sidecarLastRestart = 0;
  let initializing = false;
  const initStatuses = asObjectList(status.initContainerStatuses);
  for (const [i, c] of initStatuses.entries()) {
    const restarts = num(c.restartCount);
    s.restarts += restarts;
    s.lastRestart = Math.max(s.lastRestart, terminatedAt(c));
    const sidecar = sidecars.has(asString(c.name));
    if (sidecar) {
      sidecarRestarts += restarts;
      sidecarLastRestart = Math.max(sidecarLastRestart, terminatedAt(c));
    }
    const state = asObject(c.state);
    const terminated = state.terminated === undefined ? undefined : asObject(state.terminated);
    const waiting = state.waiting === undefined ? undefined : asObject(state.waiting);
    if (terminated && num(terminated.exitCode) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready === true) s.ready++;
      continue;
    }
    if (terminated) s.reason = terminationReason(terminated, 'Init:');
    else if (waiting && asString(waiting.reason) && waiting.reason !== 'PodInitializing') s.reason = `Init:${asString(waiting.reason)}`;
    else s.reason = `Init:${i}/${initContainers.length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status, 'Initialized')) {
    s.restarts = sidecarRestarts;
    s.lastRestart = sidecarLastRestart;
    let running = false;
    const statuses = asObjectList(status.containerStatuses);
    // The printer walks the statuses from the last one, so the first container's reason wins.
    for (const c of [...statuses].reverse()) {
      s.restarts += num(c.restartCount);
      s.lastRestart = Math.max(s.lastRestart, terminatedAt(c));
      const state = asObject(c.state);
      const waiting = asObject(state.waiting);
      if (state.waiting !== undefined && asString(waiting.reason)) s.reason = asString(waiting.reason);
      else if (state.terminated !== undefined) s.reason = terminationReason(asObject(state.terminated), '');
      else if (c.ready === true && state.running !== undefined) {
        running = true;
        s.ready++;
      }
    }
    if (s.reason === 'Completed' && running) s.reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = asObject(pod.metadata).deletionTimestamp !== undefined && asObject(pod.metadata).deletionTimestamp !== null;
  if (deleting && status.reason === 'NodeLost') s.reason = 'Unknown';
  else if (deleting && status.phase !== 'Succeeded' && status.phase !== 'Failed') s.reason = 'Terminating';
  return s;
}

export const podPrinters: Record<string, (pod: Obj, now: Date) => unknown> = {
  podReady: (pod) => {
    const s = summarizePod(pod);
    return `${s.ready}/${s.total}`;
  },
  podStatus: (pod) => summarizePod(pod).reason,
  podRestarts: (pod, now) => {
    const s = summarizePod(pod);
    if (s.restarts === 0 || s.lastRestart === 0) return String(s.restarts);
    return `${s.restarts} (${humanDuration(now.getTime() - s.lastRestart)} ago)`;
  },
  podIP: (pod) => asString(asObjectList(asObject(pod.status).podIPs)[0]?.ip) || '<none>',
  podNode: (pod) => asString(asObject(pod.spec).nodeName) || '<none>',
  podNominatedNode: (pod) => asString(asObject(pod.status).nominatedNodeName) || '<none>',
  podReadinessGates: (pod) => {
    const gates = asObjectList(asObject(pod.spec).readinessGates);
    if (gates.length === 0) return '<none>';
    const conditions = asObjectList(asObject(pod.status).conditions);
    const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
    return `${met}/${gates.length}`;
  },
};

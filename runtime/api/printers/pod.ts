// The computed columns of `kubectl get pods` (kube-apiserver's pod table printer): READY,
// STATUS, RESTARTS and the wide IP and READINESS GATES. STATUS is a summary: the phase, unless
// a reason, a scheduling gate, a failing or waiting init container, or a container's waiting or
// terminated reason says more; a pod being deleted reads Terminating.

import { humanDuration } from '../human-duration.js';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

interface PodParts {
  spec: Obj;
  status: Obj;
  initContainers: Obj[];
  /** Init containers with restartPolicy Always (sidecars) count as regular containers. */
  sidecars: Set<string>;
}

function parts(pod: Obj): PodParts {
  const spec = obj(pod.spec);
  const initContainers = list(spec.initContainers);
  return {
    spec,
    status: obj(pod.status),
    initContainers,
    sidecars: new Set(initContainers.filter((c) => c.restartPolicy === 'Always').map((c) => str(c.name))),
  };
}

function conditionTrue(status: Obj, type: string): boolean {
  const c = list(status.conditions).find((x) => x.type === type);
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
  const finished = str(obj(obj(container.lastState).terminated).finishedAt);
  const t = finished ? Date.parse(finished) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

function terminationReason(terminated: Obj, prefix: string): string {
  if (str(terminated.reason)) return prefix + str(terminated.reason);
  if (num(terminated.signal) !== 0) return `${prefix}Signal:${num(terminated.signal)}`;
  return `${prefix}ExitCode:${num(terminated.exitCode)}`;
}

export function summarizePod(pod: Obj): Summary {
  const { spec, status, initContainers, sidecars } = parts(pod);
  const s: Summary = {
    ready: 0,
    total: list(spec.containers).length + sidecars.size,
    reason: str(status.reason) || str(status.phase),
    restarts: 0,
    lastRestart: 0,
  };
  if (list(status.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) s.reason = 'SchedulingGated';

  let sidecarRestarts = 0;
  let sidecarLastRestart = 0;
  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  for (const [i, c] of initStatuses.entries()) {
    const restarts = num(c.restartCount);
    s.restarts += restarts;
    s.lastRestart = Math.max(s.lastRestart, terminatedAt(c));
    const sidecar = sidecars.has(str(c.name));
    if (sidecar) {
      sidecarRestarts += restarts;
      sidecarLastRestart = Math.max(sidecarLastRestart, terminatedAt(c));
    }
    const state = obj(c.state);
    const terminated = state.terminated === undefined ? undefined : obj(state.terminated);
    const waiting = state.waiting === undefined ? undefined : obj(state.waiting);
    if (terminated && num(terminated.exitCode) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready === true) s.ready++;
      continue;
    }
    if (terminated) s.reason = terminationReason(terminated, 'Init:');
    else if (waiting && str(waiting.reason) && waiting.reason !== 'PodInitializing') s.reason = `Init:${str(waiting.reason)}`;
    else s.reason = `Init:${i}/${initContainers.length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status, 'Initialized')) {
    s.restarts = sidecarRestarts;
    s.lastRestart = sidecarLastRestart;
    let running = false;
    const statuses = list(status.containerStatuses);
    // The printer walks the statuses from the last one, so the first container's reason wins.
    for (const c of [...statuses].reverse()) {
      s.restarts += num(c.restartCount);
      s.lastRestart = Math.max(s.lastRestart, terminatedAt(c));
      const state = obj(c.state);
      const waiting = obj(state.waiting);
      if (state.waiting !== undefined && str(waiting.reason)) s.reason = str(waiting.reason);
      else if (state.terminated !== undefined) s.reason = terminationReason(obj(state.terminated), '');
      else if (c.ready === true && state.running !== undefined) {
        running = true;
        s.ready++;
      }
    }
    if (s.reason === 'Completed' && running) s.reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = obj(pod.metadata).deletionTimestamp !== undefined && obj(pod.metadata).deletionTimestamp !== null;
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
  podIP: (pod) => str(list(obj(pod.status).podIPs)[0]?.ip) || '<none>',
  podNode: (pod) => str(obj(pod.spec).nodeName) || '<none>',
  podNominatedNode: (pod) => str(obj(pod.status).nominatedNodeName) || '<none>',
  podReadinessGates: (pod) => {
    const gates = list(obj(pod.spec).readinessGates);
    if (gates.length === 0) return '<none>';
    const conditions = list(obj(pod.status).conditions);
    const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
    return `${met}/${gates.length}`;
  },
};

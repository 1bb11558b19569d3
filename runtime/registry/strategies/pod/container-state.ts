// kube-apiserver's ValidateContainerStateTransition and ValidateInitContainerStateTransition (1.33):
// a status write may not bring a terminated container back to life when the pod would never
// restart it. The restart policy is the stored pod's: Always allows everything; OnFailure allows
// it only after a non-zero exit; Never allows nothing. A sidecar (an init container whose own
// restartPolicy is Always) may always restart, and ephemeral containers are never restarted.
// The cause sits at the index of the stored status, once for every new status of that name.

import type { StatusCause } from '../../../errors/status-error.js';
import { forbidden } from '../../../validation/field-errors.js';
import { asObject, asObjectList, asString } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

const MESSAGE = 'may not be transitioned to non-terminated state';

const terminatedOf = (status: Obj): Obj | undefined => {
  const terminated = asObject(status.state).terminated;
  return terminated === undefined || terminated === null ? undefined : asObject(terminated);
};

/** Whether the kubelet would restart the container of this stored, terminated status. */
type MayRestart = (old: Obj, terminated: Obj) => boolean;

function byPodPolicy(restartPolicy: string): MayRestart {
  return (_old, terminated) => restartPolicy === 'Always' || (restartPolicy === 'OnFailure' && Number(terminated.exitCode ?? 0) !== 0);
}

function transitionCauses(statuses: unknown, oldStatuses: unknown, at: string, mayRestart: MayRestart): StatusCause[] {
  const causes: StatusCause[] = [];
  const next = asObjectList(statuses);
  asObjectList(oldStatuses).forEach((old, i) => {
    const terminated = terminatedOf(old);
    if (!terminated || mayRestart(old, terminated)) return;
    for (const status of next) {
      if (asString(status.name) === asString(old.name) && !terminatedOf(status)) causes.push(forbidden(`${at}[${i}].state`, MESSAGE));
    }
  });
  return causes;
}

/** An init container with restartPolicy Always: the first init container of that name decides. */
function isSidecar(oldSpec: Obj, name: string): boolean {
  const container = asObjectList(oldSpec.initContainers).find((c) => asString(c.name) === name);
  return container?.restartPolicy === 'Always';
}

export function containerStateTransitionCauses(status: unknown, oldStatus: unknown, oldSpec: unknown): StatusCause[] {
  const s = asObject(status);
  const o = asObject(oldStatus);
  const spec = asObject(oldSpec);
  const podPolicy = byPodPolicy(asString(spec.restartPolicy));
  return [
    ...transitionCauses(s.containerStatuses, o.containerStatuses, 'status.containerStatuses', podPolicy),
    ...transitionCauses(s.initContainerStatuses, o.initContainerStatuses, 'status.initContainerStatuses', (old, t) => podPolicy(old, t) || isSidecar(spec, asString(old.name))),
    ...transitionCauses(s.ephemeralContainerStatuses, o.ephemeralContainerStatuses, 'status.ephemeralContainerStatuses', byPodPolicy('Never')),
  ];
}

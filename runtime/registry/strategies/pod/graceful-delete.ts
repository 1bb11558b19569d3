// A pod's graceful termination (kube-apiserver's pod CheckGracefulTermination): a pod bound to
// a node is not removed at once but marked with deletionTimestamp = now + grace period, for the
// node agent to stop it and finish the delete. The grace period is the request's, else the
// pod's terminationGracePeriodSeconds. A pod never scheduled, or already finished, goes at once,
// and so does any pod deleted with a grace period of 0. A second delete may only shorten the
// period. With no node agent in this server, a bound pod stays Terminating until it is deleted
// with a grace period of 0, as on a cluster whose node is gone.

import type { DeleteOptions } from '../../delete-options.js';
import { asObject, deepClone, metaOf, type KubeObject } from '../../../machinery/object.js';
import type { DeleteDecision } from '../../strategy.js';

const DEFAULT_GRACE_SECONDS = 30;

export function podBeforeDelete(existing: KubeObject, options: DeleteOptions): DeleteDecision {
  const spec = asObject(existing.spec);
  const status = asObject(existing.status);
  const bound = typeof spec.nodeName === 'string' && spec.nodeName !== '';
  const finished = status.phase === 'Succeeded' || status.phase === 'Failed';
  if (!bound || finished) return { action: 'delete' };
  const specGrace = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : DEFAULT_GRACE_SECONDS;
  let grace = options.gracePeriodSeconds ?? specGrace;
  // A negative period asks for the shortest graceful one.
  if (grace < 0) grace = 1;
  if (grace === 0) return { action: 'delete' };
  const meta = metaOf(existing);
  if (meta.deletionTimestamp && (meta.deletionGracePeriodSeconds ?? Infinity) <= grace) return { action: 'keep' };
  const marked = deepClone(existing);
  const markedMeta = metaOf(marked);
  markedMeta.deletionTimestamp = new Date(Date.now() + grace * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  markedMeta.deletionGracePeriodSeconds = grace;
  if ((markedMeta.generation ?? 0) > 0 && !meta.deletionTimestamp) markedMeta.generation = (markedMeta.generation ?? 0) + 1;
  return { action: 'update', obj: marked };
}

// What every answer to a hostile write must look like, and the 5xx answers kube-apiserver itself
// gives (so the suite allows exactly these and no other).
import type protobuf from 'protobufjs';
import { decodeObject, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import type { Answer } from './client.js';

export interface StatusBody {
  kind?: unknown;
  apiVersion?: unknown;
  status?: unknown;
  code?: unknown;
  reason?: unknown;
  message?: unknown;
}

/**
 * The 500s kube-apiserver 1.33 answers to malformed writes, each a plain Go error handed to the
 * response writer (Status reason empty) or its panic filter, never a crash of ours:
 */
export const KUBE_5XX: Array<{ op: RegExp; method?: string; reason: string; message: RegExp; why: string }> = [
  {
    // Every DELETE with a body, whichever op sent it (unknown content types and oversized bodies too).
    op: /./,
    method: 'DELETE',
    reason: '',
    message: /./,
    why: "the delete handler returns the DeleteOptions decoder's error as it is, whatever the decoder (JSON, YAML, protobuf, CBOR) and whatever it says: a plain error, so a 500 with reason Unknown (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go)",
  },
  {
    op: /^json patch$/,
    reason: 'InternalError',
    message: /^This request caused apiserver to panic\. Look in the logs for details\.$/,
    why: 'evanphx/json-patch v4 dereferences a nil node when `test` compares arrays holding null; the panic filter answers 500',
  },
  {
    op: /^strategic merge patch$/,
    reason: '',
    message: /^(expected a .*, but received a |map: .* does not contain declared merge key: |unknown patch type: |The order in patch list:|list element types are not identical: |no elements in any of the given slices|cannot merge lists without merge key for |merging lists cannot yet be specified in the patch)/,
    why: 'interpretStrategicMergePatchError (handlers/patch.go) maps only a few strategicpatch errors to 400/422 and returns the rest as plain errors',
  },
  {
    op: /^apply /,
    reason: '',
    message: /^failed to create typed patch object \(/,
    why: "the field manager's typed conversion of an apply body fails with a plain error (fieldmanager/internal/structuredmerge.go)",
  },
  {
    op: /^(create |eviction$)/,
    reason: '',
    message: /^resourceVersion should not be set on objects to be created$/,
    why: 'the etcd3 store refuses a create carrying a resourceVersion with a plain error (storage/etcd3/store.go)',
  },
];

/** The entry of KUBE_5XX that allows this 5xx answer to `op`, if any. */
export function kubeServerError(op: string, method: string, status: StatusBody): (typeof KUBE_5XX)[number] | undefined {
  return KUBE_5XX.find((k) => k.op.test(op) && (k.method === undefined || k.method === method) && (status.reason ?? '') === k.reason && typeof status.message === 'string' && k.message.test(status.message));
}

/** The Status of an error answer, or why the answer is none. */
export function readStatus(answer: Answer, root: protobuf.Root): StatusBody | string {
  const type = String(answer.headers['content-type'] ?? '');
  let status: StatusBody;
  try {
    if (type.startsWith('application/vnd.kubernetes.protobuf')) {
      status = decodeObject(root, new Uint8Array(answer.body), messageNameResolver(root)).object as StatusBody;
    } else if (type.startsWith('application/json')) {
      status = JSON.parse(answer.body.toString('utf8')) as StatusBody;
    } else {
      return `content type ${JSON.stringify(type)}: ${answer.body.toString('utf8').slice(0, 120)}`;
    }
  } catch (e) {
    return `undecodable ${type} body (${(e as Error).message}): ${answer.body.toString('utf8').slice(0, 120)}`;
  }
  if (status.kind !== 'Status' || status.apiVersion !== 'v1' || status.status !== 'Failure' || status.code !== answer.status || typeof status.message !== 'string') {
    return `not a Failure Status with code ${answer.status}: ${JSON.stringify(status).slice(0, 200)}`;
  }
  return status;
}

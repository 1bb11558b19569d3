// The one error type that reaches clients. Every failure a request can meet is turned into a
// StatusError somewhere below the handler, and the server layer writes it as a meta/v1 Status
// object with the same code, reason, message and details kube-apiserver would send.

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'ServerTimeout'
  | 'Timeout';

/** The reasons of field errors, as k8s.io/apimachinery/pkg/util/validation/field names them. */
export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid'
  | 'ResourceVersionTooLarge'
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict';

export interface StatusCause {
  reason?: CauseType | string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

/** A group-qualified resource, as errors name it: `configmaps` or `clusterroles.rbac.authorization.k8s.io`. */
export interface GroupResource {
  group: string;
  resource: string;
}

function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    /** '' for errors kube-apiserver sends without a reason (the Status then has none). */
    readonly reason: StatusReason | '',
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): Status {
    // Go's field order (reason and details before code), so every encoder writes what kube-apiserver writes.
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message } as Status;
    if (this.reason) status.reason = this.reason;
    if (this.details) status.details = this.details;
    status.code = this.code;
    return status;
  }
}

export const isStatusError = (e: unknown): e is StatusError => e instanceof StatusError;

function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  // Go's omitempty: an empty name is left out of the details.
  const details: StatusDetails = name ? { name } : {};
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  return details;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, resourceDetails(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, resourceDetails(gr, name));
}

export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
    resourceDetails(gr, name),
  );
}

/** The message kube-apiserver gives for a write against a stale resourceVersion. */
export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

/**
 * 422 Invalid. Names the kind (ConfigMap, or ClusterRoleBinding.rbac.authorization.k8s.io with its
 * group, as GroupKind prints), not the resource, and lists every cause in the message.
 */
export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): StatusError {
  const rendered = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : (c.message ?? ''))))];
  const summary = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const details: StatusDetails = { name };
  if (group) details.group = group;
  details.kind = kind;
  details.causes = causes;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, details);
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(401, 'Unauthorized', message);
}

export function forbidden(gr: GroupResource, name: string, why: string): StatusError {
  const subject = name ? `${qualified(gr)} "${name}"` : qualified(gr);
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, resourceDetails(gr, name));
}

export function methodNotSupported(gr: GroupResource, verb: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualified(gr)}"`, {
    ...(gr.group ? { group: gr.group } : {}),
    kind: gr.resource,
  });
}

export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** 410 Expired: a resourceVersion or continue token older than the retained history. */
export function resourceExpired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

/** 504 for a resourceVersion the store has not reached within the wait. */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): StatusError {
  return new StatusError(
    504,
    'Timeout',
    `Too large resource version: ${requested}, current: ${current}`,
    { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

export function internalError(err: unknown): StatusError {
  const why = err instanceof Error ? err.message : String(err);
  return new StatusError(500, 'InternalError', `Internal error occurred: ${why}`, {
    causes: [{ message: why }],
  });
}

/**
 * 500 ServerTimeout: the operation could not be done now (storage unreachable) and nothing was
 * changed, so the client may try again after retryAfterSeconds (apierrors.NewServerTimeout).
 */
export function serverTimeout(gr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  return new StatusError(
    500,
    'ServerTimeout',
    `The ${operation} operation against ${qualified(gr)} could not be completed at this time, please try again.`,
    { ...resourceDetails(gr, operation), retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/** 504 Timeout (apierrors.NewTimeoutError without a retry delay): the request's outcome is unknown. */
export function timeoutError(message: string): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: ${message}`, {});
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}

// Failures as the server describes them: a metav1.Status turned into an Error, with the fields
// client-go's apierrors reads (code, reason, message, details.causes).

export interface StatusCause {
  reason?: string;
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

/** The metav1.Status object the server answers a failure (and some deletes) with. */
export interface Status {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  status?: string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** The reason client-go gives a failure whose body is not a Status (apierrors.NewGenericServerResponse). */
const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails;
  /** The Status as received (or built from the HTTP reply when the body was not a Status). */
  readonly status: Status;

  constructor(status: Status) {
    super(status.message || `the server answered ${status.code ?? 'an error'}`);
    this.name = 'StatusError';
    this.code = status.code ?? 0;
    this.reason = status.reason || REASON_BY_CODE[this.code] || 'Unknown';
    this.details = status.details ?? {};
    this.status = status;
  }
}

/**
 * 410 Expired (or Gone): the resourceVersion or continue token asked for is older than the
 * server keeps. The caller lists again and watches from the new list's resourceVersion.
 */
export class ExpiredError extends StatusError {
  constructor(status: Status) {
    super(status);
    this.name = 'ExpiredError';
  }
}

const isStatus = (v: unknown): v is Status => typeof v === 'object' && v !== null && (v as Status).kind === 'Status';

/** The error for a failed reply: its Status when the body is one, else one built from the code. */
export function statusErrorOf(code: number, body: unknown): StatusError {
  const status: Status = isStatus(body)
    ? { ...body, code: body.code || code }
    : {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code,
        reason: REASON_BY_CODE[code] ?? 'Unknown',
        message: typeof body === 'string' && body.trim() ? body.trim() : `the server answered ${code} ${REASON_BY_CODE[code] ?? ''}`.trim(),
      };
  return status.code === 410 ? new ExpiredError(status) : new StatusError(status);
}

// Writing a StatusError as the meta/v1 Status object kube-apiserver sends: JSON with Go's field
// order and trailing newline, the error's code, and its extra headers (Retry-After). Content
// negotiation of errors (protobuf, YAML) can replace this through createApp's `writeStatus`.

import { StatusError, type Status } from '../errors/status-error.js';
import type { KubeContext } from './context.js';
import { Headers } from '../machinery/http/headers.js';
import { Response } from '../machinery/http/response.js';

export type StatusWriter = (c: KubeContext, err: StatusError) => Response | Promise<Response>;

/** Status fields in the order Go's encoder writes them (details before code). */
export function statusJSON(err: StatusError): string {
  const s = err.toStatus();
  const ordered: Status = {
    kind: s.kind,
    apiVersion: s.apiVersion,
    metadata: s.metadata,
    status: s.status,
  } as Status;
  if (s.message) ordered.message = s.message;
  if (s.reason) ordered.reason = s.reason;
  if (s.details) ordered.details = s.details;
  ordered.code = s.code;
  return JSON.stringify(ordered) + '\n';
}

export function statusResponse(err: StatusError): Response {
  const headers = new Headers(err.headers);
  headers.set('Content-Type', 'application/json');
  return new Response(statusJSON(err), { status: err.code, headers });
}

export const writeStatusJSON: StatusWriter = (_c, err) => statusResponse(err);

/** Go's http.Error: plain text with a trailing newline, never sniffed. */
export function plainTextError(code: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, {
    status: code,
    headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
  });
}

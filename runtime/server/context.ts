// What the filters leave on the Hono context for everything after them. Handlers read the parsed
// request and the caller from here: `c.get('requestInfo')`, `c.get('user')`.

import type { Context } from 'hono';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '../auth/user.js';
import type { RequestDeadline } from './deadlines.js';
import type { RequestInfo } from '../machinery/request-info.js';
import type { Logger } from '../machinery/logger.js';
import type { NodeBindings } from './node-listener.js';

export interface KubeVariables {
  requestInfo: RequestInfo;
  /** Set by authentication; every request past it has one. */
  user: UserInfo;
  /**
   * The request's deadline. Its `signal` aborts when the deadline passes, or for long-running
   * requests (watch), when the client disconnects.
   */
  deadline: RequestDeadline;
  /**
   * Annotations the request gathers on its way for its audit event (authorization's decision and
   * reason, a deprecated API's facts), as kube's audit.AddAuditAnnotation; set through
   * addAuditAnnotation, absent until the first.
   */
  auditAnnotations?: Record<string, string>;
  /** The request's Audit-Id (the client's, or one made for it); set for every request the app serves, before the chain. */
  auditID?: string;
  /**
   * Set by the audit filter for audited requests: handlers pass it each decoded request object
   * (kube's LogRequestObject), and a patch as JSON through its `patch` (LogRequestPatch).
   */
  auditRequestObject?: ((obj: Record<string, unknown>) => void) & { patch?: (json: () => unknown) => void };
}

/** Adds one annotation to the request's audit event; the first value of a key is kept, as kube keeps it. */
export function addAuditAnnotation(c: Context<KubeEnv>, key: string, value: string): void {
  let annotations = c.get('auditAnnotations');
  if (!annotations) c.set('auditAnnotations', (annotations = {}));
  if (!(key in annotations)) annotations[key] = value;
}

/**
 * node's request and response: HTTP/1.1's, or an HTTP/2 stream's compatibility objects. Absent
 * when the app is driven in-process (app.request in tests).
 */
export interface KubeEnv {
  Bindings: Partial<NodeBindings>;
  Variables: KubeVariables;
}

export type KubeContext = Context<KubeEnv>;

/**
 * One step of the filter chain, which createApp installs as the app's one Hono handler: like
 * kube's filters (http.Handlers wrapping the next), each wraps the step after it and answers by
 * setting `c.res` or throwing a StatusError, or hands the request on with `inner(c)`. A step
 * returns a promise only when it has something to wait for, so a request pays no promise for a
 * step that decides at once.
 */
export type KubeHandler = (c: KubeContext) => void | Promise<void>;

/**
 * The request target as the client sent it (`/api/v1/...?query`). The Request's URL has been
 * through the WHATWG parser, which resolves `.` and `..` segments (and `%2e%2e`); kube-apiserver
 * never does, so routing and RequestInfo read this instead.
 */
export function requestTarget(c: KubeContext): string {
  return c.env?.incoming?.url || c.req.url;
}

/**
 * The TLS connection the request came on: one object for all its requests, so what is learnt
 * from the peer's certificate can be kept per connection. (An HTTP/2 request's own `socket` is a
 * new proxy for each stream; its session's is the same for them all.)
 */
export function connectionSocket(c: KubeContext): TLSSocket | undefined {
  const incoming = c.env?.incoming;
  if (!incoming) return undefined;
  const socket = 'stream' in incoming ? incoming.stream.session?.socket : incoming.socket;
  return socket && typeof (socket as TLSSocket).getPeerCertificate === 'function' ? (socket as TLSSocket) : undefined;
}

/** Logging seam; the library stays quiet below `error` unless given a logger. */
export type { Logger };

export const consoleLogger = (verbose = false): Logger => ({
  debug: verbose ? (m, ...a) => console.error(m, ...a) : () => {},
  info: (m, ...a) => console.error(m, ...a),
  error: (m, ...a) => console.error(m, ...a),
});

export const quietLogger: Logger = {
  debug: () => {},
  info: () => {},
  error: (m, ...a) => console.error(m, ...a),
};

// The Hono app: kube-apiserver's filter chain in its order, then the built-in endpoints, then
// the API handler the integrator plugs in (runtime/api). Filters, outermost first:
//   (httplog at -v=3) → panic recovery → request info → (shutdown drain count) → deadline →
//   authentication → audit (with a policy) → impersonation → max in-flight → authorization →
//   deprecation → handler
// Max in-flight sits after authentication and impersonation, where kube-apiserver has it, because
// system:masters is exempt from the limit and that needs the user the request runs as.

import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { Result, Router } from 'hono/router';
import { getPath } from 'hono/utils/url';
import { StatusError } from '../errors/status-error.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Authorizer } from '../auth/authorizer.js';
import { quietLogger, type KubeContext, type KubeEnv, type KubeHandler, type Logger } from './context.js';
import { failedAuthenticationAudit, withAudit, type AuditConfig } from './filters/audit.js';
import { withAuthentication } from './filters/authentication.js';
import { withAuthorization } from './filters/authorization.js';
import { withDeprecation, type DeprecatedRequestLabels, type DeprecatedResources } from './filters/deprecation.js';
import { withImpersonation } from './filters/impersonation.js';
import { DEFAULT_IN_FLIGHT_LIMITS, withMaxInFlight, type InFlightLimits, type InFlightWatermark } from './filters/max-in-flight.js';
import { toStatusError, withPanicRecovery } from './filters/panic-recovery.js';
import { withRequestDeadline } from './filters/request-deadline.js';
import { withRequestInfo } from './filters/request-info.js';
import { HTTPLOG_LEVEL, withHttpLog } from './filters/httplog.js';
import type { RequestDrain } from './filters/request-drain.js';
import { withMetrics } from './filters/metrics.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import { headAnswer } from './head-response.js';
import { presetHeaders } from './preset-headers.js';
import { healthEndpoints, logCheck, pingCheck, type HealthChecks } from './health.js';
import { plainTextError, writeStatusJSON, type StatusWriter } from './status-response.js';
import { serverVersion, versionResponse, type VersionInfo } from './version.js';
import { Response } from '../machinery/http/response.js';

/**
 * Serves every request the built-in endpoints do not: discovery, OpenAPI and the resources.
 * `c.get('requestInfo')` and `c.get('user')` are set; throw a StatusError to fail.
 */
export type ApiHandler = (c: KubeContext) => Response | Promise<Response>;

export interface AppOptions {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** The AuthorizeWithSelectors gate: authorizers see the field selector of lists and watches. */
  authorizeWithSelectors?: boolean;
  apiHandler?: ApiHandler;
  /** Checks per endpoint; ping and log are always there. */
  healthChecks?: Partial<HealthChecks>;
  /** --request-timeout; default 60s. */
  requestTimeoutMs?: number;
  inFlightLimits?: InFlightLimits;
  /** How errors are encoded; runtime/api may negotiate protobuf or YAML Status bodies. */
  writeStatus?: StatusWriter;
  logger?: Logger;
  version?: VersionInfo;
  /** Served deprecated endpoints (from the lifecycle table); their requests get kube's warning. */
  deprecatedResources?: DeprecatedResources;
  /** Called for each request to one of them: sets the apiserver_requested_deprecated_apis gauge. */
  onDeprecatedRequest?: (labels: DeprecatedRequestLabels) => void;
  /** Counts the requests graceful shutdown waits for. */
  drain?: RequestDrain;
  /** Records request metrics and serves /metrics; without it neither happens. */
  metrics?: ServerMetrics;
  /** Whether a resource is served (from the API); requests to others get no metric series. */
  serves?: (group: string, version: string, resource: string) => boolean;
  /** Where max in-flight reports its peaks for apiserver_current_inflight_requests. */
  inFlightWatermark?: InFlightWatermark;
  /** --audit-policy-file and its backend; without them no audit work is done at all. */
  audit?: AuditConfig;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** What kube-apiserver answers for a path nothing serves. */
export const notFoundHandler: ApiHandler = (c) => {
  if (c.get('requestInfo').isResourceRequest) {
    throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
  }
  return plainTextError(404, '404 page not found');
};

const DEFAULT_CACHE_CONTROL = 'no-cache, private';

/** Every response carries an Audit-Id and, unless the handler chose otherwise, no-cache. */
function setCommonHeaders(c: KubeContext, auditId: string): void {
  let headers = c.res.headers;
  try {
    headers.set('Audit-Id', auditId);
  } catch {
    // Headers of a Response built elsewhere may be immutable; copy it once.
    c.res = new Response(c.res.body, c.res);
    headers = c.res.headers;
    headers.set('Audit-Id', auditId);
  }
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', DEFAULT_CACHE_CONTROL);
  if (headers.has('Connection')) closeHttp2Session(c, headers);
}

/**
 * HTTP/2 forbids a Connection header. Go's server drops it and reads `close` as it does on
 * HTTP/1.1: the connection ends, gracefully (GOAWAY; the open streams, this one included, finish).
 */
function closeHttp2Session(c: KubeContext, headers: Headers): void {
  const incoming = c.env?.incoming;
  if (!incoming || !('stream' in incoming)) return;
  if (headers.get('Connection')?.toLowerCase() === 'close') incoming.stream.session?.close();
  headers.delete('Connection');
}

/** An HTTP/2 stream's answer, without the Connection header HTTP/2 forbids. */
function http2Answer(c: KubeContext): Response {
  if (c.res.headers.has('Connection')) closeHttp2Session(c, c.res.headers);
  return c.res;
}

/**
 * Routes on the path as sent, so `/api/../readyz` is no more /readyz than it is in kube-apiserver's
 * muxes (see requestTarget). In-process requests have only the parsed URL.
 */
function routingPath(request: Request, options?: { env?: KubeEnv['Bindings'] }): string {
  const target = options?.env?.incoming?.url;
  if (!target || target[0] !== '/') return getPath(request);
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  if (!path.includes('%')) return path;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/**
 * The app has one handler for every method and path (the chain below), so finding it needs no
 * matching: Hono's default router ran a regular expression over every request's path for it.
 */
class OneHandlerRouter<T> implements Router<T> {
  readonly name = 'OneHandlerRouter';
  private result: Result<T> = [[]];

  add(_method: string, _path: string, handler: T): void {
    if (this.result[0].length > 0) throw new Error('the app has one handler');
    this.result = [[[handler, {}]]];
  }

  match(): Result<T> {
    return this.result;
  }
}

export function createApp(options: AppOptions): Hono<KubeEnv> {
  const logger = options.logger ?? quietLogger;
  const writeStatus = options.writeStatus ?? writeStatusJSON;
  const apiHandler = options.apiHandler ?? notFoundHandler;
  const app = new Hono<KubeEnv>({ getPath: routingPath, router: new OneHandlerRouter() });
  const audited = options.audit !== undefined;

  app.onError((err, c) => writeStatus(c, toStatusError(err, c, logger)));

  // The endpoints the server serves itself (GET and HEAD), by path; everything else is the API's.
  const extra = options.healthChecks ?? {};
  const endpoints = new Map<string, ApiHandler>(
    healthEndpoints({
      livez: [pingCheck, logCheck, ...(extra.livez ?? [])],
      readyz: [pingCheck, logCheck, ...(extra.readyz ?? [])],
      healthz: [pingCheck, logCheck, ...(extra.healthz ?? [])],
    }),
  );
  const version = options.version ?? serverVersion;
  endpoints.set('/version', () => versionResponse(version));
  endpoints.set('/version/', () => versionResponse(version));
  const metrics = options.metrics;
  if (metrics) {
    endpoints.set('/metrics', async () => {
      const { body, contentType } = await metrics.render();
      return new Response(body, { status: 200, headers: { 'content-type': contentType } });
    });
  }
  const route = (c: KubeContext): Response | Promise<Response> => {
    const method = c.req.method;
    const endpoint = method === 'GET' || method === 'HEAD' ? endpoints.get(c.req.path) : undefined;
    return (endpoint ?? apiHandler)(c);
  };
  // A failed endpoint answers as app.onError would have it: the error kept on the context for
  // audit (a bug is a Panic there), its Status as the response. Anything but an Error is thrown
  // on, for panic recovery.
  const failed = (c: KubeContext, err: unknown): void | Promise<void> => {
    if (!(err instanceof Error)) throw err;
    c.error = err;
    const res = writeStatus(c, toStatusError(err, c, logger));
    if (res instanceof Promise) return res.then((r) => answer(c, r));
    answer(c, res);
  };
  // An answer after the request's deadline is dropped: the 504 stands (kube's timeout writer).
  const answer = (c: KubeContext, res: Response): void => {
    if (!c.get('deadline')?.expired) c.res = res;
  };
  const endpoint: KubeHandler = (c) => {
    let res: Response | Promise<Response>;
    try {
      res = route(c);
    } catch (err) {
      return failed(c, err);
    }
    if (res instanceof Promise) return res.then((r) => answer(c, r), (err: unknown) => failed(c, err));
    answer(c, res);
  };

  // The chain, built from the endpoints outwards as kube's DefaultBuildHandlerChain builds it.
  let chain = endpoint;
  // The map may gain entries while serving (a CRD version marked deprecated); the filter skips at once while it is empty.
  if (options.deprecatedResources) chain = withDeprecation(chain, options.deprecatedResources, options.onDeprecatedRequest);
  // Where kube instruments its routes: what authorization let through to a handler.
  if (metrics) chain = withMetrics(chain, metrics, options.serves);
  chain = withAuthorization(chain, options.authorizer, { withSelectors: options.authorizeWithSelectors, annotate: audited });
  chain = withMaxInFlight(chain, options.inFlightLimits ?? DEFAULT_IN_FLIGHT_LIMITS, options.inFlightWatermark);
  chain = withImpersonation(chain, options.authorizer, logger);
  if (options.audit) chain = withAudit(chain, options.audit, writeStatus);
  chain = withAuthentication(chain, options.authenticator, logger, options.audit && failedAuthenticationAudit(options.audit));
  chain = withRequestDeadline(chain, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, writeStatus);
  if (options.drain) chain = options.drain.handler(chain);
  chain = withRequestInfo(chain);
  let serve = withPanicRecovery(chain, writeStatus, logger);
  if (logger.enabled?.(HTTPLOG_LEVEL)) serve = withHttpLog(serve, logger);
  // A HEAD is served as the GET, then given the answer Go gives it (head-response.ts).
  const serveHead = async (c: KubeContext): Promise<void> => {
    await serve(c);
    await headAnswer(c);
  };
  const serveRequest = (c: KubeContext) => (c.req.method === 'HEAD' ? serveHead(c) : serve(c));

  // The chain and the endpoints are the app's one handler: Hono calls a lone handler directly,
  // where middleware and routes cost a composed promise and closure per layer. A request the chain
  // answers at once (a GET the watch cache serves) is answered with its Response, not a promise;
  // the HTTPS server hands HTTP/1.1 ones to node-listener.ts together at the end of the event
  // loop's turn (answer-batch.ts), and HTTP/2 ones at once.
  app.all('*', (c): Response | Promise<Response> => {
    const auditId = c.req.header('audit-id') || randomUUID();
    c.set('auditID', auditId);
    const outgoing = c.env?.outgoing;
    if (outgoing && !outgoing.headersSent) {
      // Kept beside node's response and merged into the head node-listener.ts writes, where the
      // Response's own headers win on a clash (a handler's own Cache-Control); the Response's
      // headers stay a plain object, written as they are.
      presetHeaders(outgoing, { 'Audit-Id': auditId, 'Cache-Control': DEFAULT_CACHE_CONTROL });
      const served = serveRequest(c);
      const http2 = c.env.incoming !== undefined && 'stream' in c.env.incoming;
      if (served instanceof Promise) return served.then(() => (http2 ? http2Answer(c) : c.res));
      return http2 ? http2Answer(c) : c.res;
    }
    // In-process (app.request) there is no node response to carry them.
    return Promise.resolve(serveRequest(c)).then(() => {
      setCommonHeaders(c, auditId);
      return c.res;
    });
  });
  return app;
}

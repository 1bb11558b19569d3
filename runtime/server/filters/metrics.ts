// Request metrics, as kube-apiserver's endpoint instrumentation records them: one count per
// request by verb (kube's reported form: POST, PUT, LIST, WATCH, APPLY, ...), dry run, group,
// version, resource, subresource, scope, component and code; its latency; the size of read
// responses; and long-running requests while they run. Non-resource requests are reported with
// their path as the subresource, as kube's mux instrumentation does; paths nothing serves (404)
// are left out, so clients cannot grow the series without bound.

import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { isLongRunning, type RequestInfo } from '../../machinery/request-info.js';
import type { KubeContext, KubeHandler } from '../context.js';
import { whenResponseDone } from '../response-done.js';
import type { RequestSeries, ServerMetrics } from '../metrics/server-metrics.js';

/** The verb names kube's route instrumentation reports for RequestInfo's verbs. */
const REPORTED_VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
  proxy: 'PROXY',
  connect: 'CONNECT',
};

const APPLY_CONTENT_TYPE = /^application\/apply-patch\+(?:yaml|cbor)/;

/** kube's CanonicalVerb and CleanVerb: the verb its metrics and its httplog line report. */
export function reportedVerb(c: KubeContext, info: RequestInfo): string {
  if (!info.isResourceRequest) return info.verb.toUpperCase();
  const verb = REPORTED_VERBS[info.verb] ?? info.verb.toUpperCase();
  if (verb === 'PATCH' && APPLY_CONTENT_TYPE.test(c.req.header('content-type') ?? '')) return 'APPLY';
  return verb;
}

/** kube's CleanScope: a named object (or a create) is `resource`, then `namespace`, `cluster`. */
function scopeOf(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/** kube's cleanDryRun: the distinct values sorted and joined; anything but `All` is `invalid`. */
function dryRunOf(target: string): string {
  if (!target.includes('dryRun=')) return '';
  const values = new URL(target, 'https://localhost').searchParams.getAll('dryRun');
  if (values.length === 0) return '';
  return values.every((v) => v === 'All') ? 'All' : 'invalid';
}

function seriesFor(c: KubeContext, metrics: ServerMetrics, info: RequestInfo): RequestSeries {
  const verb = reportedVerb(c, info);
  // The target as node read it, as routing and request info read it.
  const dryRun = dryRunOf(c.env?.incoming?.url ?? c.req.url);
  if (info.isResourceRequest) {
    return metrics.requestSeries(verb, dryRun, info.apiGroup, info.apiVersion, info.resource, info.subresource, scopeOf(info), 'apiserver');
  }
  return metrics.requestSeries(verb, dryRun, '', '', '', info.path, '', '');
}

function contentLength(value: number | string | string[] | undefined | null): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = Number(Array.isArray(value) ? value[0] : value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The length of the body written. On HTTP/1.1, OutgoingMessage's `_contentLength`: node keeps a
 * Content-Length header's value there when it writes the headers, and node-listener.ts sets it
 * instead of a header for plain bodies (node then writes the header itself); read first, as it
 * is a field where the header is a lookup. Otherwise (HTTP/2) the Content-Length header.
 */
function writtenLength(outgoing: ServerResponse | Http2ServerResponse): number | undefined {
  return contentLength((outgoing as { _contentLength?: number | null })._contentLength) ?? contentLength(outgoing.getHeader('content-length'));
}

function writable(outgoing: ServerResponse | Http2ServerResponse | undefined): outgoing is ServerResponse | Http2ServerResponse {
  return outgoing !== undefined && !outgoing.writableFinished && !('stream' in outgoing ? outgoing.stream.destroyed : outgoing.destroyed);
}

/**
 * Requests nothing serves are not recorded: kube instruments only the routes it installed, and
 * series per made-up path or resource name would let any caller grow /metrics without bound.
 */
function unrecorded(info: RequestInfo, code: number, serves: ((group: string, version: string, resource: string) => boolean) | undefined): boolean {
  if (code !== 404) return false;
  if (!info.isResourceRequest) return true;
  return serves !== undefined && !serves(info.apiGroup, info.apiVersion, info.resource);
}

/** What recording a request needs once its response is done. */
interface Pending {
  c: KubeContext;
  info: RequestInfo;
  outgoing: ServerResponse | Http2ServerResponse;
  start: number;
  ended: (() => void) | undefined;
}

export function withMetrics(inner: KubeHandler, metrics: ServerMetrics, serves?: (group: string, version: string, resource: string) => boolean): KubeHandler {
  // Made once: recorded when the response is written (a watch: when it ends), with what was sent.
  const record = (p: Pending) => {
    p.ended?.();
    const code = p.outgoing.statusCode;
    if (unrecorded(p.info, code, serves)) return;
    const series = seriesFor(p.c, metrics, p.info);
    metrics.requestDone(series, code, (performance.now() - p.start) / 1000, series.size ? writtenLength(p.outgoing) : undefined);
  };
  // A request served over the network passes through with no promise of its own.
  return (c) => {
    const start = performance.now();
    const info = c.get('requestInfo');
    const longRunning = isLongRunning(info);
    const outgoing = c.env?.outgoing;
    if (writable(outgoing)) {
      const ended = longRunning ? metrics.longRunningStarted(seriesFor(c, metrics, info)) : undefined;
      whenResponseDone(outgoing, record, { c, info, outgoing, start, ended });
      return inner(c);
    }
    return recordInProcess(c, () => inner(c), metrics, serves, info, start, longRunning);
  };
}

/** In-process (app.request) there is no node response: the handler's run and its Response. */
async function recordInProcess(
  c: KubeContext,
  handle: () => void | Promise<void>,
  metrics: ServerMetrics,
  serves: ((group: string, version: string, resource: string) => boolean) | undefined,
  info: RequestInfo,
  start: number,
  longRunning: boolean,
): Promise<void> {
  const ended = longRunning ? metrics.longRunningStarted(seriesFor(c, metrics, info)) : undefined;
  try {
    await handle();
  } finally {
    ended?.();
  }
  const code = c.res.status;
  if (unrecorded(info, code, serves)) return;
  const series = seriesFor(c, metrics, info);
  metrics.requestDone(series, code, (performance.now() - start) / 1000, series.size ? contentLength(c.res.headers.get('content-length')) : undefined);
}

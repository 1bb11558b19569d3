// GET ...?watch=1: a chunked stream, one encoded event per frame. Without timeoutSeconds the
// stream ends after a random time between --min-request-timeout and twice that (30 to 60 minutes
// by default), as kube-apiserver spreads reconnects. The watcher is released when the client
// disconnects (request signal) or the stream is cancelled. Invalid options are refused before
// the stream starts (422 for option combinations, 400 for selectors); failures after that arrive
// as ERROR events, as upstream sends them. How the events reach the connection: watch-body.ts;
// a client that stops reading has its watch ended there (UNRESPONSIVE_WATCH_EVENTS), logged here.

import { badRequest } from '../../errors/status-error.js';
import { logAt } from '../../machinery/logger.js';
import { parseFieldSelector } from '../../machinery/selectors/field-selector.js';
import { collectionPrefix } from '../../registry/keys.js';
import { watchObjects } from '../../registry/watch.js';
import type { HandlerContext } from './context.js';
import { requestHints } from './context.js';
import { listOptionsFrom, queryBool } from './list.js';
import { watchBody } from './watch-body.js';
import { Response } from '../../machinery/http/response.js';

/**
 * A watch of one named object is a watch of the collection selected by its name; a field selector
 * sent with it must name the same object (upstream's ListResource).
 */
function namedFieldSelector(fieldSelector: string | undefined, name: string): string {
  if (!fieldSelector) return `metadata.name=${name}`;
  let selected: string | undefined;
  try {
    const parsed = parseFieldSelector(fieldSelector, new Set(['metadata.name']));
    selected = parsed.requirements.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value;
  } catch {
    selected = undefined;
  }
  if (selected !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  return fieldSelector;
}

export async function watchResource(ctx: HandlerContext): Promise<Response> {
  const encoder = ctx.negotiator.watchEncoder(ctx.request.headers.get('accept') ?? undefined, ctx.target, requestHints(ctx.request, ctx.query));
  const opts = listOptionsFrom(ctx.query);
  const fieldSelector = ctx.info.name ? namedFieldSelector(opts.fieldSelector, ctx.info.name) : opts.fieldSelector;
  const timeoutText = ctx.query.get('timeoutSeconds');
  const minTimeout = ctx.config.minRequestTimeoutSeconds;
  const timeoutSeconds =
    timeoutText && /^\d+$/.test(timeoutText) && Number(timeoutText) > 0 ? Number(timeoutText) : minTimeout * (1 + Math.random());
  const stream = await watchObjects(ctx.store, ctx.info.namespace || undefined, {
    labelSelector: opts.labelSelector,
    fieldSelector,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
    sendInitialEvents: opts.sendInitialEvents,
    allowWatchBookmarks: queryBool(ctx.query, 'allowWatchBookmarks') === true,
    timeoutSeconds,
    signal: ctx.request.signal,
    watchListEnabled: ctx.config.watchListEnabled,
  });
  // Counted per served kind, as kube's watch server counts (group, version, kind of the endpoint).
  const metrics = ctx.config.metrics;
  const gvk = metrics ? { group: ctx.target.group, version: ctx.target.version, kind: ctx.target.kind } : undefined;
  if (gvk) metrics!.watchersChanged(gvk, 1);
  const body = watchBody({
    stream,
    encode: (event) => encoder.encode(event),
    sink: ctx.response,
    sent: gvk && metrics!.watchEventCounter(gvk),
    ended: () => {
      if (gvk) metrics!.watchersChanged(gvk, -1);
      const dropped = stream.unresponsive;
      if (dropped === 0) return;
      // As kube's cacher counts and logs it (V(1)), naming the watch by key and selectors; no object content.
      const def = ctx.store.definition;
      metrics?.watcherTerminated(def.group, def.plural);
      if (ctx.config.logger) {
        logAt(ctx.config.logger, 1, `Forcing ${def.group ? `${def.plural}.${def.group}` : def.plural} watcher close due to unresponsiveness`, {
          key: collectionPrefix(def, ctx.info.namespace || undefined),
          labels: opts.labelSelector ?? '',
          fields: fieldSelector ?? '',
          dropped,
        });
      }
    },
  });
  // No length, so HTTP/1.1 chunks it; no transfer-encoding header, which HTTP/2 forbids.
  return new Response(body, { status: 200, headers: { 'content-type': encoder.contentType } });
}

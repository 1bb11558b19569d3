// GET ...?watch=1: a chunked stream, one encoded event per frame. Without timeoutSeconds the
// stream ends after a random time between 30 and 60 minutes, as kube-apiserver's
// --min-request-timeout spreads reconnects. The storage watcher is released when the client
// disconnects (request signal) or the stream is cancelled.

import { watchObjects } from '../../registry/watch.js';
import type { HandlerContext } from './context.js';
import { bodyInit } from './context.js';
import { listOptionsFrom } from './list.js';

const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

export async function watchResource(ctx: HandlerContext): Promise<Response> {
  const encoder = ctx.negotiator.watchEncoder(ctx.request.headers.get('accept') ?? undefined, ctx.target);
  const opts = listOptionsFrom(ctx.query);
  // A watch of one named object is a watch of the collection selected by its name.
  let fieldSelector = opts.fieldSelector;
  if (ctx.info.name) fieldSelector = [fieldSelector, `metadata.name=${ctx.info.name}`].filter(Boolean).join(',');
  const timeoutText = ctx.query.get('timeoutSeconds');
  const timeoutSeconds =
    timeoutText && /^\d+$/.test(timeoutText) && Number(timeoutText) > 0
      ? Number(timeoutText)
      : Math.floor(MIN_REQUEST_TIMEOUT_SECONDS * (1 + Math.random()));
  const stream = await watchObjects(ctx.store, ctx.info.namespace || undefined, {
    labelSelector: opts.labelSelector,
    fieldSelector,
    resourceVersion: opts.resourceVersion,
    timeoutSeconds,
    signal: ctx.request.signal,
  });
  const text = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await stream.next();
      if (next.done) {
        controller.close();
        return;
      }
      const frame = encoder.encode(next.value);
      controller.enqueue(typeof frame === 'string' ? text.encode(frame) : bodyInit(frame) as Uint8Array);
    },
    cancel() {
      stream.stop();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': encoder.contentType, 'transfer-encoding': 'chunked' } });
}

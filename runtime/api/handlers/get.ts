// GET of one object (or of a subresource such as status, which reads the whole object), with the
// resourceVersion semantics of get: unset is Most Recent, "0" Any, another Not older than.

import { getObject } from '../../registry/get.js';
import type { HandlerContext } from './context.js';
import { respond } from './context.js';

// Not an async function: an object the watch cache holds is answered with a Response, no promise
// made; otherwise the read's own promise carries the answer.
export function getResource(ctx: HandlerContext): Response | Promise<Response> {
  const obj = getObject(ctx.store, ctx.info.namespace, ctx.info.name, {
    resourceVersion: ctx.query.get('resourceVersion') ?? undefined,
    // Answered as it is: a cached version's kept encoding may serve it.
    shared: true,
  });
  return obj instanceof Promise ? obj.then((o) => respond(ctx, 200, o)) : respond(ctx, 200, obj);
}

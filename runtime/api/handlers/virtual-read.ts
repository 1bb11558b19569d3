// GET of a virtual view (ComponentStatus): the object or list is computed on each request, as
// kube-apiserver's non-store REST computes it. Only the selectors of a list apply; limit, continue
// and resourceVersion mean nothing to something never stored, and kube ignores them too.

import type { VirtualView } from '../../registry/virtual/index.js';
import type { RequestContext } from './context.js';
import { respond } from './context.js';

export async function readVirtual(ctx: RequestContext, view: VirtualView): Promise<Response> {
  if (ctx.info.verb === 'get') return respond(ctx, 200, await view.get(ctx.info.name));
  const list = await view.list({
    labelSelector: ctx.query.get('labelSelector') ?? undefined,
    fieldSelector: ctx.query.get('fieldSelector') ?? undefined,
  });
  return respond(ctx, 200, list);
}

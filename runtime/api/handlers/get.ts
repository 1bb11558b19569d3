// GET of one object (or of a subresource such as status, which reads the whole object).

import type { HandlerContext } from './context.js';
import { respond } from './context.js';

export async function getResource(ctx: HandlerContext): Promise<Response> {
  const obj = await ctx.store.get(ctx.info.namespace, ctx.info.name);
  return respond(ctx, 200, obj);
}

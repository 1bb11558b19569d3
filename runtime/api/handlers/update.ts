// PUT of an object or of a writable subresource (status, finalize): 200 with the result.

import type { HandlerContext } from './context.js';
import { fieldValidation, readObject, respond, writeOptions } from './context.js';

export async function updateResource(ctx: HandlerContext): Promise<Response> {
  const options = writeOptions(ctx, 'UpdateOptions');
  const obj = await readObject(ctx, fieldValidation(ctx, 'UpdateOptions'));
  const updated = await ctx.store.update(ctx.info.namespace || undefined, ctx.info.name, obj, {
    ...options,
    subresource: ctx.info.subresource,
  });
  return respond(ctx, 200, updated);
}

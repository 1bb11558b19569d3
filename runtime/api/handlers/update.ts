// PUT of an object or of a writable subresource (status, finalize): 200 with the result, or 201
// when the kind creates a missing object on update (Event).

import type { HandlerContext } from './context.js';
import { fieldValidation, readObject, respond, writeOptions } from './context.js';

export async function updateResource(ctx: HandlerContext): Promise<Response> {
  const options = writeOptions(ctx, 'UpdateOptions');
  const obj = await readObject(ctx, fieldValidation(ctx, 'UpdateOptions'));
  const { object, created } = await ctx.store.updateOrCreate(ctx.info.namespace || undefined, ctx.info.name, obj, {
    ...options,
    subresource: ctx.info.subresource,
  });
  return respond(ctx, created ? 201 : 200, object);
}

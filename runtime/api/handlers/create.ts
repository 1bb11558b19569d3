// POST to a collection: 201 Created with the stored object.

import type { HandlerContext } from './context.js';
import { fieldValidation, readObject, respond, writeOptions } from './context.js';

export async function createResource(ctx: HandlerContext): Promise<Response> {
  const options = writeOptions(ctx, 'CreateOptions');
  const obj = await readObject(ctx, fieldValidation(ctx, 'CreateOptions'));
  const created = await ctx.store.create(ctx.info.namespace || undefined, obj, options);
  return respond(ctx, 201, created);
}

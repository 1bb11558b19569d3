// DELETE of one object (Status on completion, the object while finalizers hold it) and of a
// collection (the deleted <Kind>List). DeleteOptions come from the body, or the query without one.

import { deleteCollection } from '../../registry/list.js';
import type { HandlerContext } from './context.js';
import { respond } from './context.js';
import { deleteOptionsFrom } from './delete-options-body.js';
import { listOptionsFrom } from './list.js';

export async function deleteResource(ctx: HandlerContext): Promise<Response> {
  const options = { ...(await deleteOptionsFrom(ctx)), user: ctx.user };
  const result = await ctx.store.delete(ctx.info.namespace || undefined, ctx.info.name, options);
  // A few kinds (CSIDriver) answer with the deleted object itself, as kube-apiserver's ReturnDeletedObject does.
  const returnObject = !result.deleted || ctx.store.definition.returnDeletedObject === true;
  return respond(ctx, 200, returnObject ? result.object : ctx.store.successStatus(result.object));
}

export async function deleteCollectionResource(ctx: HandlerContext): Promise<Response> {
  // The list options are read and checked before the body, as kube-apiserver's handler does.
  const listOptions = listOptionsFrom(ctx.query);
  const options = { ...(await deleteOptionsFrom(ctx)), user: ctx.user };
  const list = await deleteCollection(ctx.store, ctx.info.namespace || undefined, listOptions, options);
  return respond(ctx, 200, list);
}

// DELETE of one object (Status on completion, the object while finalizers hold it) and of a
// collection (the deleted <Kind>List). DeleteOptions come from the body and the query.

import { StatusError, badRequest } from '../../errors/status-error.js';
import type { DeleteOptions } from '../../registry/delete-options.js';
import { dryRunCauses, invalidOptions } from '../../registry/delete-options.js';
import { deleteCollection } from '../../registry/list.js';
import { isPlainObject } from '../../registry/object.js';
import { jsonNestingBracket } from '../../registry/nesting.js';
import { jsonDecodeError, typeMetaDecodeError } from '../go-decode/index.js';
import { goJsonError, tooDeepJson } from '../serializers.js';
import type { HandlerContext } from './context.js';
import { readBody, respond } from './context.js';
import { listOptionsFrom } from './list.js';

const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';

async function deleteOptionsFrom(ctx: HandlerContext): Promise<DeleteOptions> {
  const bytes = await readBody(ctx.request);
  let body: Record<string, unknown> = {};
  if (bytes.length > 0) {
    const unreadable = (why: string) => badRequest(`the object provided is unrecognized (must be of type DeleteOptions): couldn't get version/kind; json parse error: ${why}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      throw unreadable(goJsonError(bytes));
    }
    const bracket = jsonNestingBracket(bytes);
    if (bracket) throw unreadable(tooDeepJson(bracket));
    if (!isPlainObject(parsed)) throw badRequest('the object provided is unrecognized (must be of type DeleteOptions)');
    // The delete handler passes its decoder's error on as is: a plain error, so a 500 with no reason.
    const typeMeta = typeMetaDecodeError(parsed);
    if (typeMeta) throw new StatusError(500, '', `couldn't get version/kind; json parse error: ${typeMeta}`);
    const typeError = jsonDecodeError(DELETE_OPTIONS, parsed);
    if (typeError) throw new StatusError(500, '', typeError);
    body = parsed;
  }
  const q = ctx.query;
  const dryRun = q.getAll('dryRun').length ? q.getAll('dryRun') : Array.isArray(body.dryRun) ? (body.dryRun as string[]) : [];
  const causes = dryRunCauses(dryRun);
  if (causes.length) throw invalidOptions('DeleteOptions', causes);
  const preconditions = isPlainObject(body.preconditions) ? (body.preconditions as DeleteOptions['preconditions']) : undefined;
  const grace = q.get('gracePeriodSeconds') ?? body.gracePeriodSeconds;
  return {
    dryRun: dryRun.length > 0,
    preconditions,
    propagationPolicy: q.get('propagationPolicy') ?? (typeof body.propagationPolicy === 'string' ? body.propagationPolicy : undefined),
    orphanDependents: typeof body.orphanDependents === 'boolean' ? body.orphanDependents : undefined,
    gracePeriodSeconds: grace === undefined || grace === null ? undefined : Number(grace),
  };
}

export async function deleteResource(ctx: HandlerContext): Promise<Response> {
  const options = await deleteOptionsFrom(ctx);
  const result = await ctx.store.delete(ctx.info.namespace || undefined, ctx.info.name, options);
  // A few kinds (CSIDriver) answer with the deleted object itself, as kube-apiserver's ReturnDeletedObject does.
  const returnObject = !result.deleted || ctx.store.definition.returnDeletedObject === true;
  return respond(ctx, 200, returnObject ? result.object : ctx.store.successStatus(result.object));
}

export async function deleteCollectionResource(ctx: HandlerContext): Promise<Response> {
  const options = await deleteOptionsFrom(ctx);
  const list = await deleteCollection(ctx.store, ctx.info.namespace || undefined, listOptionsFrom(ctx.query), options);
  return respond(ctx, 200, list);
}

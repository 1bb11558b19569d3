// GET of a collection: list options from the query, the <Kind>List in the reply.

import { badRequest } from '../../errors/status-error.js';
import { listObjects, type ListOptions } from '../../registry/list.js';
import type { HandlerContext } from './context.js';
import { respond } from './context.js';

/**
 * A boolean query parameter as kube-apiserver's parameter codec reads it: absent is unset, "0"
 * and "false" (any case) are false, anything else is true.
 */
export function queryBool(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/** limit, continue, selectors, resourceVersion and sendInitialEvents of list, watch and deletecollection. */
export function listOptionsFrom(query: URLSearchParams): ListOptions {
  const limitText = query.get('limit');
  let limit: number | undefined;
  if (limitText !== null && limitText !== '') {
    if (!/^-?\d+$/.test(limitText)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(limitText)}: invalid syntax`);
    limit = Number(limitText);
  }
  const get = (k: string) => query.get(k) ?? undefined;
  return {
    labelSelector: get('labelSelector'),
    fieldSelector: get('fieldSelector'),
    limit,
    continue: get('continue'),
    resourceVersion: get('resourceVersion'),
    resourceVersionMatch: get('resourceVersionMatch'),
    sendInitialEvents: queryBool(query, 'sendInitialEvents'),
  };
}

export async function listResource(ctx: HandlerContext): Promise<Response> {
  const list = await listObjects(ctx.store, ctx.info.namespace || undefined, listOptionsFrom(ctx.query));
  return respond(ctx, 200, list);
}

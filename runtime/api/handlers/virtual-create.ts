// POST to a virtual kind (SelfSubjectReview): the body is decoded and checked like any create
// (media type, apiVersion/kind, fieldValidation, dryRun), then the kind's virtual handler answers
// with 201 Created and an object computed for the caller. Nothing is stored.

import type { UserInfo } from '../../auth/user.js';
import type { VirtualResource } from '../../registry/virtual/index.js';
import type { RequestContext } from './context.js';
import { fieldValidation, readObject, respond, writeOptions } from './context.js';

export async function createVirtual(ctx: RequestContext, virtual: VirtualResource, user: UserInfo): Promise<Response> {
  const options = writeOptions(ctx, 'CreateOptions');
  const obj = await readObject(ctx, fieldValidation(ctx, 'CreateOptions'));
  const answer = virtual.create(obj, { user, dryRun: options.dryRun === true, now: new Date() });
  return respond(ctx, 201, answer);
}

// POST to a virtual kind (SelfSubjectReview): the body is decoded and checked like any create
// (media type, apiVersion/kind, fieldValidation, dryRun, the types of its fields), then the
// kind's virtual handler answers with 201 Created and an object computed for the caller. Nothing
// is stored, and ObjectMeta rules do not apply (kube-apiserver's review REST keeps no metadata).

import type { UserInfo } from '../../auth/user.js';
import { invalid } from '../../errors/status-error.js';
import { isPlainObject, type KubeObject } from '../../registry/object.js';
import type { VirtualResource } from '../../registry/virtual/index.js';
import type { RequestContext } from './context.js';
import { fieldValidation, readObject, respond, writeOptions } from './context.js';

export async function createVirtual(ctx: RequestContext, virtual: VirtualResource, user: UserInfo): Promise<Response> {
  const options = writeOptions(ctx, 'CreateOptions');
  const obj = await readObject(ctx, fieldValidation(ctx, 'CreateOptions'));
  const def = virtual.definition;
  const causes = def.validator.validateFields(obj);
  // A wrongly typed field is refused as this server refuses it for every kind (kube-apiserver's decoder answers 400).
  if (causes.length) throw invalid(def.group, def.kind, postedName(obj), causes);
  const answer = virtual.create(obj, { user, dryRun: options.dryRun === true, now: new Date() });
  return respond(ctx, 201, answer);
}

function postedName(obj: KubeObject): string {
  const name = isPlainObject(obj.metadata) ? obj.metadata.name : undefined;
  return typeof name === 'string' ? name : '';
}

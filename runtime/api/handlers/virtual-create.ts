// POST to a virtual kind (SelfSubjectReview, the access and token reviews): the body is decoded and checked like any create
// (media type, apiVersion/kind, fieldValidation, dryRun, the types of its fields), then the
// kind's virtual handler answers with 201 Created and an object computed for the caller. Nothing
// is stored, and ObjectMeta rules do not apply (kube-apiserver's review REST keeps no metadata).

import type { UserInfo } from '../../auth/user.js';
import { badRequest, invalid } from '../../errors/status-error.js';
import { recordUpdate } from '../../registry/apply/field-managers.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import type { ServerAccess, VirtualCreate } from '../../registry/virtual/index.js';
import type { RequestContext } from './context.js';
import { fieldValidation, readObject, respond, writeOptions } from './context.js';

export async function createVirtual(ctx: RequestContext, create: VirtualCreate, user: UserInfo, access: ServerAccess | undefined): Promise<Response> {
  const options = writeOptions(ctx, 'CreateOptions');
  const obj = await readObject(ctx, fieldValidation(ctx, 'CreateOptions'));
  const def = ctx.store.definition;
  const causes = def.validator.validateFields(obj);
  // A wrongly typed field is refused as this server refuses it for every kind (kube-apiserver's decoder answers 400).
  if (causes.length) throw invalid(def.group, def.kind, postedName(obj), causes);
  const namespace = ctx.info.namespace;
  if (def.namespaced) ensureNamespace(obj, namespace);
  // As for every create, the writer is recorded in managedFields before the kind sees the object;
  // the reviews that answer with the posted object (the access and token reviews) keep it.
  const posted = recordUpdate(def, undefined, obj, { fieldManager: options.fieldManager, userAgent: options.userAgent });
  const answer = await create(posted, {
    user,
    namespace,
    dryRun: options.dryRun === true,
    now: new Date(),
    authorizeWithSelectors: ctx.config.authorizeWithSelectors,
    ...(access ? { access } : {}),
  });
  return respond(ctx, 201, answer);
}

/** The create handler's EnsureObjectNamespaceMatchesRequestNamespace: fill in, or refuse another. */
function ensureNamespace(obj: KubeObject, namespace: string): void {
  const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
  const posted = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (posted === '') obj.metadata = { ...meta, namespace };
  else if (posted !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

function postedName(obj: KubeObject): string {
  const name = isPlainObject(obj.metadata) ? obj.metadata.name : undefined;
  return typeof name === 'string' ? name : '';
}

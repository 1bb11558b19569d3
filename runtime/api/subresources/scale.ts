// GET, PUT and PATCH of a custom resource's `scale` subresource, as apiextensions-apiserver's
// ScaleREST serves it: an autoscaling/v1 Scale computed from the custom resource by the CRD's
// specReplicasPath, statusReplicasPath and labelSelectorPath; a write sets only the spec replicas
// path of the custom resource, through the kind's own strategy (its validation, generation and
// status rules), conditional on the Scale's resourceVersion when it names one (409 when stale).
// JSON patch and merge patch apply to the Scale. A strategic merge patch is refused (415), as
// kube's crdHandler offers a custom resource's subresources only the patch types of custom
// resources. Server-side apply of a Scale, which kube serves, is not served here (415).

import { badRequest, internalError, StatusError } from '../../errors/status-error.js';
import { goPrint } from '../../machinery/jsonpath.js';
import { isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { AccessorError, scaleFromCustomResource, setSpecReplicas, type CustomResourceSubresourceScale, type Scale } from '../../registry/crd-scale.js';
import { goJSONWithLiterals } from '../../machinery/go-decode/number-literals.js';
import { goJsonKind } from '../../registry/patch/json-patch.js';
import { cannotBeHandled, fieldValidation, readBody, respond, writeOptions, type HandlerContext } from '../handlers/context.js';
import { invalidPatch, PATCH_ENGINES } from '../handlers/patch.js';
import { negotiatePatchType, type PatchType } from '../negotiation.js';

const SCALE_API_VERSION = 'autoscaling/v1';
/** kube marks a Scale whose custom resource has no spec replicas so an update that leaves it so is refused. */
const INVALID_SPEC_REPLICAS = -2147483648;
const SCALE_PATCH_TYPES: readonly PatchType[] = ['application/json-patch+json', 'application/merge-patch+json'];

function scalePaths(ctx: HandlerContext): CustomResourceSubresourceScale {
  const paths = ctx.store.definition.subresources.find((s) => s.name === 'scale')?.scale;
  if (!paths) throw new Error(`${ctx.store.definition.plural}/scale has no scale paths`);
  return paths;
}

/** scaleFromCustomResource whose accessor errors are plain errors upstream (a 500 without a reason). */
function scaleOf(cr: KubeObject, paths: CustomResourceSubresourceScale) {
  try {
    return scaleFromCustomResource(cr, paths);
  } catch (e) {
    if (e instanceof AccessorError) throw new StatusError(500, '', e.message);
    throw e;
  }
}

/** Go's message decoding a JSON value into a Scale field of type `goType`. */
function unmarshal(value: unknown, field: string, goType: string): string {
  const kind = typeof value === 'number' ? `number ${goPrint(value)}` : goJsonKind(value);
  return `json: cannot unmarshal ${kind} into Go struct field ${field} of type ${goType}`;
}

const isInt32 = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;

/** The error decoding `obj` into autoscaling/v1 Scale gives, if any (null members are zero values). */
function scaleDecodeError(obj: KubeObject): string | undefined {
  if (obj.metadata != null && !isPlainObject(obj.metadata)) return unmarshal(obj.metadata, 'Scale.metadata', 'v1.ObjectMeta');
  for (const part of ['spec', 'status'] as const) {
    const value = obj[part];
    if (value == null) continue;
    if (!isPlainObject(value)) return unmarshal(value, `Scale.${part}`, part === 'spec' ? 'v1.ScaleSpec' : 'v1.ScaleStatus');
    const section = value as Record<string, unknown>;
    const owner = part === 'spec' ? 'ScaleSpec' : 'ScaleStatus';
    if (section.replicas != null && !isInt32(section.replicas)) return unmarshal(section.replicas, `${owner}.${part}.replicas`, 'int32');
    if (part === 'status' && section.selector != null && typeof section.selector !== 'string') return unmarshal(section.selector, 'ScaleStatus.status.selector', 'string');
  }
  return undefined;
}

/** The Scale's fields a strict decode knows; other members are dropped (and complained of under Warn and Strict). */
function unknownScaleFields(obj: KubeObject): string[] {
  const unknown: string[] = [];
  const known: Record<string, string[]> = { spec: ['replicas'], status: ['replicas', 'selector'] };
  for (const key of Object.keys(obj)) {
    if (!['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(key)) unknown.push(key);
  }
  for (const [part, fields] of Object.entries(known)) {
    const section = obj[part];
    if (isPlainObject(section)) for (const key of Object.keys(section)) if (!fields.includes(key)) unknown.push(`${part}.${key}`);
  }
  return unknown;
}

function replicasOf(scale: KubeObject): number {
  const spec = scale.spec;
  return isPlainObject(spec) && typeof (spec as Record<string, unknown>).replicas === 'number' ? ((spec as Record<string, unknown>).replicas as number) : 0;
}

/**
 * scaleUpdatedObjectInfo.UpdatedObject: the custom resource with the new Scale's replicas (and
 * its resourceVersion as the write's precondition).
 */
function updatedCustomResource(cr: KubeObject, paths: CustomResourceSubresourceScale, next: (old: Scale) => KubeObject): KubeObject {
  const { scale: oldScale, specReplicasFound } = scaleOf(cr, paths);
  if (!specReplicasFound) oldScale.spec = { replicas: INVALID_SPEC_REPLICAS };
  const scale = next(oldScale);
  const replicas = replicasOf(scale);
  if (replicas === INVALID_SPEC_REPLICAS) throw badRequest(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} cannot be empty`);
  setSpecReplicas(cr, paths, replicas);
  const requested = metaOf(scale).resourceVersion;
  if (requested) metaOf(cr).resourceVersion = requested;
  return cr;
}

async function getScale(ctx: HandlerContext, paths: CustomResourceSubresourceScale): Promise<Response> {
  const cr = await ctx.store.get(ctx.info.namespace || undefined, ctx.info.name);
  const { scale, specReplicasFound } = scaleOf(cr, paths);
  if (!specReplicasFound) throw internalError(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} does not exist`);
  return respond(ctx, 200, scale);
}

/** The Scale body of a PUT, checked as decoding it into autoscaling/v1 Scale checks it. */
async function readScale(ctx: HandlerContext): Promise<KubeObject> {
  const directive = fieldValidation(ctx, 'UpdateOptions');
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  const obj = ctx.negotiator.decodeBody(contentType, await readBody(ctx.request), ctx.target);
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind && kind !== 'Scale') {
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion || 'v1';
    throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a Scale: no kind "${kind}" is registered for version "${apiVersion || SCALE_API_VERSION}"`);
  }
  if (apiVersion && apiVersion !== SCALE_API_VERSION) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${SCALE_API_VERSION})`);
  }
  const typeError = scaleDecodeError(obj);
  if (typeError) throw cannotBeHandled(ctx, typeError);
  const unknown = unknownScaleFields(obj);
  if (unknown.length > 0 && directive !== 'Ignore') {
    const messages = unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
    if (directive === 'Strict') throw cannotBeHandled(ctx, `strict decoding error: ${messages.join(', ')}`);
    ctx.warnings.push(...messages);
  }
  ctx.recordRequestObject?.(obj);
  return obj;
}

async function updateScale(ctx: HandlerContext, paths: CustomResourceSubresourceScale): Promise<Response> {
  const options = writeOptions(ctx, 'UpdateOptions');
  const body = await readScale(ctx);
  const namespace = ctx.info.namespace || undefined;
  const bodyMeta = metaOf(body);
  // rest's checkName, before the store is asked.
  if ((bodyMeta.name ?? '') !== ctx.info.name) {
    throw badRequest(`the name of the object (${bodyMeta.name ?? ''}) does not match the name on the URL (${ctx.info.name})`);
  }
  if (ctx.store.definition.namespaced && bodyMeta.namespace && bodyMeta.namespace !== ctx.info.namespace) {
    throw badRequest(`the namespace of the object (${bodyMeta.namespace}) does not match the namespace on the request (${ctx.info.namespace})`);
  }
  const updated = await ctx.store.guaranteedUpdate(namespace, ctx.info.name, (cr) => updatedCustomResource(cr, paths, () => body), { ...options, subresource: 'scale' });
  return respond(ctx, 200, scaleAfterWrite(updated, paths));
}

async function patchScale(ctx: HandlerContext, paths: CustomResourceSubresourceScale): Promise<Response> {
  const options = writeOptions(ctx, 'PatchOptions');
  const directive = fieldValidation(ctx, 'PatchOptions');
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  const patchType = negotiatePatchType(contentType, SCALE_PATCH_TYPES);
  const engine = PATCH_ENGINES[patchType];
  const patch = await readBody(ctx.request);
  const updated = await ctx.store.guaranteedUpdate(
    ctx.info.namespace || undefined,
    ctx.info.name,
    (cr) =>
      updatedCustomResource(cr, paths, (oldScale) => {
        ctx.warnings.length = 0;
        const patched = engine(oldScale as unknown as KubeObject, patch, ctx.store.definition, { fieldValidation: directive, strictErrors: [] });
        const typeError = scaleDecodeError(patched);
        if (typeError) throw invalidPatch(goJSONWithLiterals(patched), typeError);
        const unknown = unknownScaleFields(patched);
        if (unknown.length > 0 && directive === 'Strict') {
          throw invalidPatch(goJSONWithLiterals(patched), `strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`);
        }
        if (directive === 'Warn') ctx.warnings.push(...unknown.map((f) => `unknown field ${JSON.stringify(f)}`));
        return patched;
      }),
    { ...options, subresource: 'scale' },
  );
  return respond(ctx, 200, scaleAfterWrite(updated, paths));
}

/** The Scale of the written custom resource; an unreadable one is a 400, as ScaleREST.Update answers. */
function scaleAfterWrite(cr: KubeObject, paths: CustomResourceSubresourceScale): Scale {
  try {
    return scaleFromCustomResource(cr, paths).scale;
  } catch (e) {
    if (e instanceof AccessorError) throw badRequest(e.message);
    throw e;
  }
}

export async function serveScale(ctx: HandlerContext): Promise<Response> {
  const paths = scalePaths(ctx);
  switch (ctx.info.verb) {
    case 'get':
      return getScale(ctx, paths);
    case 'update':
      return updateScale(ctx, paths);
    case 'patch':
      return patchScale(ctx, paths);
  }
  throw new Error(`scale subresource: verb ${ctx.info.verb} is not routed here`);
}

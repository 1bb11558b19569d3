// GET, PUT and PATCH of a custom resource's `scale` subresource, as apiextensions-apiserver's
// ScaleREST serves it: an autoscaling/v1 Scale computed from the custom resource by the CRD's
// specReplicasPath, statusReplicasPath and labelSelectorPath; a write sets only the spec replicas
// path of the custom resource, through the kind's own strategy (its validation, generation and
// status rules), conditional on the Scale's resourceVersion when it names one (409 when stale).
// JSON patch, merge patch and server-side apply work on the Scale. A strategic merge patch is
// refused (415), as kube's crdHandler offers a custom resource's subresources only the patch types
// of custom resources. Every write is recorded by the Scale's field manager on a Scale that holds
// the parent's owners of the replicas field, and mapped back into the parent's managedFields
// (scale-managed-fields.ts), as kube's ScaleHandler does for built-in kinds. (kube-apiserver 1.33
// means to do the same for custom resources, but there its type converter has no Scale type:
// kubernetes/kubernetes#116311 and #131892. The design, not that defect, is followed here.)

import { badRequest, internalError, invalid, StatusError } from '../../errors/status-error.js';
import { goPrint } from '../../machinery/jsonpath.js';
import { isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { AccessorError, scaleFromCustomResource, setSpecReplicas, type CustomResourceSubresourceScale, type Scale } from '../../registry/crd-scale.js';
import { goJSONWithLiterals } from '../../machinery/go-decode/number-literals.js';
import { goJsonKind } from '../../registry/patch/json-patch.js';
import { decodeApplyPatch, validateApplyOptions } from '../../registry/apply/apply.js';
import { groupVersionKindString } from '../../machinery/group-version-kind.js';
import { managerOrUserAgent } from '../../registry/apply/field-manager.js';
import { replicasFieldPath, SCALE_API_VERSION, scaleFieldManager, ScaleManagedFields, type ReplicasPathMappings } from '../../registry/apply/scale-managed-fields.js';
import type { SubresourceDefinition } from '../../registry/definition.js';
import type { WriteOptions } from '../../registry/store.js';
import { cannotBeHandled, fieldValidation, readBody, respond, writeOptions, type HandlerContext } from '../handlers/context.js';
import { queryBool } from '../handlers/list.js';
import { decodeCborApplyPatch, invalidPatch, PATCH_ENGINES, strictDecodeApplyPatch } from '../handlers/patch.js';
import { builtinPatchTypes, negotiatePatchType } from '../negotiation.js';

/** kube marks a Scale whose custom resource has no spec replicas so an update that leaves it so is refused. */
const INVALID_SPEC_REPLICAS = -2147483648;

/** What a scale endpoint needs of its CRD version: the paths, and the replicas path of every version. */
interface ScaleEndpoint {
  paths: CustomResourceSubresourceScale;
  /** The version served here (group/version): the one a new owner of the replicas field is recorded in. */
  groupVersion: string;
  mappings: ReplicasPathMappings;
}

/** Built once per definition (one state of the CRD), as kube builds them once per serving info. */
const endpoints = new WeakMap<SubresourceDefinition, ScaleEndpoint>();

function scaleEndpoint(ctx: HandlerContext): ScaleEndpoint {
  const definition = ctx.store.definition;
  const subresource = definition.subresources.find((s) => s.name === 'scale');
  if (!subresource?.scale) throw new Error(`${definition.plural}/scale has no scale paths`);
  let endpoint = endpoints.get(subresource);
  if (!endpoint) {
    const groupVersion = `${definition.group}/${definition.version}`;
    const paths = subresource.replicasPaths ?? { [groupVersion]: subresource.scale.specReplicasPath };
    const mappings = new Map(Object.entries(paths).map(([gv, path]) => [gv, path === null ? null : replicasFieldPath(path)]));
    endpoint = { paths: subresource.scale, groupVersion, mappings };
    endpoints.set(subresource, endpoint);
  }
  return endpoint;
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
 * its resourceVersion as the write's precondition). `next` gets the current Scale with the
 * parent's owners of the replicas field as its managedFields and returns the Scale to write, its
 * managedFields recorded by the Scale's field manager; they become the parent's.
 */
function updatedCustomResource(cr: KubeObject, endpoint: ScaleEndpoint, next: (old: KubeObject) => KubeObject): KubeObject {
  const { paths } = endpoint;
  const managed = new ScaleManagedFields(metaOf(cr).managedFields, endpoint.groupVersion, endpoint.mappings);
  const { scale: oldScale, specReplicasFound } = scaleOf(cr, paths);
  if (!specReplicasFound) oldScale.spec = { replicas: INVALID_SPEC_REPLICAS };
  oldScale.metadata.managedFields = managed.toSubresource();
  const scale = next(oldScale as unknown as KubeObject);
  const replicas = replicasOf(scale);
  if (replicas === INVALID_SPEC_REPLICAS) throw badRequest(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} cannot be empty`);
  setSpecReplicas(cr, paths, replicas);
  const requested = metaOf(scale).resourceVersion;
  if (requested) metaOf(cr).resourceVersion = requested;
  const entries = managed.toParent(metaOf(scale).managedFields);
  if (entries.length) metaOf(cr).managedFields = entries;
  else delete metaOf(cr).managedFields;
  return cr;
}

/** The write's options: the managedFields the store would record are the Scale handler's here. */
function scaleWriteOptions(options: WriteOptions): WriteOptions & { subresource: string } {
  return { ...options, subresource: 'scale', managedFieldsRecorded: true };
}

async function getScale(ctx: HandlerContext, { paths }: ScaleEndpoint): Promise<Response> {
  const cr = await ctx.store.get(ctx.info.namespace || undefined, ctx.info.name);
  const { scale, specReplicasFound } = scaleOf(cr, paths);
  if (!specReplicasFound) throw internalError(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} does not exist`);
  return respond(ctx, 200, scale);
}

/** The Scale body of a PUT, checked as decoding it into autoscaling/v1 Scale checks it. */
async function readScale(ctx: HandlerContext): Promise<KubeObject> {
  const directive = fieldValidation(ctx, 'UpdateOptions');
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  const obj = ctx.negotiator.decodeBody(contentType, await readBody(ctx), ctx.target);
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

async function updateScale(ctx: HandlerContext, endpoint: ScaleEndpoint): Promise<Response> {
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
  const manager = managerOrUserAgent(options.fieldManager, options.userAgent);
  const updated = await ctx.store.guaranteedUpdate(
    namespace,
    ctx.info.name,
    (cr) => updatedCustomResource(cr, endpoint, (oldScale) => scaleFieldManager().update(oldScale, body, manager)),
    scaleWriteOptions(options),
  );
  return respond(ctx, 200, scaleAfterWrite(updated, endpoint.paths));
}

async function patchScale(ctx: HandlerContext, endpoint: ScaleEndpoint): Promise<Response> {
  const options = writeOptions(ctx, 'PatchOptions');
  const directive = fieldValidation(ctx, 'PatchOptions');
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  const patchType = negotiatePatchType(contentType, scalePatchTypes(ctx));
  if (patchType === 'application/apply-patch+yaml' || patchType === 'application/apply-patch+cbor') return applyScale(ctx, endpoint, patchType);
  if (ctx.query.get('force') !== null) {
    throw invalid('meta.k8s.io', 'PatchOptions', '', [{ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' }]);
  }
  const engine = PATCH_ENGINES[patchType];
  const patch = await readBody(ctx);
  const manager = managerOrUserAgent(options.fieldManager, options.userAgent);
  const updated = await ctx.store.guaranteedUpdate(
    ctx.info.namespace || undefined,
    ctx.info.name,
    (cr) =>
      updatedCustomResource(cr, endpoint, (oldScale) => {
        ctx.warnings.length = 0;
        const patched = engine(oldScale, patch, ctx.store.definition, { fieldValidation: directive, strictErrors: [] });
        const typeError = scaleDecodeError(patched);
        if (typeError) throw invalidPatch(goJSONWithLiterals(patched), typeError);
        const unknown = unknownScaleFields(patched);
        if (unknown.length > 0 && directive === 'Strict') {
          throw invalidPatch(goJSONWithLiterals(patched), `strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`);
        }
        if (directive === 'Warn') ctx.warnings.push(...unknown.map((f) => `unknown field ${JSON.stringify(f)}`));
        return scaleFieldManager().update(oldScale, patched, manager);
      }),
    scaleWriteOptions(options),
  );
  return respond(ctx, 200, scaleAfterWrite(updated, endpoint.paths));
}

/** kube's patch types of a custom resource's subresources: no strategic merge patch. */
function scalePatchTypes(ctx: HandlerContext) {
  return builtinPatchTypes(ctx.config.cbor).filter((t) => t !== 'application/strategic-merge-patch+json');
}

/**
 * The checks of the Scale's field manager before it merges: its version check (the outermost
 * manager, so any other group, version or kind is `invalid object type`), then the merge's own.
 */
function checkScaleConfig(config: KubeObject): void {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const kind = typeof config.kind === 'string' ? config.kind : '';
  if (apiVersion !== SCALE_API_VERSION || kind !== 'Scale') throw badRequest(`invalid object type: ${groupVersionKindString(apiVersion, kind)}`);
  if (isPlainObject(config.metadata) && config.metadata.managedFields != null) throw badRequest('metadata.managedFields must be nil');
}

/** Go's %T of a JSON value as decoded into interface{}. */
function goTypeName(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isPlainObject(value)) return 'map[string]interface {}';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** structured-merge-diff's check of the Scale's numeric fields while typing the intent. */
function scaleTypeErrors(config: KubeObject): string[] {
  const errors: string[] = [];
  for (const part of ['spec', 'status'] as const) {
    const section = config[part];
    if (!isPlainObject(section)) continue;
    const replicas = (section as Record<string, unknown>).replicas;
    if (replicas != null && typeof replicas !== 'number') errors.push(`.${part}.replicas: expected numeric (int or float), got ${goTypeName(replicas)}`);
  }
  return errors;
}

/**
 * Server-side apply of a Scale: the intent is applied to the current Scale by its field manager
 * (conflicts with the owners of the replicas field, `force` takes it), then written as an update.
 */
async function applyScale(ctx: HandlerContext, endpoint: ScaleEndpoint, patchType: 'application/apply-patch+yaml' | 'application/apply-patch+cbor'): Promise<Response> {
  const options = writeOptions(ctx, 'PatchOptions');
  const directive = fieldValidation(ctx, 'PatchOptions');
  const body = await readBody(ctx);
  const cbor = patchType === 'application/apply-patch+cbor';
  const config = cbor ? decodeCborApplyPatch(body) : decodeApplyPatch(body);
  ctx.recordRequestObject?.patch?.(() => config);
  const fieldManager = options.fieldManager ?? '';
  validateApplyOptions(fieldManager);
  checkScaleConfig(config);
  const force = queryBool(ctx.query, 'force') === true;
  const meta = isPlainObject(config.metadata) ? (config.metadata as { name?: unknown; namespace?: unknown }) : {};
  const describe = `${typeof meta.namespace === 'string' ? meta.namespace : ''}/${typeof meta.name === 'string' ? meta.name : ''}; autoscaling/v1, Kind=Scale`;
  const typeErrors = scaleTypeErrors(config);
  if (typeErrors.length) {
    // A plain error upstream: 500 without a reason.
    const why = typeErrors.length === 1 ? typeErrors[0] : ['errors:', ...typeErrors.map((e) => `  ${e}`)].join('\n');
    throw new StatusError(500, '', `failed to create typed patch object (${describe}): ${why}`);
  }
  const updated = await ctx.store.guaranteedUpdate(
    ctx.info.namespace || undefined,
    ctx.info.name,
    (cr) =>
      updatedCustomResource(cr, endpoint, (oldScale) => {
        const applied = scaleFieldManager().apply(oldScale, config, fieldManager, force, describe);
        const typeError = scaleDecodeError(applied);
        if (typeError) throw badRequest(typeError);
        if (!cbor) strictDecodeApplyPatch(ctx, body, directive);
        return applied;
      }),
    scaleWriteOptions(options),
  );
  return respond(ctx, 200, scaleAfterWrite(updated, endpoint.paths));
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
  const endpoint = scaleEndpoint(ctx);
  switch (ctx.info.verb) {
    case 'get':
      return getScale(ctx, endpoint);
    case 'update':
      return updateScale(ctx, endpoint);
    case 'patch':
      return patchScale(ctx, endpoint);
  }
  throw new Error(`scale subresource: verb ${ctx.info.verb} is not routed here`);
}

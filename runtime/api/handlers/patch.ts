// PATCH: the patch is applied to the stored object inside the store's retry loop, so an
// unconditional patch never loses a concurrent write; a patch that names a resourceVersion is
// conditional. Patch engines are chosen by Content-Type and driven by the kind's generated
// schema; JSON patch and apply join PATCH_ENGINES with the wire-formats work.

import { badRequest, unsupportedMediaType } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../../registry/definition.js';
import { applyMergePatch } from '../../registry/merge-patch.js';
import { isPlainObject, type KubeObject } from '../../registry/object.js';
import { generatedSchemaIndex } from '../../registry/openapi-schema.js';
import { OpenAPIPatchSchemas } from '../../registry/patch/patch-meta.js';
import { applyStrategicMergePatch } from '../../registry/patch/strategic-merge.js';
import type { HandlerContext } from './context.js';
import { dropUnknownFields, fieldValidation, readBody, respond, writeOptions } from './context.js';

/** Applies a patch document to the stored object (a copy) and returns the object to write. */
export type PatchEngine = (existing: KubeObject, patch: Uint8Array, definition: ResourceDefinition) => KubeObject;

function parsePatch(patch: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(patch).toString('utf8'));
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
}

function mergePatchEngine(existing: KubeObject, patch: Uint8Array): KubeObject {
  const result = applyMergePatch(existing, parsePatch(patch));
  if (!isPlainObject(result)) throw badRequest('the patch must be a JSON object');
  return result as KubeObject;
}

let patchSchemas: OpenAPIPatchSchemas | undefined;

function strategicMergePatchEngine(existing: KubeObject, patch: Uint8Array, definition: ResourceDefinition): KubeObject {
  patchSchemas ??= new OpenAPIPatchSchemas(generatedSchemaIndex());
  return applyStrategicMergePatch(existing, parsePatch(patch), patchSchemas.forComponent(definition.openAPIName)) as KubeObject;
}

export const PATCH_ENGINES: Record<string, PatchEngine> = {
  'application/merge-patch+json': mergePatchEngine,
  'application/strategic-merge-patch+json': strategicMergePatchEngine,
};

export async function patchResource(ctx: HandlerContext): Promise<Response> {
  const options = writeOptions(ctx, 'PatchOptions');
  const directive = fieldValidation(ctx, 'PatchOptions');
  const type = (ctx.request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const engine = PATCH_ENGINES[type];
  if (!engine) throw unsupportedMediaType(type, Object.keys(PATCH_ENGINES));
  const patch = await readBody(ctx.request);
  const patched = await ctx.store.guaranteedUpdate(
    ctx.info.namespace || undefined,
    ctx.info.name,
    (existing) => {
      // A retry re-applies the patch to the fresh object; its warnings replace the last attempt's.
      ctx.warnings.length = 0;
      const result = engine(existing, patch, ctx.store.definition);
      dropUnknownFields(ctx, result, directive);
      return result;
    },
    { ...options, subresource: ctx.info.subresource },
  );
  return respond(ctx, 200, patched);
}

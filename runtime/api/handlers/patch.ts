// PATCH: the patch is applied to the stored object inside the store's retry loop, so an
// unconditional patch never loses a concurrent write; a patch that names a resourceVersion is
// conditional. Patch engines are chosen by Content-Type; JSON merge patch is built in, the
// others (JSON patch, strategic merge, apply) register in PATCH_ENGINES as they are written.

import { badRequest, unsupportedMediaType } from '../../errors/status-error.js';
import { applyMergePatch } from '../../registry/merge-patch.js';
import { isPlainObject, type KubeObject } from '../../registry/object.js';
import type { HandlerContext } from './context.js';
import { readBody, respond, writeOptions } from './context.js';

/** Applies a patch document to the stored object (a copy) and returns the object to write. */
export type PatchEngine = (existing: KubeObject, patch: Uint8Array, kind: string) => KubeObject;

function mergePatchEngine(existing: KubeObject, patch: Uint8Array): KubeObject {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(patch).toString('utf8'));
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  const result = applyMergePatch(existing, doc);
  if (!isPlainObject(result)) throw badRequest('the patch must be a JSON object');
  return result as KubeObject;
}

export const PATCH_ENGINES: Record<string, PatchEngine> = {
  'application/merge-patch+json': mergePatchEngine,
};

export async function patchResource(ctx: HandlerContext): Promise<Response> {
  const options = writeOptions(ctx, 'PatchOptions');
  const type = (ctx.request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const engine = PATCH_ENGINES[type];
  if (!engine) throw unsupportedMediaType(type, Object.keys(PATCH_ENGINES));
  const patch = await readBody(ctx.request);
  const patched = await ctx.store.guaranteedUpdate(
    ctx.info.namespace || undefined,
    ctx.info.name,
    (existing) => engine(existing, patch, ctx.target.kind),
    { ...options, subresource: ctx.info.subresource },
  );
  return respond(ctx, 200, patched);
}

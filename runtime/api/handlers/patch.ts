// PATCH: the patch is applied to the stored object inside the store's retry loop, so an
// unconditional patch never loses a concurrent write; a patch that names a resourceVersion is
// conditional. Patch engines are chosen by Content-Type and driven by the kind's generated
// schema. Server-side apply is its own path: it may create the object and it checks ownership.
//
// fieldValidation on patches follows kube-apiserver's patcher: repeated members of the patch
// document itself are found first, then unknown fields of the patched object; under Strict they
// fail the request as a 422 on the field "patch" quoting the patched object, under Warn they
// become Warning headers.

import { StatusError, badRequest, invalid, unsupportedMediaType } from '../../errors/status-error.js';
import { applyToStore } from '../../registry/apply/apply.js';
import type { ResourceDefinition } from '../../registry/definition.js';
import { applyMergePatch } from '../../registry/patch/merge-patch.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { generatedSchemaIndex } from '../../machinery/openapi-schema.js';
import { OpenAPIPatchSchemas } from '../../registry/patch/patch-meta.js';
import { applyStrategicMergePatch } from '../../registry/patch/strategic-merge.js';
import { pruneUnknownFields, type FieldValidation } from '../../registry/unknown-fields.js';
import { decodeCBOR } from '../cbor.js';
import { carryLiteral, goJSONWithLiterals, overflowingNumber, recordNumberLiterals } from '../../machinery/go-decode/number-literals.js';
import { goPrint, jsonDecodeError, typeMetaDecodeError, unstructuredConvertError } from '../../machinery/go-decode/index.js';
import { scanJsonMembers, scanYamlDuplicates } from '../duplicate-fields.js';
import { builtinPatchTypes, negotiatePatchType } from '../negotiation.js';
import { jsonNestingBracket, parseYamlBounded } from '../../machinery/nesting.js';
import { encodeJSON } from '../serializers.js';
import { goJsonError, tooDeepJson } from '../../machinery/go-json.js';
import { sortKeysDeep } from '../../machinery/go-format.js';
import type { HandlerContext } from './context.js';
import { dropNulls, fieldValidation, readBody, respond, writeOptions } from './context.js';
import { queryBool } from './list.js';
import { PatchedTooDeep, applyJsonPatch, decodeJsonPatch, goJsonKind, strictDecodeJsonPatch } from '../../registry/patch/json-patch.js';

export interface PatchEngineOptions {
  fieldValidation: FieldValidation;
}

/**
 * Applies a patch document to the stored object (a copy) and returns the object to write. The
 * engine reports complaints about the patch document itself (repeated members) in `strictErrors`.
 */
export type PatchEngine = (
  existing: KubeObject,
  patch: Uint8Array,
  definition: ResourceDefinition,
  options?: PatchEngineOptions & { strictErrors?: string[] },
) => KubeObject;

/**
 * A merge or strategic merge patch document. What does not parse, or nests past the limit, is
 * Go's SyntaxError, which `refuse` words as the engine's decoder does upstream.
 */
function parsePatch(patch: Uint8Array, refuse: (syntaxError: string) => StatusError): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(patch).toString('utf8'));
  } catch {
    throw refuse(goJsonError(patch));
  }
  const bracket = jsonNestingBracket(patch);
  if (bracket) throw refuse(tooDeepJson(bracket));
  return parsed;
}

/**
 * The error decoding a patch object into map[string]interface{} gives for a number a float64
 * cannot hold (JSON.parse made it Infinity); kube-apiserver's patchers decode merge patches (under
 * Warn and Strict) and strategic merge patches so before applying them.
 */
function mapDecodeOverflow(patch: Uint8Array, parsed: unknown): string | undefined {
  if (!isPlainObject(parsed)) return undefined;
  const literal = overflowingNumber(Buffer.from(patch).toString('utf8'));
  return literal === undefined ? undefined : `json: cannot unmarshal number ${literal} into Go value of type float64`;
}

/** The repeated members of a JSON patch document, when the directive wants to hear of them. */
function patchDuplicates(patch: Uint8Array, options: PatchEngineOptions | undefined): string[] {
  if (!options || options.fieldValidation === 'Ignore') return [];
  return scanJsonMembers(Buffer.from(patch).toString('utf8')).duplicates.map((d) => d.message);
}

function mergePatchEngine(existing: KubeObject, patch: Uint8Array, _def: ResourceDefinition, options?: PatchEngineOptions & { strictErrors?: string[] }): KubeObject {
  const strictDecode = options !== undefined && options.fieldValidation !== 'Ignore';
  // Warn and Strict first decode the patch into a map; under Ignore only json-patch's MergePatch
  // reads it, which answers any syntax error with its ErrBadJSONPatch.
  const parsed = parsePatch(patch, (why) => badRequest(strictDecode ? `error decoding patch: ${why}` : 'Invalid JSON Patch'));
  // MergePatch then refuses null.
  if (strictDecode && parsed !== null && !isPlainObject(parsed)) {
    throw badRequest(`error decoding patch: json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type map[string]interface {}`);
  }
  const overflow = options && options.fieldValidation !== 'Ignore' ? mapDecodeOverflow(patch, parsed) : undefined;
  if (overflow) throw badRequest(`error decoding patch: ${overflow}`);
  options?.strictErrors?.push(...patchDuplicates(patch, options));
  // The patched document keeps the patch's spelling of its numbers, as the library's raw bytes do.
  recordNumberLiterals(Buffer.from(patch).toString('utf8'), parsed);
  const result = applyMergePatch(existing, parsed, (from, key, to) => carryLiteral(from, key, to, key));
  // Under Ignore an array body gets through: MergePatch returns it (nulls pruned) as the patched
  // document, and decoding that into the object is the 422 quoting it.
  if (!isPlainObject(result)) throw notAnObject(result);
  return result as KubeObject;
}

let patchSchemas: OpenAPIPatchSchemas | undefined;

function strategicMergePatchEngine(
  existing: KubeObject,
  patch: Uint8Array,
  definition: ResourceDefinition,
  options?: PatchEngineOptions & { strictErrors?: string[] },
): KubeObject {
  patchSchemas ??= new OpenAPIPatchSchemas(generatedSchemaIndex());
  // kube-apiserver unmarshals the patch into a map and sends the decoder's error as it is.
  const parsed = parsePatch(patch, (why) => badRequest(why));
  // Decoded into a map whatever the directive, and refused as it is (no "error decoding patch").
  const overflow = mapDecodeOverflow(patch, parsed);
  if (overflow) throw badRequest(overflow);
  options?.strictErrors?.push(...patchDuplicates(patch, options));
  return applyStrategicMergePatch(existing, parsed, patchSchemas.forComponent(definition.openAPIName)) as KubeObject;
}

function jsonPatchEngine(existing: KubeObject, patch: Uint8Array, _def: ResourceDefinition, options?: PatchEngineOptions & { strictErrors?: string[] }): KubeObject {
  if (options && options.fieldValidation !== 'Ignore') {
    // Upstream first decodes into []jsonPatchOp strictly; its repetitions are "json patch" complaints.
    strictDecodeJsonPatch(patch);
    options.strictErrors?.push(...patchDuplicates(patch, options).map((m) => `json patch ${m}`));
  }
  const ops = decodeJsonPatch(patch);
  let result: unknown;
  try {
    result = applyJsonPatch(existing, ops);
  } catch (err) {
    if (!(err instanceof PatchedTooDeep)) throw err;
    // kube-apiserver would only find out decoding the patched JSON: its 422, quoting that JSON.
    const patchedJS = encodeJSON(sortKeysDeep(err.document)).trimEnd();
    const bracket = jsonNestingBracket(Buffer.from(patchedJS)) ?? '{';
    throw invalidPatch(patchedJS, `couldn't get version/kind; json parse error: ${tooDeepJson(bracket)}`);
  }
  // `replace` of the root with an array: the patched document no longer decodes as an object.
  if (!isPlainObject(result)) throw notAnObject(result);
  return result as KubeObject;
}

/** The 422 for a patched document that is not a JSON object: its type meta cannot be read. */
function notAnObject(result: unknown): StatusError {
  return invalidPatch(
    goJSONWithLiterals(result),
    `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonKind(result)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
  );
}

export const PATCH_ENGINES: Record<string, PatchEngine> = {
  'application/json-patch+json': jsonPatchEngine,
  'application/merge-patch+json': mergePatchEngine,
  'application/strategic-merge-patch+json': strategicMergePatchEngine,
};

/**
 * The 422 kube-apiserver sends when the patched document cannot become the object: an Invalid
 * with no kind or name, on the field "patch", quoting the patched JSON.
 */
export function invalidPatch(patchedJS: string, why: string): StatusError {
  const detail = `Invalid value: ${JSON.stringify(patchedJS)}: ${why}`;
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${detail}`, {
    causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }],
  });
}


/**
 * The patched object must still fit the kind's Go types. kube-apiserver decodes the JSON of a
 * merge or JSON patch result with its JSON decoder (a 422 quoting the patched JSON), and converts
 * a strategic merge result from its map form (a 422 quoting the patch as Go prints a map). Both
 * come before any unknown-field complaint.
 */
function checkPatchedTypes(ctx: HandlerContext, patchType: string, result: KubeObject, patch: Uint8Array): void {
  const name = ctx.store.definition.openAPIName;
  if (patchType === 'application/strategic-merge-patch+json') {
    const err = unstructuredConvertError(name, result);
    if (err) throw invalidPatch(goPrint(JSON.parse(Buffer.from(patch).toString('utf8'))), err);
    return;
  }
  // The patched JSON is read like a body: apiVersion and kind first, then the whole struct.
  const typeMeta = typeMetaDecodeError(result);
  const err = typeMeta ? `couldn't get version/kind; json parse error: ${typeMeta}` : jsonDecodeError(name, result);
  if (err) throw invalidPatch(goJSONWithLiterals(result), err);
}

/**
 * fieldValidation for a patched object: unknown fields are dropped (they cannot be stored), and
 * with the patch's own complaints they fail a Strict request or warn under Warn.
 */
function validatePatchedFields(ctx: HandlerContext, result: KubeObject, directive: FieldValidation, patchComplaints: string[]): void {
  const index = generatedSchemaIndex();
  const schema = index.component(ctx.store.definition.openAPIName);
  const patchedJS = directive === 'Strict' ? goJSONWithLiterals(result) : '';
  const unknown = schema ? pruneUnknownFields(result, schema, index) : (ctx.store.definition.validator.prune?.(result) ?? []);
  if (directive === 'Ignore') return;
  const messages = [...patchComplaints, ...unknown.map((f) => `unknown field ${JSON.stringify(f)}`)];
  if (messages.length === 0) return;
  if (directive === 'Warn') {
    ctx.warnings.push(...messages);
    return;
  }
  throw invalidPatch(patchedJS, `strict decoding error: ${messages.join(', ')}`);
}

/** CBOR's names of its major types, as Go's decoder words a type mismatch. */
function cborTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'UTF-8 text string';
  if (typeof value === 'number') return value < 0 ? 'negative integer' : Number.isInteger(value) ? 'positive integer' : 'primitives';
  return 'primitives';
}

/**
 * An application/apply-patch+cbor body, decoded as kube-apiserver decodes it into an unstructured
 * map: a 400 "error decoding patch" when it is not CBOR or not a map (null is an empty one).
 */
export function decodeCborApplyPatch(body: Uint8Array): KubeObject {
  let value: unknown;
  try {
    value = decodeCBOR(body);
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  if (value === null) return {};
  if (!isPlainObject(value)) throw badRequest(`error decoding patch: cbor: cannot unmarshal ${cborTypeName(value)} into Go value of type map[string]interface {}`);
  return value as KubeObject;
}

/**
 * kube-apiserver decodes an apply body a second time, strictly, unless fieldValidation is Ignore:
 * go-yaml's repeated keys (JSON bodies are read as YAML too) fail a Strict request with a 400 and
 * become one Warning each under Warn.
 */
export function strictDecodeApplyPatch(ctx: HandlerContext, body: Uint8Array, directive: FieldValidation): void {
  if (directive === 'Ignore') return;
  const lines = scanYamlDuplicates(Buffer.from(body).toString('utf8')).map((d) => d.message);
  if (lines.length === 0) return;
  if (directive === 'Warn') {
    // A retried apply runs this again; each complaint is told once.
    for (const line of lines) if (!ctx.warnings.includes(line)) ctx.warnings.push(line);
    return;
  }
  throw badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${lines.join('\n  ')}`);
}

/**
 * What the audit log shows of an apply body: its YAML (or JSON, a subset) as JSON, as kube's
 * patch handler transcodes it; a body that is no YAML is refused by apply itself, and logged as nothing.
 */
function applyBodyAsJson(body: Uint8Array): unknown {
  try {
    // Bounded: the text has not been checked yet, and composing a deep document recurses.
    return parseYamlBounded(Buffer.from(body).toString('utf8'), { uniqueKeys: false, intAsBigInt: false });
  } catch {
    return undefined;
  }
}

/** A JSON, merge or strategic merge patch as logged: its JSON, or nothing when it does not parse (the patch then fails). */
function jsonPatchBody(body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
}

export async function patchResource(ctx: HandlerContext): Promise<Response> {
  const options = writeOptions(ctx, 'PatchOptions');
  const directive = fieldValidation(ctx, 'PatchOptions');
  // The patch types of the endpoint decide the 415 (kube-apiserver compares the type as sent, less
  // its parameters); a listed type whose engine is not installed is refused the same way.
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  const builtin = builtinPatchTypes(ctx.config.cbor);
  const types = ctx.store.definition.strategicMergePatch === false ? builtin.filter((t) => t !== 'application/strategic-merge-patch+json') : builtin;
  const patchType = negotiatePatchType(contentType, types);
  const force = ctx.query.get('force');
  if (patchType === 'application/apply-patch+yaml' || patchType === 'application/apply-patch+cbor') {
    const body = await readBody(ctx);
    const cbor = patchType === 'application/apply-patch+cbor';
    const config = cbor ? decodeCborApplyPatch(body) : body;
    ctx.recordRequestObject?.patch?.(() => (cbor ? config : applyBodyAsJson(body)));
    const result = await applyToStore(ctx.store, ctx.info.namespace || undefined, ctx.info.name, config, {
      ...options,
      fieldManager: options.fieldManager ?? '',
      force: queryBool(ctx.query, 'force') === true,
      subresource: ctx.info.subresource,
      afterApply: (applied) => {
        // The merged map becomes the Go struct as a strategic merge result does (its integers
        // converted); what does not fit is left to validation, as the field manager types the
        // intent before converting it.
        unstructuredConvertError(ctx.store.definition.openAPIName, applied);
        // CBOR refuses repeated keys while decoding; YAML and JSON bodies are checked here.
        if (!cbor) strictDecodeApplyPatch(ctx, body, directive);
      },
    });
    return respond(ctx, result.created ? 201 : 200, result.object);
  }
  if (force !== null) {
    throw invalid('meta.k8s.io', 'PatchOptions', '', [
      { reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' },
    ]);
  }
  const engine = PATCH_ENGINES[patchType];
  if (!engine) throw unsupportedMediaType(contentType ?? '', [...types]);
  const patch = await readBody(ctx);
  ctx.recordRequestObject?.patch?.(() => jsonPatchBody(patch));
  const patched = await ctx.store.guaranteedUpdate(
    ctx.info.namespace || undefined,
    ctx.info.name,
    (existing) => {
      // A retry re-applies the patch to the fresh object; its warnings replace the last attempt's.
      ctx.warnings.length = 0;
      const strictErrors: string[] = [];
      const result = engine(existing, patch, ctx.store.definition, { fieldValidation: directive, strictErrors });
      checkPatchedTypes(ctx, patchType, result, patch);
      validatePatchedFields(ctx, result, directive, strictErrors);
      dropNulls(ctx.store.definition, result);
      return result;
    },
    { ...options, subresource: ctx.info.subresource },
  );
  return respond(ctx, 200, patched);
}

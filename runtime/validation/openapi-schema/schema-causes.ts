// What a CRD write checks of one version's openAPIV3Schema, in kube-apiserver's order
// (apiextensions-apiserver pkg/apis/apiextensions/validation validateCustomResourceDefinitionValidation):
// the root rules of the status subresource, the structural-schema rules
// (pkg/apiserver/schema/validation.go, complete.go; sorted as kube sorts them), then, only when
// the schema is structural, its defaults (pkg/apiserver/schema/defaulting/validation.go), then the
// OpenAPI rules of every node (ValidateCustomResourceDefinitionOpenAPISchema). CEL rules
// (x-kubernetes-validations) are kube-cel's.

import type { StatusCause } from '../../errors/status-error.js';
import { goQuote } from '../../machinery/go-format.js';
import * as c from './causes.js';
import { validateEmbeddedResources } from './embedded.js';
import { jsonCopy, jsonEqual } from './json.js';
import { pruneAt } from './prune.js';
import { MAX_SCHEMA_DEPTH, SchemaTooDeepError, toNode, type SchemaNode } from './structural.js';
import { isZero, rootCompleteness, structuralInvariants } from './structural-rules.js';
import { SchemaValidator } from './validate.js';

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const nonEmptyObject = (v: unknown): v is Raw => isObject(v) && Object.keys(v).length > 0;
const nonEmptyArray = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > 0;

/** The x-kubernetes-validations rules of `schema` over `value`, causes under `fldPath` (kube-cel's, given by the caller). */
export type DefaultRules = (schema: Raw, value: unknown, fldPath: string) => StatusCause[];

export interface SchemaCheckOptions {
  statusEnabled: boolean;
  requireStructural: boolean;
  defaultRules?: DefaultRules;
}

/** The JSON names of the fields kube allows at the root when the status subresource is on (allowedFieldsAtRootSchema). */
const ALLOWED_AT_ROOT_WITH_STATUS: Record<string, string> = {
  description: 'Description',
  type: 'Type',
  format: 'Format',
  title: 'Title',
  maximum: 'Maximum',
  exclusiveMaximum: 'ExclusiveMaximum',
  minimum: 'Minimum',
  exclusiveMinimum: 'ExclusiveMinimum',
  maxLength: 'MaxLength',
  minLength: 'MinLength',
  pattern: 'Pattern',
  maxItems: 'MaxItems',
  minItems: 'MinItems',
  uniqueItems: 'UniqueItems',
  multipleOf: 'MultipleOf',
  required: 'Required',
  items: 'Items',
  properties: 'Properties',
  externalDocs: 'ExternalDocs',
  example: 'Example',
  'x-kubernetes-preserve-unknown-fields': 'XPreserveUnknownFields',
  'x-kubernetes-validations': 'XValidations',
};

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);


export function validateSchema(schema: Raw, fldPath: string, opts: SchemaCheckOptions): StatusCause[] {
  let root: SchemaNode;
  try {
    root = toNode(schema, 0, fldPath);
  } catch (err) {
    if (err instanceof SchemaTooDeepError) return [c.forbidden(err.path, `must not nest schemas more than ${MAX_SCHEMA_DEPTH} levels deep`)];
    throw err;
  }
  const causes: StatusCause[] = [];
  if (opts.statusEnabled) c.appendAll(causes, rootWithStatusCauses(schema, fldPath));
  if (schema.nullable === true) causes.push(c.forbidden(`${fldPath}.nullable`, 'nullable cannot be true at the root'));
  if (opts.requireStructural) {
    const structural = [...structuralInvariants(schema, 'root', fldPath), ...rootCompleteness(schema, fldPath)];
    // Sorted by their whole text, as kube sorts them (its walk over Go maps has no order of its own).
    const texts = new Map(structural.map((cause) => [cause, c.errorText(cause)]));
    structural.sort((a, b) => (texts.get(a)! < texts.get(b)! ? -1 : texts.get(a)! > texts.get(b)! ? 1 : 0));
    if (structural.length > 0) c.appendAll(causes, structural);
    else c.appendAll(causes, defaultCauses(schema, root, fldPath, true, false, opts.defaultRules));
  }
  c.appendAll(causes, openAPISchemaCauses(schema, fldPath, { allowDefaults: true, defaultsReason: '', insideMeta: false }, true));
  return causes;
}

function rootWithStatusCauses(schema: Raw, fldPath: string): StatusCause[] {
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (isZero(value)) continue;
    if (key === 'type') {
      if (value !== 'object') {
        return [c.invalid(`${fldPath}.type`, value, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      }
      continue;
    }
    if (!Object.hasOwn(ALLOWED_AT_ROOT_WITH_STATUS, key)) {
      const allowed = `[${Object.values(ALLOWED_AT_ROOT_WITH_STATUS).join(' ')}]`;
      return [c.invalid(fldPath, schema, `only ${allowed} fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}

// ---- defaults ----

/**
 * Every default must validate against its own schema and survive pruning unchanged; the root
 * counts as a resource, as embedded resources do (their apiVersion, kind and metadata are kept).
 */
function defaultCauses(raw: Raw, node: SchemaNode, path: string, resourceRoot: boolean, insideMeta: boolean, rules?: DefaultRules): StatusCause[] {
  const errs: StatusCause[] = [];
  const embedded = resourceRoot || node.embeddedResource;
  if (node.default && !insideMeta) {
    const value = node.default.value;
    const pruned = jsonCopy(value);
    pruneAt(pruned, node, embedded);
    if (!jsonEqual(pruned, value)) errs.push(c.invalid(`${path}.default`, value, 'must not have unknown fields'));
    // Embedded resources in the default first; only a default whose resources are well-formed is validated further.
    const found: StatusCause[] = [];
    validateEmbeddedResources(`${path}.default`, value, node, found);
    if (found.length === 0) new SchemaValidator(`${path}.default`).validate(node, value, '', found);
    // A default that passes the schema must also pass the schema's CEL rules.
    if (found.length === 0 && rules) c.appendAll(found, rules(raw, value, `${path}.default`));
    c.appendAll(errs, found);
  }
  if (isObject(raw.items) && node.items) c.appendAll(errs, defaultCauses(raw.items, node.items, `${path}.items`, false, insideMeta, rules));
  if (isObject(raw.properties) && node.properties) {
    for (const [key, prop] of node.properties) {
      const rawProp = raw.properties[key];
      if (!isObject(rawProp)) continue;
      const meta = embedded && META_FIELDS.has(key);
      c.appendAll(errs, defaultCauses(rawProp, prop, `${path}.properties[${key}]`, false, node.embeddedResource ? meta : insideMeta || meta, rules));
    }
  }
  return errs;
}

// ---- OpenAPI rules of every node ----

interface Context {
  allowDefaults: boolean;
  defaultsReason: string;
  insideMeta: boolean;
}

function forbidDefaults(ctx: Context, reason: string): Context {
  return { ...ctx, allowDefaults: false, defaultsReason: reason };
}

/** Go's %#v of a []string. */
function goStringSlice(list: readonly unknown[]): string {
  return `[]string{${list.map((k) => goQuote(String(k))).join(', ')}}`;
}

function openAPISchemaCauses(schema: unknown, path: string, ctx: Context, isRoot: boolean): StatusCause[] {
  if (!isObject(schema)) return [];
  const errs = nodeCauses(schema, path, ctx);
  const type = str(schema.type);
  if (schema.uniqueItems === true) {
    errs.push(c.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== null) {
    if (nonEmptyObject(schema.properties) && (extra === false || isObject(extra))) {
      errs.push(c.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = ctx.insideMeta ? forbidDefaults(ctx, 'inside additionalProperties applying to object metadata') : ctx;
    c.appendAll(errs, openAPISchemaCauses(extra, `${path}.additionalProperties`, sub, false));
  }
  if (isObject(schema.properties)) {
    const embedded = schema['x-kubernetes-embedded-resource'] === true;
    for (const key of Object.keys(schema.properties)) {
      let sub = ctx;
      if ((isRoot || embedded) && META_FIELDS.has(key)) {
        sub = { ...sub, insideMeta: true };
        if (isRoot) sub = forbidDefaults(sub, `in top-level ${key}`);
      }
      c.appendAll(errs, openAPISchemaCauses(schema.properties[key], `${path}.properties[${key}]`, sub, false));
    }
  }
  c.appendAll(errs, openAPISchemaCauses(schema.not, `${path}.not`, ctx, false));
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((x, i) => c.appendAll(errs, openAPISchemaCauses(x, `${path}.${key}[${i}]`, ctx, false)));
  }
  if (isObject(schema.definitions)) {
    for (const key of Object.keys(schema.definitions)) c.appendAll(errs, openAPISchemaCauses(schema.definitions[key], `${path}.definitions[${key}]`, ctx, false));
  }
  if (isObject(schema.items)) c.appendAll(errs, openAPISchemaCauses(schema.items, `${path}.items`, ctx, false));
  else if (Array.isArray(schema.items)) schema.items.forEach((x, i) => c.appendAll(errs, openAPISchemaCauses(x, `${path}.items[${i}]`, ctx, false)));
  if (isObject(schema.dependencies)) {
    for (const key of Object.keys(schema.dependencies)) c.appendAll(errs, openAPISchemaCauses(schema.dependencies[key], `${path}.dependencies[${key}]`, ctx, false));
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(c.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  c.appendAll(errs, mapAndListTypeCauses(schema, type, path));
  return errs;
}

/** specStandardValidatorV3: what OpenAPI v3 allows that CRDs do not. */
function nodeCauses(schema: Raw, path: string, ctx: Context): StatusCause[] {
  const errs: StatusCause[] = [];
  const type = str(schema.type);
  if (type !== '' && !OPENAPI_V3_TYPES.includes(type)) errs.push(c.notSupported(`${path}.type`, type, OPENAPI_V3_TYPES));
  if (schema.default !== undefined && schema.default !== null && !ctx.allowDefaults) {
    errs.push(c.forbidden(`${path}.default`, ctx.defaultsReason ? `must not be set ${ctx.defaultsReason}` : 'must not be set'));
  }
  if (str(schema.id) !== '') errs.push(c.forbidden(`${path}.id`, 'id is not supported'));
  if (schema.additionalItems !== undefined && schema.additionalItems !== null) errs.push(c.forbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (nonEmptyObject(schema.patternProperties)) errs.push(c.forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (nonEmptyObject(schema.definitions)) errs.push(c.forbidden(`${path}.definitions`, 'definitions is not supported'));
  if (schema.dependencies !== undefined && schema.dependencies !== null) errs.push(c.forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (schema.$ref !== undefined && schema.$ref !== null) errs.push(c.forbidden(`${path}.$ref`, '$ref is not supported'));
  if (type === 'null') errs.push(c.forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (nonEmptyArray(schema.items)) errs.push(c.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (ctx.insideMeta && schema['x-kubernetes-embedded-resource'] === true) {
    errs.push(c.forbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }
  return errs;
}

function mapAndListTypeCauses(schema: Raw, type: string, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const mapType = schema['x-kubernetes-map-type'];
  const listType = schema['x-kubernetes-list-type'];
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as unknown[]) : [];
  const items = isObject(schema.items) ? schema.items : undefined;
  if (typeof mapType === 'string' && type !== 'object') {
    if (type === '') errs.push(c.required(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(c.invalid(`${path}.type`, type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (typeof mapType === 'string' && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(c.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  if (typeof listType === 'string' && type !== 'array') {
    if (type === '') errs.push(c.required(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(c.invalid(`${path}.type`, type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    const itemListType = items['x-kubernetes-list-type'];
    if (items.type === 'array' && typeof itemListType === 'string' && itemListType !== 'atomic') {
      errs.push(c.invalid(`${path}.items.x-kubernetes-list-type`, itemListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube prints the items' list type here (usually unset), not their map type.
      errs.push(c.invalid(`${path}.items.x-kubernetes-map-type`, itemListType ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (typeof listType === 'string' && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(c.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (keys.length > 0) {
    if (typeof listType !== 'string') errs.push(c.required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(c.invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (keys.length === 0) errs.push(c.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (schema.items === undefined || schema.items === null) errs.push(c.required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(schema.items)) errs.push(c.invalid(`${path}.items`, schema.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') errs.push(c.invalid(`${path}.items.type`, str(items.type), "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && items.type === 'object') {
      const props = isObject(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      const keysText = { toString: () => goStringSlice(keys) };
      for (const k of keys) {
        const key = String(k);
        if (Object.hasOwn(props, key)) {
          const t = isObject(props[key]) ? str((props[key] as Raw).type) : '';
          if (t === 'array' || t === 'object') {
            errs.push(c.invalid(`${path}.items.properties[${key}].type`, 'object', "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(rawInvalid(`${path}.x-kubernetes-list-map-keys`, String(keysText), 'entries must all be names of item properties'));
        }
        if (seen.has(key)) errs.push(rawInvalid(`${path}.x-kubernetes-list-map-keys`, String(keysText), 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  c.appendAll(errs, mapListKeysMapSetCauses(items, typeof listType === 'string' ? listType : undefined, keys, path));
  return errs;
}

/** An Invalid whose bad value is already printed (a Go value that is no JSON value). */
function rawInvalid(field: string, printed: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${printed}: ${detail}`, field };
}

function mapListKeysMapSetCauses(items: Raw | undefined, listType: string | undefined, keys: unknown[], path: string): StatusCause[] {
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const errs: StatusCause[] = [];
  if (items.nullable === true) errs.push(c.forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    const required = new Set(Array.isArray(items.required) ? items.required.map(String) : []);
    const props = isObject(items.properties) ? items.properties : {};
    for (const k of keys) {
      const key = String(k);
      const prop = props[key];
      if (!Object.hasOwn(props, key) || !isObject(prop)) continue;
      if (!required.has(key) && (prop.default === undefined || prop.default === null)) {
        errs.push(c.required(`${path}.items.properties[${key}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (prop.nullable === true) {
        errs.push(c.forbidden(`${path}.items.properties[${key}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  return errs;
}

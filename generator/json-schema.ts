// Model types as JSON Schema (draft-07, what ajv compiles): the structural checks of a type
// (JSON types, required, enum, lengths, item counts, patterns and named formats, map key rules).
// The runtime checks the rest through the type table (generator/emit/validators.ts).

import type { FieldModel, Model, TypeRef } from './model.js';
import type { RawConstraints } from './raw-spec.js';
import { jsonFields } from './normalize.js';
import { JSON_SCHEMA_PROPS_ID } from './scalars.js';

type Schema = Record<string, unknown>;

const SCALAR_SCHEMA: Record<string, Schema> = {
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  int32: { type: 'integer' },
  int64: { type: 'integer' },
  number: { type: 'number' },
  bytes: { type: 'string' },
  quantity: { type: ['string', 'number'] },
  time: { type: 'string' },
  microTime: { type: 'string' },
  intOrString: { type: ['string', 'integer'] },
  duration: { type: 'string' },
  fieldsV1: { type: 'object' },
  rawExtension: { type: 'object' },
  json: {},
  // The schema unions: each JSON form is checked as what Go decodes it into (a schema object is
  // a JSONSchemaProps, a list holds schemas or names); `items` only applies to a list.
  jsonSchemaPropsOrArray: { type: ['object', 'array'], items: { $ref: `#/definitions/${JSON_SCHEMA_PROPS_ID}` }, if: { type: 'object' }, then: { $ref: `#/definitions/${JSON_SCHEMA_PROPS_ID}` } },
  jsonSchemaPropsOrBool: { type: ['boolean', 'object'], if: { type: 'object' }, then: { $ref: `#/definitions/${JSON_SCHEMA_PROPS_ID}` } },
  jsonSchemaPropsOrStringArray: { type: ['object', 'array'], items: { type: 'string' }, if: { type: 'object' }, then: { $ref: `#/definitions/${JSON_SCHEMA_PROPS_ID}` } },
};

function constraints(c: RawConstraints | undefined): Schema {
  if (!c) return {};
  const out: Schema = {};
  if (c.enum) out.enum = c.enum;
  if (c.format) out.format = c.format;
  if (c.pattern) out.pattern = c.pattern;
  if (c.minLength !== undefined) out.minLength = c.minLength;
  if (c.maxLength !== undefined) out.maxLength = c.maxLength;
  if (c.minimum !== undefined) out.minimum = c.minimum;
  if (c.maximum !== undefined) out.maximum = c.maximum;
  return out;
}

function refSchema(ref: TypeRef): Schema {
  switch (ref.kind) {
    case 'scalar':
      return { ...SCALAR_SCHEMA[ref.name] };
    case 'ref':
      return { $ref: `#/definitions/${ref.id}` };
    case 'list':
      return { type: 'array', items: refSchema(ref.of) };
    case 'map':
      return { type: 'object', additionalProperties: refSchema(ref.of) };
  }
}

export function fieldSchema(f: FieldModel): Schema {
  const s = refSchema(f.type);
  if (f.type.kind === 'list') {
    Object.assign(s.items as Schema, constraints(f.items));
    if (f.minItems !== undefined) s.minItems = f.minItems;
    if (f.maxItems !== undefined) s.maxItems = f.maxItems;
  } else if (f.type.kind === 'map') {
    Object.assign(s.additionalProperties as Schema, constraints(f.values));
    const keys = constraints(f.keys);
    if (Object.keys(keys).length) s.propertyNames = keys;
    if (f.minItems !== undefined) s.minProperties = f.minItems;
    if (f.maxItems !== undefined) s.maxProperties = f.maxItems;
  } else {
    Object.assign(s, constraints(f));
  }
  return s;
}

export function typeSchema(model: Model, id: string): Schema {
  const t = model.types.get(id);
  if (!t) throw new Error(`unknown type ${id}`);
  const properties: Schema = {};
  const required: string[] = [];
  for (const f of jsonFields(model, t)) {
    properties[f.name] = fieldSchema(f);
    if (f.required) required.push(f.name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** The id under which a module's shared definitions are registered; kinds reference into it. */
export const DEFINITIONS_ID = 'types';

/**
 * One schema holding every given type under `definitions`, for ajv to compile each type once: the
 * kinds of a module are `$ref`s into it (see kindSchema), so ObjectMeta and the other shared
 * types are not compiled again for every kind.
 */
export function definitionsSchema(model: Model, ids: string[]): Schema {
  const definitions: Schema = {};
  for (const id of ids) definitions[id] = typeSchema(model, id);
  return { $id: DEFINITIONS_ID, definitions };
}

/** A kind's root schema: a reference into the module's shared definitions. */
export function kindSchema(id: string): Schema {
  return { $ref: `${DEFINITIONS_ID}#/definitions/${id}` };
}

// Where a strategic merge patch needs to know how to merge a field: its patch strategy and merge
// key. These come from the generated OpenAPI schema (x-kubernetes-patch-strategy and
// x-kubernetes-patch-merge-key), so the engine has no per-resource knowledge.

import type { JsonSchema, SchemaIndex } from '../../machinery/openapi-schema.js';

export interface PatchMeta {
  /** e.g. ['merge'], ['merge', 'retainKeys'], ['replace']; [] when the schema says nothing. */
  strategies: string[];
  mergeKey?: string;
}

/** A position in the schema: answers for the fields of the struct (or map values) it describes. */
export interface PatchSchema {
  field(name: string): { meta: PatchMeta; schema: PatchSchema };
  /** The schema of the items, for a list field's schema. */
  items(): PatchSchema;
}

const NO_META: PatchMeta = { strategies: [] };

/** A schema that knows nothing: every list is replaced, every map merged (JSON merge patch rules). */
export const UNKNOWN_SCHEMA: PatchSchema = {
  field: () => ({ meta: NO_META, schema: UNKNOWN_SCHEMA }),
  items: () => UNKNOWN_SCHEMA,
};

/** PatchSchema views over the OpenAPI components, cached per schema node. */
export class OpenAPIPatchSchemas {
  private readonly cache = new Map<JsonSchema, PatchSchema>();

  constructor(private readonly index: SchemaIndex) {}

  /** The schema of a named component, e.g. `io.k8s.api.core.v1.Namespace`. */
  forComponent(name: string): PatchSchema {
    const schema = this.index.component(name);
    return schema ? this.view(schema) : UNKNOWN_SCHEMA;
  }

  private view(raw: JsonSchema): PatchSchema {
    const schema = this.index.resolve(raw);
    const cached = this.cache.get(schema);
    if (cached) return cached;
    const view: PatchSchema = {
      field: (name) => {
        const prop = schema.properties?.[name];
        if (prop) {
          const strategy = prop['x-kubernetes-patch-strategy'];
          return {
            meta: { strategies: strategy ? strategy.split(',') : [], mergeKey: prop['x-kubernetes-patch-merge-key'] },
            schema: this.view(prop),
          };
        }
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          return { meta: NO_META, schema: this.view(schema.additionalProperties) };
        }
        return { meta: NO_META, schema: UNKNOWN_SCHEMA };
      },
      items: () => (schema.items ? this.view(schema.items) : UNKNOWN_SCHEMA),
    };
    this.cache.set(schema, view);
    return view;
  }
}

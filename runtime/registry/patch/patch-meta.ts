// Where a strategic merge patch needs to know how to merge a field: its patch strategy and merge
// key. These come from the generated OpenAPI schema (x-kubernetes-patch-strategy and
// x-kubernetes-patch-merge-key), so the engine has no per-resource knowledge.

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

interface JsonSchema {
  $ref?: string;
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

const NO_META: PatchMeta = { strategies: [] };

/** A schema that knows nothing: every list is replaced, every map merged (JSON merge patch rules). */
export const UNKNOWN_SCHEMA: PatchSchema = {
  field: () => ({ meta: NO_META, schema: UNKNOWN_SCHEMA }),
  items: () => UNKNOWN_SCHEMA,
};

/** Builds PatchSchema views over OpenAPI v3 components (`#/components/schemas/<name>` refs). */
export class OpenAPIPatchSchemas {
  private readonly cache = new Map<JsonSchema, PatchSchema>();

  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** The schema of a named component, e.g. `io.k8s.api.core.v1.Namespace`. */
  forComponent(name: string): PatchSchema {
    const schema = this.components[name];
    return schema ? this.view(schema) : UNKNOWN_SCHEMA;
  }

  private resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    // kube-openapi wraps references as allOf: [{$ref}] to attach a description or default.
    for (let depth = 0; depth < 16; depth++) {
      if (current.$ref) {
        const name = current.$ref.slice(current.$ref.lastIndexOf('/') + 1);
        current = this.components[name] ?? {};
      } else if (!current.properties && !current.items && current.allOf?.length === 1) {
        current = current.allOf[0];
      } else {
        break;
      }
    }
    return current;
  }

  private view(raw: JsonSchema): PatchSchema {
    const schema = this.resolve(raw);
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

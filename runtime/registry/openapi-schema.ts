// Read access to the generated OpenAPI v3 components, shared by everything in the runtime that is
// driven by the schema (strategic merge patch, unknown-field pruning). Resolves the
// `allOf: [{$ref}]` wrapping kube-openapi uses to attach a description or default to a reference.

export interface JsonSchema {
  $ref?: string;
  allOf?: JsonSchema[];
  type?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

export class SchemaIndex {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  component(name: string): JsonSchema | undefined {
    return this.components[name];
  }

  /** Follows references until a schema with its own shape is reached. */
  resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    for (let depth = 0; depth < 32; depth++) {
      if (current.$ref) {
        current = this.components[current.$ref.slice(current.$ref.lastIndexOf('/') + 1)] ?? {};
      } else if (!current.properties && !current.items && !current.additionalProperties && current.allOf?.length === 1) {
        current = current.allOf[0];
      } else {
        return current;
      }
    }
    return current;
  }
}

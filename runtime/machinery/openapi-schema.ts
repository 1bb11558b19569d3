import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedPath } from '../generated-files.js';

// Read access to the generated OpenAPI v3 components, shared by everything in the runtime that is
// driven by the schema (strategic merge patch, unknown-field pruning). Resolves the
// `allOf: [{$ref}]` wrapping kube-openapi uses to attach a description or default to a reference.

export interface JsonSchema {
  $ref?: string;
  allOf?: JsonSchema[];
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

export class SchemaIndex {
  /**
   * resolve()'s answers: schemas never change, and the schema walks of every write (pruning,
   * defaulting, omitempty, quantities, managed fields) ask for the same few schemas over and over,
   * where each uncached answer is a substring and a lookup among thousands of component names.
   */
  private readonly resolved = new WeakMap<JsonSchema, JsonSchema>();

  constructor(private readonly components: Record<string, JsonSchema>) {}

  component(name: string): JsonSchema | undefined {
    return this.components[name];
  }

  /** Every component by name. */
  all(): Readonly<Record<string, JsonSchema>> {
    return this.components;
  }

  /** Follows references until a schema with its own shape is reached. */
  resolve(schema: JsonSchema): JsonSchema {
    let answer = this.resolved.get(schema);
    if (answer === undefined) {
      answer = this.follow(schema);
      this.resolved.set(schema, answer);
    }
    return answer;
  }

  private follow(schema: JsonSchema): JsonSchema {
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

let generated: SchemaIndex | undefined;

/** The components of every generated OpenAPI v3 document, read once on first use. */
export function generatedSchemaIndex(): SchemaIndex {
  if (!generated) {
    const dir = generatedPath('openapi/v3/');
    const components: Record<string, JsonSchema> = {};
    for (const file of readdirSync(dir).sort()) {
      const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { components?: { schemas?: Record<string, JsonSchema> } };
      Object.assign(components, doc.components?.schemas ?? {});
    }
    generated = new SchemaIndex(components);
  }
  return generated;
}

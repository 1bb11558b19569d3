// Where a kind holds Go []byte values (OpenAPI `format: byte`: Secret data, ConfigMap binaryData,
// ...), which kube-apiserver's CBOR serializer treats differently from strings: it writes them as
// byte strings of the raw bytes inside tag 22 ("expected later base64 encoding"), and reads a
// tagged byte string as raw bytes, an untagged one as base64 text, and a text string not at all.
// Our objects hold such values as base64 text (their JSON form), so the CBOR codec converts them
// at exactly these places, found here from the generated schema.

import { generatedSchemaIndex, type JsonSchema, type SchemaIndex } from '../machinery/openapi-schema.js';

/** The places of []byte values within a value: the value itself, or some of its members/items. */
export type ByteShape = typeof BYTES | ByteContainer;

export const BYTES = 'bytes' as const;

export interface ByteContainer {
  properties?: Map<string, ByteShape>;
  additional?: ByteShape;
  items?: ByteShape;
}

type GroupVersionKind = { group?: string; version?: string; kind?: string };

class ByteShapes {
  private readonly byComponent = new Map<string, ByteShape | undefined>();
  private readonly byKind = new Map<string, string>();

  constructor(private readonly index: SchemaIndex, components: Record<string, JsonSchema>) {
    for (const [name, schema] of Object.entries(components)) {
      const gvks = (schema as { 'x-kubernetes-group-version-kind'?: GroupVersionKind[] })['x-kubernetes-group-version-kind'] ?? [];
      for (const gvk of gvks) this.byKind.set(`${gvk.group ? `${gvk.group}/` : ''}${gvk.version}/${gvk.kind}`, name);
    }
  }

  forKind(apiVersion: string, kind: string): ByteShape | undefined {
    const component = this.byKind.get(`${apiVersion}/${kind}`);
    return component ? this.forComponent(component) : undefined;
  }

  private forComponent(name: string): ByteShape | undefined {
    if (this.byComponent.has(name)) return this.byComponent.get(name);
    // A recursive type (JSONSchemaProps) reads as holding no bytes while it is being walked.
    this.byComponent.set(name, undefined);
    const schema = this.index.component(name);
    const shape = schema ? this.walk(schema) : undefined;
    this.byComponent.set(name, shape);
    return shape;
  }

  private walk(raw: JsonSchema): ByteShape | undefined {
    const ref = raw.$ref ?? (raw.allOf?.length === 1 && !raw.properties && !raw.items ? raw.allOf[0].$ref : undefined);
    if (ref) return this.forComponent(ref.slice(ref.lastIndexOf('/') + 1));
    const schema = this.index.resolve(raw) as JsonSchema & { format?: string };
    if (schema.type === 'string' && schema.format === 'byte') return BYTES;
    const out: ByteContainer = {};
    if (schema.properties) {
      for (const [key, child] of Object.entries(schema.properties)) {
        const shape = this.walk(child);
        if (shape) (out.properties ??= new Map()).set(key, shape);
      }
    }
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out.additional = this.walk(schema.additionalProperties);
    if (schema.items) out.items = this.walk(schema.items);
    return out.properties || out.additional || out.items ? out : undefined;
  }
}

let shapes: ByteShapes | undefined;

/** The []byte places of an object of this apiVersion and kind (lists included); undefined for none. */
export function byteShapeFor(apiVersion: unknown, kind: unknown): ByteShape | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  if (!shapes) {
    const index = generatedSchemaIndex();
    shapes = new ByteShapes(index, index.all());
  }
  return shapes.forKind(apiVersion, kind);
}

/** The shape of a member of a value of shape `shape`. */
export function memberShape(shape: ByteShape | undefined, key: string): ByteShape | undefined {
  if (!shape || shape === BYTES) return undefined;
  return shape.properties?.get(key) ?? shape.additional;
}

/** The shape of an item of a list value of shape `shape`. */
export function itemShape(shape: ByteShape | undefined): ByteShape | undefined {
  return shape && shape !== BYTES ? shape.items : undefined;
}

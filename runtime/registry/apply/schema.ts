// How structured-merge-diff sees a schema node, read from the generated OpenAPI v3 the way
// kube-openapi's schema conversion reads it: objects are maps whose named properties are struct
// fields and whose additionalProperties type their other entries; lists are atomic unless
// x-kubernetes-list-type says set or map (with x-kubernetes-list-map-keys), or a merge patch
// strategy implies it; x-kubernetes-map-type: atomic makes an object one leaf. Nodes without a
// schema (preserve-unknown-fields, untyped) are "deduced" from the value, as structured-merge-diff
// does: objects granular, lists atomic.

import type { JsonSchema, SchemaIndex } from '../../machinery/openapi-schema.js';
import { fieldElement, type PathElement } from './fieldpath.js';

/** The OpenAPI extensions the apply engine reads, beyond what the shared JsonSchema names. */
export type ApplySchema = JsonSchema & {
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  default?: unknown;
};

export type ListType = 'atomic' | 'set' | 'map';

export type TypeNode =
  | { kind: 'scalar' }
  | { kind: 'deduced' }
  | { kind: 'list'; listType: ListType; keys: string[]; item: () => TypeNode; keyDefault: (key: string) => unknown }
  | { kind: 'map'; atomic: boolean; field: (name: string) => FieldType | undefined };

/** A map entry's type, and whether it is a declared struct field (false: an entry of an open map). */
export interface FieldType {
  node: TypeNode;
  declared: boolean;
  /**
   * A declared field's path element (`f:<name>`), made once: every write walks the same names,
   * and one string per name saves building and hashing a new one each time.
   */
  element?: PathElement;
}

export const DEDUCED: TypeNode = { kind: 'deduced' };

export class TypedSchema {
  private readonly cache = new Map<JsonSchema, TypeNode>();

  constructor(private readonly index: SchemaIndex) {}

  /** The node of a named OpenAPI component; deduced when the component is unknown. */
  forComponent(name: string): TypeNode {
    const schema = this.index.component(name);
    return schema ? this.node(schema) : DEDUCED;
  }

  node(raw: JsonSchema): TypeNode {
    // The extensions on an allOf-wrapped reference belong to the field, not the referenced type.
    const cached = this.cache.get(raw);
    if (cached) return cached;
    const node = this.build(raw as ApplySchema, this.index.resolve(raw) as ApplySchema);
    this.cache.set(raw, node);
    return node;
  }

  private build(outer: ApplySchema, schema: ApplySchema): TypeNode {
    if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return DEDUCED;
    const ext = <K extends keyof ApplySchema>(k: K): ApplySchema[K] => outer[k] ?? schema[k];
    if (schema.type === 'array' || schema.items) {
      const items = schema.items;
      const item = items ? () => this.node(items) : () => DEDUCED;
      const listType = ext('x-kubernetes-list-type');
      let type: ListType = 'atomic';
      let keys: string[] = [];
      if (listType === 'set') type = 'set';
      else if (listType === 'map') {
        type = 'map';
        keys = ext('x-kubernetes-list-map-keys') ?? [];
      } else if (!listType && (ext('x-kubernetes-patch-strategy') ?? '').split(',').includes('merge')) {
        const mergeKey = ext('x-kubernetes-patch-merge-key');
        type = mergeKey ? 'map' : 'set';
        keys = mergeKey ? [mergeKey] : [];
      }
      const keyDefault = (key: string): unknown => {
        if (!items) return undefined;
        const itemSchema = this.index.resolve(items);
        const prop = itemSchema.properties?.[key] as ApplySchema | undefined;
        return prop?.default ?? (prop ? (this.index.resolve(prop) as ApplySchema).default : undefined);
      };
      return { kind: 'list', listType: type, keys, item, keyDefault };
    }
    if (schema.type === 'object' || schema.properties || schema.additionalProperties !== undefined) {
      const props = schema.properties ?? {};
      const extra = schema.additionalProperties;
      const open = schema['x-kubernetes-preserve-unknown-fields'] === true || extra === true;
      // Every write walks its object through these lookups: a declared field's type is built once
      // (the names are the schema's, so the memo is bounded); any other entry shares one answer.
      const declared = new Map<string, FieldType>();
      let other: FieldType | undefined | null = null;
      const otherEntry = (): FieldType | undefined => {
        if (extra && typeof extra === 'object') return { node: this.node(extra), declared: false };
        if (open) return { node: DEDUCED, declared: false };
        // An object schema with neither properties nor additionalProperties is a free-form map.
        if (!schema.properties && extra === undefined) return { node: DEDUCED, declared: false };
        return undefined;
      };
      return {
        kind: 'map',
        atomic: ext('x-kubernetes-map-type') === 'atomic',
        field: (name) => {
          const known = declared.get(name);
          if (known) return known;
          const prop = Object.hasOwn(props, name) ? props[name] : undefined;
          if (prop) {
            const field = { node: this.node(prop), declared: true, element: fieldElement(name) };
            declared.set(name, field);
            return field;
          }
          if (other === null) other = otherEntry();
          return other;
        },
      };
    }
    if (schema.type) return { kind: 'scalar' };
    return DEDUCED;
  }
}

/** A JSON object: not null, not a list. */
export function isObjectValue(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

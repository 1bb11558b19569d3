// The JSON a Go zero value encodes to, as decoding a null leaves it (see registry/null-members.ts
// for where it applies): "" for strings, 0 for numbers, false for booleans, {} for structs. Maps,
// lists and pointers encode nil as null again. Of the types with their own decoding, a Quantity
// takes a null as its zero, "0" (its UnmarshalJSON and MarshalJSON); times, int-or-string and
// other formats have zero values the schema cannot spell: for those, none.

import { QUANTITY_REF } from '../canonical-quantities.js';
import type { JsonSchema, SchemaIndex } from '../openapi-schema.js';

export type ZeroKind = 'string' | 'number' | 'bool' | 'struct' | 'quantity';

/** The zero value's kind for a schema whose references are resolved, or undefined when null stays null. */
export function zeroKindOf(schema: JsonSchema, index: SchemaIndex): ZeroKind | undefined {
  // The Quantity component is a plain string schema; only its identity tells it from one.
  if (schema === index.component(QUANTITY_REF)) return 'quantity';
  const special = (schema as { format?: string }).format !== undefined || (schema as Record<string, unknown>)['x-kubernetes-int-or-string'] === true;
  if (special) return undefined;
  if (schema.properties) return 'struct';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return undefined;
  }
}

/** A zero value of the kind, a fresh object for a struct (whatever fills it later must not share it). */
export function zeroOf(kind: ZeroKind | undefined): unknown {
  switch (kind) {
    case 'string':
      return '';
    case 'number':
      return 0;
    case 'bool':
      return false;
    case 'struct':
      return {};
    case 'quantity':
      return '0';
    default:
      return undefined;
  }
}

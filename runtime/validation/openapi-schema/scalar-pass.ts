// A shortcut for the commonest values of a custom resource: a string, number or boolean under a
// plain scalar schema (one type, no format, no combinators). The predicate says whether the value
// certainly passes every check of its node, so the validator can skip building the field name and
// running the full check; anything it is not sure of (a failure, a bound it does not model) it
// leaves to the full check, which then reports with kube's messages.

import { isGoInt } from './go-print.js';
import type { SchemaNode } from './structural.js';

export type ScalarPass = (value: unknown) => boolean;

/** The predicate of a plain scalar node; undefined for any other node. */
export function scalarPassOf(node: SchemaNode): ScalarPass | undefined {
  const plain =
    node.types.length === 1 &&
    node.format === '' &&
    !node.intOrString &&
    node.multipleOf === undefined &&
    node.properties === undefined &&
    node.additionalProperties === undefined &&
    node.items === undefined &&
    node.allOf === undefined &&
    node.anyOf === undefined &&
    node.oneOf === undefined &&
    node.not === undefined;
  if (!plain) return undefined;
  const { enum: allowed, maxLength, minLength, regexp, minimum, maximum, exclusiveMinimum, exclusiveMaximum } = node;
  // Enum members are JSON values; a scalar equals one exactly when it is ===.
  const inEnum = (v: unknown): boolean => allowed === undefined || allowed.includes(v);
  const inRange = (v: number): boolean => {
    const asInt = isGoInt(v);
    if (minimum !== undefined) {
      const min = asInt ? Math.trunc(minimum) : minimum;
      if (exclusiveMinimum ? v <= min : v < min) return false;
    }
    if (maximum !== undefined) {
      const max = asInt ? Math.trunc(maximum) : maximum;
      if (exclusiveMaximum ? v >= max : v > max) return false;
    }
    return true;
  };
  switch (node.types[0]) {
    case 'string':
      // UTF-16 length bounds the rune count from above, and from below at half: outside those, ask the full check.
      return (v) =>
        typeof v === 'string' &&
        (maxLength === undefined || v.length <= maxLength) &&
        (minLength === undefined || v.length >= minLength * 2) &&
        (regexp === undefined || regexp.test(v)) &&
        inEnum(v);
    case 'boolean':
      return (v) => typeof v === 'boolean' && inEnum(v);
    case 'integer':
      return (v) => typeof v === 'number' && isGoInt(v) && inRange(v) && inEnum(v);
    case 'number':
      return (v) => typeof v === 'number' && inRange(v) && inEnum(v);
    default:
      return undefined;
  }
}

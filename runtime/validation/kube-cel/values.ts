// JSON values as the CEL values rules see (apiextensions UnstructuredToVal): objects as maps of
// their declared properties under their escaped names (unknown fields are not visible), integers
// as BigInts, `number` fields as doubles, `format: byte` as bytes, `duration` and `date-time` as
// durations and timestamps; int-or-string stays an int or a string.

import { Duration } from './cel-classes.js';
import { parseGoDurationNs } from '../../machinery/duration.js';
import type { DeclNode } from './decl.js';
import { tagList } from './list-equality.js';

/** A JSON number as CEL sees it without a schema: integral numbers are ints. */
function dynNumber(n: number): bigint | number {
  return Number.isSafeInteger(n) ? BigInt(n) : n;
}

/** A JSON value without a schema (inside int-or-string or maps of unknown values). */
export function dynValue(v: unknown): unknown {
  if (typeof v === 'number') return dynNumber(v);
  if (Array.isArray(v)) return v.map(dynValue);
  if (v && typeof v === 'object') {
    const out = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) out.set(k, dynValue(x));
    return out;
  }
  return v;
}

function toDuration(text: string): unknown {
  try {
    const ns = parseGoDurationNs(text);
    return new Duration(ns / 1_000_000_000n, Number(ns % 1_000_000_000n));
  } catch {
    // The schema's format check reports a malformed duration; the rule sees the text.
    return text;
  }
}

/** The CEL value of `v` under the declaration `d`. */
export function celValue(v: unknown, d: DeclNode | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (!d) return dynValue(v);
  switch (d.kind) {
    case 'object': {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return dynValue(v);
      const out = new Map<string, unknown>();
      for (const [name, field] of d.fields ?? []) {
        const x = (v as Record<string, unknown>)[field.jsonName];
        if (x !== undefined && Object.prototype.hasOwnProperty.call(v, field.jsonName)) out.set(name, celValue(x, field.decl));
      }
      return out;
    }
    case 'map': {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return dynValue(v);
      const out = new Map<string, unknown>();
      for (const [k, x] of Object.entries(v)) out.set(k, celValue(x, d.elem));
      return out;
    }
    case 'list':
      return Array.isArray(v) ? tagList(v.map((x) => celValue(x, d.elem)), d.schema['x-kubernetes-list-type']) : dynValue(v);
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : dynValue(v);
    case 'double':
      return typeof v === 'number' ? v : dynValue(v);
    case 'bytes':
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
    case 'duration':
      return typeof v === 'string' ? toDuration(v) : v;
    case 'timestamp': {
      if (typeof v !== 'string') return v;
      const t = new Date(v);
      return Number.isNaN(t.getTime()) ? v : t;
    }
    default:
      return dynValue(v);
  }
}

/**
 * The CEL value of an object of which a rule reads only `names` (CEL field names): those fields
 * alone, as celValue would give them. Any other value is converted whole.
 */
export function celFields(v: unknown, d: DeclNode | undefined, names: ReadonlySet<string>): unknown {
  if (d?.kind !== 'object' || !v || typeof v !== 'object' || Array.isArray(v)) return celValue(v, d);
  const out = new Map<string, unknown>();
  for (const name of names) {
    const field = d.fields?.get(name);
    if (!field) continue;
    const x = (v as Record<string, unknown>)[field.jsonName];
    if (x !== undefined && Object.prototype.hasOwnProperty.call(v, field.jsonName)) out.set(name, celValue(x, field.decl));
  }
  return out;
}

// Computes one Table cell per PrinterColumn: a simple JSONPath, a CEL expression over `self`,
// the age of a timestamp, or a named printer function. kubectl prints cells as they come, so
// values keep their JSON types (CEL integers, which are BigInts in cel-js, become numbers). A
// column that cannot be computed for an object gives a null cell (kubectl shows <none>), never
// an error.

import { Environment } from '@marcbachmann/cel-js';
import type { PrinterColumn } from '../registry/definition.js';
import { ageOf } from '../machinery/human-duration.js';
import { PRINTERS } from './printers/index.js';
import { customResourceCell } from './custom-resource-cells.js';
import { setMember } from '../machinery/own-member.js';

type JsonObject = Record<string, unknown>;
export type CellFn = (obj: JsonObject, now: Date) => unknown;

/** `.metadata.name`, `{.status.phase}`, `.spec.ports[0].port`, `.metadata.labels['app.kubernetes.io/name']`. */
export function parseJsonPath(path: string): (string | number)[] {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  const steps: (string | number)[] = [];
  const token = /\.((?:\\.|[^.[\\])+)|\[(\d+)\]|\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\]/y;
  let at = 0;
  while (at < p.length) {
    token.lastIndex = at;
    const m = token.exec(p);
    if (!m) throw new Error(`unsupported JSONPath ${JSON.stringify(path)} at offset ${at}`);
    if (m[1] !== undefined) steps.push(m[1].replace(/\\(.)/g, '$1'));
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push(m[3] ?? m[4]);
    at = token.lastIndex;
  }
  return steps;
}

function lookup(obj: unknown, steps: (string | number)[]): unknown {
  let value = obj;
  for (const step of steps) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/** CEL values in JSON terms: BigInt to number, Map to object, recursively. */
function toJsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Map) {
    const out: JsonObject = {};
    for (const [k, v] of value) setMember(out, String(k), toJsonValue(v));
    return out;
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}

/** Made by the first CEL column compiled (a Table request), not at every start: building CEL's standard library is costly. */
let celEnvironment: Environment | undefined;
const compiled = new Map<string, CellFn>();

function compileColumn(column: PrinterColumn): CellFn {
  if (column.printer !== undefined) {
    const printer = PRINTERS[column.printer];
    if (!printer) throw new Error(`printer column ${column.name} names unknown printer ${column.printer}`);
    return (obj, now) => {
      try {
        return printer(obj, now);
      } catch {
        return null;
      }
    };
  }
  if (column.age !== undefined) {
    // Several paths separated by `|`: the first that holds a value is shown (Event's Last Seen).
    const alternatives = column.age.split('|').map(parseJsonPath);
    return (obj, now) => {
      for (const steps of alternatives) {
        const value = lookup(obj, steps);
        if (value !== undefined && value !== null && value !== '') return ageOf(value, now);
      }
      return ageOf(undefined, now);
    };
  }
  if (column.cel !== undefined) {
    celEnvironment ??= new Environment({ unlistedVariablesAreDyn: true });
    const program = celEnvironment.parse(column.cel);
    return (obj) => {
      try {
        return toJsonValue(program({ self: obj })) ?? null;
      } catch {
        return null;
      }
    };
  }
  if (column.crdJSONPath !== undefined) return customResourceCell(column.type, column.crdJSONPath);
  if (column.jsonPath !== undefined) {
    const steps = parseJsonPath(column.jsonPath);
    return (obj) => lookup(obj, steps) ?? null;
  }
  throw new Error(`printer column ${column.name} has no jsonPath, cel, age, printer or crdJSONPath`);
}

/** The cell function of a column, compiled once per distinct definition. */
export function cellFunction(column: PrinterColumn): CellFn {
  const key = [column.age, column.cel, column.jsonPath, column.printer, column.crdJSONPath, column.crdJSONPath === undefined ? '' : column.type]
    .map((part) => part ?? '')
    .join('\u0000');
  let fn = compiled.get(key);
  if (!fn) {
    fn = compileColumn(column);
    compiled.set(key, fn);
  }
  return fn;
}

// The cells of a CustomResourceDefinition's additionalPrinterColumns, as kube-apiserver's CRD
// table convertor (apiextensions-apiserver registry/customresource/tableconvertor) computes them:
// the column's path wrapped in `{}` and evaluated with missing keys allowed; only the first
// result counts; a `string` column prints it as Go's fmt would, the other types take the value
// only when it has their JSON type (an integer column truncates a float), and a `date` column
// shows the age of an RFC 3339 timestamp. Anything else, an evaluation error included, is a nil
// cell (kubectl prints <none>).

import { humanDuration } from '../machinery/human-duration.js';
import { findJSONPathResults, goPrint, parseColumnJSONPath } from '../machinery/jsonpath.js';
import type { PrinterColumn } from '../registry/definition.js';

type JsonObject = Record<string, unknown>;

// Go's time.RFC3339 layout, which metav1.Time.UnmarshalQueryParameter parses with.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function dateCell(value: string, now: Date): string {
  // An empty (or JSON-null) timestamp is Go's zero time.
  if (value === '' || value === 'null') return '<unknown>';
  const at = RFC3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) return '<invalid>';
  return humanDuration(now.getTime() - at);
}

function typedCell(type: PrinterColumn['type'], value: unknown, now: Date): unknown {
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    case 'string':
      // A null value reaches Go's printer as no value at all.
      return value === null ? '<no value>' : goPrint(value);
    default:
      return null;
  }
}

/** The cell function of one column; the path must parse (customResourcePrinterColumns keeps only those). */
export function customResourceCell(type: PrinterColumn['type'], path: string): (obj: JsonObject, now: Date) => unknown {
  const parsed = parseColumnJSONPath(path);
  return (obj, now) => {
    let results: unknown[][];
    try {
      results = findJSONPathResults(parsed, obj, { allowMissingKeys: true });
    } catch {
      return null;
    }
    const first = results[0];
    if (!first || first.length === 0) return null;
    return typedCell(type, first[0], now);
  };
}

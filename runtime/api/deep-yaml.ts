// YAML for values deeper than the yaml package can write: its stringify recurses and runs out of
// stack at about 700 levels, while an object may nest 10,000 (Go's limit, which kube-apiserver's
// go-yaml encoder takes). This writer lays out the block style of encodeYAML's options (2-space
// indentation, sequences not indented under their key) with an explicit stack, and has the
// package word every scalar and key, so quoting and block scalars are the package's own.

import { stringify as stringifyYaml } from 'yaml';

const SCALAR_OPTIONS = { lineWidth: 0, minContentWidth: 0 } as const;

/** A scalar as the package writes it, the lines of a block scalar after its first indented by `indent`. */
function scalarText(value: unknown, indent: number): string {
  const text = stringifyYaml(value, SCALAR_OPTIONS).replace(/\n$/, '');
  return indent === 0 || !text.includes('\n') ? text : text.replace(/\n(?!\n)/g, `\n${' '.repeat(indent)}`);
}

/** A mapping key as the package writes it; a key of several lines in double quotes, which any YAML reads. */
function keyText(key: string, known: Map<string, string>): string {
  let text = known.get(key);
  if (text === undefined) {
    text = scalarText(key, 0);
    if (text.includes('\n')) text = JSON.stringify(key);
    known.set(key, text);
  }
  return text;
}

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';
const isEmpty = (value: object) => (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0);

/** A scalar, or an empty mapping or sequence in flow style, as the package writes them. */
function inlineText(value: unknown, indent: number): string {
  if (!isContainer(value)) return scalarText(value, indent);
  return Array.isArray(value) ? '[]' : '{}';
}

/**
 * A container being written: its entries, the next one to write, the indentation of its lines,
 * and the text its first line starts with (a parent sequence's "- " puts it on the dash's line).
 */
interface Frame {
  entries: [string | undefined, unknown][];
  next: number;
  indent: number;
  lead: string;
}

const frameOf = (value: object, indent: number, lead: string): Frame => ({
  entries: Array.isArray(value) ? value.map((item: unknown) => [undefined, item]) : Object.entries(value),
  next: 0,
  indent,
  lead,
});

/** encodeYAML's text of a JSON value whose keys are sorted already, at any depth. */
export function deepYAML(root: unknown): string {
  if (!isContainer(root) || isEmpty(root)) return `${inlineText(root, 0)}\n`;
  const lines: string[] = [];
  // A deep value repeats the same few keys at every level: each is worded once.
  const keys = new Map<string, string>();
  const open: Frame[] = [frameOf(root, 0, '')];
  while (open.length > 0) {
    const frame = open[open.length - 1];
    if (frame.next === frame.entries.length) {
      open.pop();
      continue;
    }
    const [key, value] = frame.entries[frame.next];
    const start = frame.next++ === 0 ? frame.lead : ' '.repeat(frame.indent);
    const nested = isContainer(value) && !isEmpty(value);
    if (key === undefined) {
      // A sequence item: a nested container starts on the dash's line, indented past it.
      if (nested) open.push(frameOf(value, frame.indent + 2, `${start}- `));
      else lines.push(`${start}- ${inlineText(value, frame.indent + 2)}`);
      continue;
    }
    const line = `${start}${keyText(key, keys)}:`;
    if (!nested) {
      lines.push(`${line} ${inlineText(value, frame.indent + 2)}`);
      continue;
    }
    lines.push(line);
    const indent = Array.isArray(value) ? frame.indent : frame.indent + 2;
    open.push(frameOf(value, indent, ' '.repeat(indent)));
  }
  return `${lines.join('\n')}\n`;
}

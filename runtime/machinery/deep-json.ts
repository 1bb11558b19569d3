// V8's JSON.stringify recurses in native code and runs out of stack at about 4,500 levels, while
// Go's decoders (and so a body kube-apiserver accepts) nest up to 10,000. stringifyJSON is
// JSON.stringify's output at any depth: the native writer first, which every ordinary object
// passes at no extra cost, and a writer with an explicit stack only for a value it cannot take.

/** JSON.stringify(value, null, indent) for values of any depth; a value JSON has no text for is 'null'. */
export function stringifyJSON(value: unknown, indent = 0): string {
  try {
    return JSON.stringify(value, null, indent) ?? 'null';
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
  }
  return writeJSON(value, ' '.repeat(indent));
}

/** A marker depth: the entry on the stack is text to write as it is. */
const TEXT = -1;

/**
 * The writer with an explicit stack. Each entry is a value to write at a depth, or text (commas,
 * member names, closing brackets) already laid out; a container pushes its closing bracket, then
 * its members in reverse, so they come off the stack in order.
 */
function writeJSON(root: unknown, indent: string): string {
  const parts: string[] = [];
  const entries: unknown[] = [root];
  const depths: number[] = [0];
  while (entries.length > 0) {
    const entry = entries.pop();
    const depth = depths.pop()!;
    if (depth === TEXT) {
      parts.push(entry as string);
      continue;
    }
    const value = jsonValueOf(entry);
    if (value === null || typeof value !== 'object') {
      // Scalars as the native writer words them (an array's undefined or function is null).
      parts.push(JSON.stringify(value) ?? 'null');
      continue;
    }
    const inner = indent ? `\n${indent.repeat(depth + 1)}` : '';
    const outer = indent ? `\n${indent.repeat(depth)}` : '';
    if (Array.isArray(value)) {
      if (value.length === 0) {
        parts.push('[]');
        continue;
      }
      parts.push('[');
      entries.push(`${outer}]`);
      depths.push(TEXT);
      for (let i = value.length - 1; i >= 0; i--) {
        entries.push(value[i], i === 0 ? inner : `,${inner}`);
        depths.push(depth + 1, TEXT);
      }
      continue;
    }
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((key) => hasText(jsonValueOf(obj[key])));
    if (keys.length === 0) {
      parts.push('{}');
      continue;
    }
    parts.push('{');
    entries.push(`${outer}}`);
    depths.push(TEXT);
    const colon = indent ? ': ' : ':';
    for (let i = keys.length - 1; i >= 0; i--) {
      entries.push(obj[keys[i]], `${i === 0 ? '' : ','}${inner}${JSON.stringify(keys[i])}${colon}`);
      depths.push(depth + 1, TEXT);
    }
  }
  return parts.join('');
}

/** The value a member is written as: its toJSON's result when it has one (a Date's string). */
function jsonValueOf(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON: () => unknown }).toJSON();
  }
  return value;
}

/** Whether an object member is written at all: undefined, functions and symbols are left out. */
const hasText = (value: unknown) => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';

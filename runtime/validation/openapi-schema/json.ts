// Plain JSON values as decoded request bodies hold them: strict equality (an empty list is not an
// absent one, as Go's reflect.DeepEqual sees decoded values), copies and a canonical text, all safe
// for keys such as `__proto__`. Bodies may nest 10000 levels (the decoder's limit), deeper than
// recursion is safe, so these walk with explicit stacks.

import { setMember } from '../../machinery/own-member.js';

type Obj = Record<string, unknown>;

const isContainer = (v: unknown): v is Obj | unknown[] => typeof v === 'object' && v !== null;

export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (!isContainer(x) || !isContainer(y)) return false;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const k of keys) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as Obj)[k], (y as Obj)[k]]);
    }
  }
  return true;
}

/** A deep copy; own keys are defined, never assigned, so `__proto__` stays a key. */
export function jsonCopy<T>(value: T): T {
  if (!isContainer(value)) return value;
  const root: Obj | unknown[] = Array.isArray(value) ? [] : {};
  const stack: [Obj | unknown[], Obj | unknown[]][] = [[value, root]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    if (Array.isArray(from)) {
      const target = to as unknown[];
      for (let i = 0; i < from.length; i++) {
        const v = from[i];
        if (isContainer(v)) {
          const copy = Array.isArray(v) ? [] : {};
          target[i] = copy;
          stack.push([v, copy]);
        } else target[i] = v;
      }
      continue;
    }
    for (const k of Object.keys(from)) {
      const v = from[k];
      if (isContainer(v)) {
        const copy = Array.isArray(v) ? [] : {};
        setMember(to as Obj, k, copy);
        stack.push([v, copy]);
      } else setMember(to as Obj, k, v);
    }
  }
  return root as T;
}

/** Punctuation waiting on canonicalJSON's stack between the values still to write. */
class Text {
  constructor(readonly text: string) {}
}

/** JSON with object keys sorted (Go's json.Marshal of a decoded value), so equal values give equal text. */
export function canonicalJSON(value: unknown): string {
  const parts: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Text) {
      parts.push(item.text);
    } else if (Array.isArray(item)) {
      parts.push('[');
      stack.push(new Text(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(new Text(','));
      }
    } else if (isContainer(item)) {
      const keys = Object.keys(item).sort();
      parts.push('{');
      stack.push(new Text('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push((item as Obj)[keys[i]]);
        stack.push(new Text(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
    } else {
      parts.push(JSON.stringify(item) ?? 'null');
    }
  }
  return parts.join('');
}

/** Go's json.Marshal of a decoded value: canonicalJSON with <, > and & escaped as Go escapes them. */
export function goMarshal(value: unknown): string {
  return canonicalJSON(value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// cel-go's strings extension at version 2 (kube 1.33's base environment: ext.Strings(StringsVersion(2))),
// the functions cel-js lacks: charAt, replace, strings.quote and format. Indexes count code
// points, as Go's strings extension does. (reverse() came with version 3, which kube 1.33 does not use.)

import type { Environment } from '@marcbachmann/cel-js';
import { formatString } from './format-string.js';

class StringsNamespace {}

const codePoints = (s: string): string[] => Array.from(s);

export function charAt(s: string, index: bigint): string {
  const chars = codePoints(s);
  const i = Number(index);
  if (i < 0 || i > chars.length) throw new Error(`index out of range: ${index}`);
  return chars[i] ?? '';
}

/** Go's strings.Replace: at most `limit` replacements (all when negative); "" matches between code points. */
export function replace(s: string, from: string, to: string, limit = -1n): string {
  const max = limit < 0n ? Infinity : Number(limit);
  if (from === '') {
    const chars = codePoints(s);
    let out = '';
    let done = 0;
    for (let i = 0; i <= chars.length; i++) {
      if (done < max) {
        out += to;
        done++;
      }
      out += chars[i] ?? '';
    }
    return out;
  }
  let out = '';
  let rest = s;
  for (let done = 0; done < max; done++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
  }
  return out + rest;
}

const QUOTE_ESCAPES: Record<string, string> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"',
};

/** strings.quote: a CEL string literal for `s`. */
export function quote(s: string): string {
  let out = '"';
  for (const c of s) out += QUOTE_ESCAPES[c] ?? (c === '\uFFFD' ? '\uFFFD' : c);
  return `${out}"`;
}

export function registerStrings(env: Environment): void {
  env.registerType('kubernetes.StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'kubernetes.StringsNamespace', new StringsNamespace());
  env.registerFunction('kubernetes.StringsNamespace.quote(string): string', (_ns: unknown, s: string) => quote(s));
  env.registerFunction('string.charAt(int): string', charAt);
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b));
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerFunction('string.format(list<dyn>): string', (s: string, args: unknown[]) => formatString(s, args));
}

// kube's regex library (apiserver pkg/cel/library/regex.go): find and findAll, on RE2-safe
// expressions (re2.ts), charged as cel-go charges a regular expression.

import type { Environment } from '@marcbachmann/cel-js';
import { compileRE2, RegexError } from '../re2.js';
import { charge } from '../runtime-cost.js';

function regex(pattern: string, subject: string, flags = ''): RegExp {
  charge(Math.ceil((subject.length + 1) * 0.1) * Math.ceil(pattern.length * 0.25));
  try {
    return compileRE2(pattern, flags);
  } catch (err) {
    if (err instanceof RegexError) throw new Error(`invalid regex: ${err.message}`);
    throw err;
  }
}

export function find(s: string, pattern: string): string {
  return regex(pattern, s).exec(s)?.[0] ?? '';
}

export function findAll(s: string, pattern: string, limit = -1n): string[] {
  if (limit === 0n) return [];
  const re = regex(pattern, s, 'g');
  const out: string[] = [];
  let m: RegExpExecArray | null;
  let lastEnd = -1;
  while ((m = re.exec(s)) !== null) {
    // Go's FindAllString skips an empty match right after the previous match.
    if (!(m[0] === '' && m.index === lastEnd)) out.push(m[0]);
    lastEnd = m.index + m[0].length;
    if (m[0] === '') re.lastIndex++;
    if (limit > 0n && out.length >= Number(limit)) break;
  }
  return out;
}

export function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', find);
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
}

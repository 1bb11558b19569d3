// kube's regex library (apiserver pkg/cel/library/regex.go): find and findAll on Go's regexp
// (../../re2), charged as cel-go charges a regular expression.

import type { Environment } from '@marcbachmann/cel-js';
import { compileGoRegexp, GoRegexpError, type GoRegexp } from '../../re2/index.js';
import { charge } from '../runtime-cost.js';

function regex(pattern: string, subject: string): GoRegexp {
  charge(Math.ceil((subject.length + 1) * 0.1) * Math.ceil(pattern.length * 0.25));
  try {
    return compileGoRegexp(pattern);
  } catch (err) {
    // kube's find and findAll, for a pattern only known when the rule runs.
    if (err instanceof GoRegexpError) throw new Error(`Illegal regex: ${err.message}`);
    throw err;
  }
}

export function find(s: string, pattern: string): string {
  return regex(pattern, s).find(s);
}

export function findAll(s: string, pattern: string, limit = -1n): string[] {
  if (limit === 0n) return [];
  return regex(pattern, s).findAll(s, limit < 0n ? -1 : Number(limit));
}

export function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', find);
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
}

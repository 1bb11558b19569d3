// The static cost estimate against kube's own expectations (apiextensions-apiserver
// pkg/apiserver/schema/cel/compilation_test.go TestCostEstimation): the same schemas and rules,
// once without bounds (sizes from the 3 MiB request limit) and once with maxItems, maxProperties
// or maxLength set, must give the same maximum costs.

import { describe, expect, it } from 'vitest';
import { analyzeRule } from '../../../runtime/validation/kube-cel/cost-estimate.js';
import { schemaDecl } from '../../../runtime/validation/kube-cel/decl.js';
import { kubeEnvironment } from '../../../runtime/validation/kube-cel/environment.js';

type Schema = Record<string, unknown>;
type Gen = (max?: number) => Schema;

const env = kubeEnvironment();
env.registerVariable('self', 'dyn');

function itemType(t: string): Schema {
  switch (t) {
    case 'int-or-string':
      return { 'x-kubernetes-int-or-string': true };
    case 'date':
    case 'date-time':
    case 'duration':
      return { type: 'string', format: t };
    default:
      return { type: t };
  }
}

const array = (t: string): Gen => (max) => ({ type: 'array', items: itemType(t), ...(max !== undefined ? { maxItems: max } : {}) });
const arrayOfArrays = (t: string): Gen => (max) => ({ type: 'array', items: { type: 'array', items: { type: t } }, ...(max !== undefined ? { maxItems: max } : {}) });
const mapOf = (t: string): Gen => (max) => ({ type: 'object', additionalProperties: itemType(t), ...(max !== undefined ? { maxProperties: max } : {}) });
const arrayOfMaps = (t: string): Gen => (max) => ({ type: 'array', items: { type: 'object', additionalProperties: { type: t } }, ...(max !== undefined ? { maxItems: max } : {}) });
const string: Gen = (max) => ({ type: 'string', ...(max !== undefined ? { maxLength: max } : {}) });
const bytes: Gen = (max) => ({ type: 'string', format: 'byte', ...(max !== undefined ? { maxLength: max } : {}) });
const nestedSpec: Gen = (max) => ({ type: 'object', additionalProperties: { type: 'string', ...(max !== undefined ? { maxLength: max } : {}) }, ...(max !== undefined ? { maxProperties: max } : {}) });

const cost = (schema: Schema, rule: string): number => analyzeRule(env.parse(rule).ast, schemaDecl(schema, false)!).cost;

const cases: [string, Gen, string, number, number, number][] = [
  ['number array with all', array('number'), 'self.all(x, true)', 4718591, 10, 32],
  ['string array with all', array('string'), 'self.all(x, true)', 3145727, 20, 62],
  ['boolean array with all', array('boolean'), 'self.all(x, true)', 1887437, 5, 17],
  ['array of number arrays with all', arrayOfArrays('number'), 'self.all(x, true)', 3145727, 100, 302],
  ['map of numbers with all', mapOf('number'), 'self.all(x, true)', 1348169, 10, 32],
  ['map of strings with all', mapOf('string'), 'self.all(x, true)', 1179647, 3, 11],
  ['map of booleans with all', mapOf('boolean'), 'self.all(x, true)', 943718, 100, 302],
  ['string with contains', string, "self.contains('test')", 314574, 10, 5],
  ['string with startsWith', string, "self.startsWith('test')", 2, 15, 2],
  ['concat string', string, 'size(self + "hello") > size("hello")', 314578, 4, 7],
  ['index of array with numbers', array('number'), 'self[1] == 0.0', 2, 5000, 2],
  ['index of array with strings', array('string'), 'self[1] == self[1]', 314577, 8, 314577],
  ['O(n^2) loop with numbers', array('number'), 'self.all(x, self.all(y, true))', -1, 10, 352],
  ['O(n^3) loop with numbers', array('number'), 'self.all(x, self.all(y, self.all(z, true)))', -1, 10, 3552],
  ['regex matches simple', string, 'self.matches("x")', 314574, 50, 22],
  ['regex matches empty string', string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
  ['regex matches empty regex', string, 'self.matches("")', 1, 100, 1],
  ['map of strings with value length', nestedSpec, 'self.all(x, x.contains(self[x]))', 2752507, 10, 72],
  ['set array maxLength to zero', array('number'), 'self[3] == 0.0', 2, 0, 2],
  ['set map maxLength to zero', mapOf('number'), 'self["x"] == 0.0', 2, 0, 2],
  ['set string maxLength to zero', string, 'self == "x"', 2, 0, 1],
  ['set bytes maxLength to zero', bytes, 'self == b"x"', 2, 0, 1],
  ['set maxLength greater than estimated maxLength', array('number'), 'self.all(x, x == 0.0)', 6291454, 3 * 1024 * 2048, 25165826],
  ['int-or-string array with all', array('int-or-string'), 'self.all(x, true)', 4718591, 10, 32],
  ['index of array with int-or-strings', array('int-or-string'), 'self[0] == 5', 3, 10, 3],
  ['index of array with booleans', array('boolean'), 'self[0] == false', 2, 25, 2],
  ['index of array of array of numbers', arrayOfArrays('number'), 'self[0][0] == -1.0', 3, 51, 3],
  ['array of number maps with all', arrayOfMaps('number'), 'self.all(x, x.y == 25.2)', 6291452, 12, 74],
  ['index of array of number maps', arrayOfMaps('number'), 'self[0].x > 2.0', 4, 3000, 4],
  ['duration array with all', array('duration'), 'self.all(x, true)', 2359295, 5, 17],
  ['index of duration array', array('duration'), 'self[0].getHours() == 2', 4, 525, 4],
  ['date array with all', array('date'), 'self.all(x, true)', 725936, 15, 47],
  ['date-time array with all', array('date-time'), 'self.all(x, true)', 428963, 25, 77],
  ['map of int-or-strings with all', mapOf('int-or-string'), 'self.all(x, true)', 1348169, 15, 47],
];

describe('static cost estimate (kube TestCostEstimation)', () => {
  for (const [name, gen, rule, unbounded, max, bounded] of cases) {
    it(name, () => {
      if (unbounded >= 0) expect(cost(gen(), rule)).toBe(unbounded);
      else expect(cost(gen(), rule)).toBeGreaterThan(10_000_000);
      expect(cost(gen(max), rule)).toBe(bounded);
    });
  }
});

// x-kubernetes-validations through the compileRules contract: CRD-write verdicts (compile errors,
// rule fields, cost limits) with kube's paths and texts, and evaluation of rules over custom
// resources (messages, reasons, fieldPath, transition rules, optionalOldSelf, ratcheting,
// messageExpression, the runtime budget).

import { describe, expect, it } from 'vitest';
import { compileRules, ruleValue, rulesBlockedBy } from '../../../runtime/validation/kube-cel/index.js';

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';

/** A CR schema whose spec has the given properties and rules. */
function crSchema(spec: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec } };
}

function compiled(spec: Record<string, unknown>) {
  return compileRules(crSchema(spec), ROOT);
}

describe('compileRules at CRD write', () => {
  it('accepts a schema without rules and reports it empty', () => {
    const { causes, rules } = compiled({ type: 'object', properties: { a: { type: 'string' } } });
    expect(causes).toEqual([]);
    expect(rules.empty).toBe(true);
    expect(rules.validate({ spec: { a: 'x' } })).toEqual([]);
  });

  it('refuses a rule naming a field the schema does not declare, with cel-go text', () => {
    const rule = { rule: 'self.replicas > 1' };
    const { causes } = compiled({ type: 'object', properties: { size: { type: 'integer' } }, 'x-kubernetes-validations': [rule] });
    expect(causes).toHaveLength(1);
    expect(causes[0].field).toBe(`${ROOT}.properties[spec].x-kubernetes-validations[0].rule`);
    expect(causes[0].reason).toBe('FieldValueInvalid');
    expect(causes[0].message).toBe(
      `Invalid value: ${ruleValue(rule)}: compilation failed: ERROR: <input>:1:5: undefined field 'replicas'\n | self.replicas > 1\n | ....^`,
    );
    expect(ruleValue(rule)).toBe(
      'apiextensions.ValidationRule{Rule:"self.replicas > 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}',
    );
  });

  it('refuses has() and optional selection of undeclared fields, as cel-go does', () => {
    const spec = { type: 'object', properties: { size: { type: 'integer' }, m: { type: 'object', additionalProperties: { type: 'string' } } } };
    const ok = compiled({ ...spec, 'x-kubernetes-validations': [{ rule: "has(self.size) && has(self.m.anyKey) && self.?size.orValue(0) >= 0 && self.m.?k.orValue('') == ''" }] });
    expect(ok.causes).toEqual([]);
    for (const [rule, column] of [['has(self.sise)', 9], ['self.?sise.orValue(1) == 1', 5]] as const) {
      const { causes } = compiled({ ...spec, 'x-kubernetes-validations': [{ rule }] });
      expect(causes).toHaveLength(1);
      expect(causes[0].message).toContain(`compilation failed: ERROR: <input>:1:${column}: undefined field 'sise'`);
    }
  });

  it("refuses constant regex patterns Go cannot compile as kube does: matches at the check, find and findAll when the program is built", () => {
    const spec = (rule: string) => ({ type: 'object', properties: { str: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule }] });
    for (const rule of ["self.str.find(')') == ''", "self.str.findAll(')') == []", "self.str.findAll(')', 1) == []"]) {
      const { causes } = compiled(spec(rule));
      expect(causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          field: `${ROOT}.properties[spec].x-kubernetes-validations[0].rule`,
          message: `Invalid value: ${ruleValue({ rule })}: program instantiation failed: error parsing regexp: unexpected ): \`)\``,
        },
      ]);
    }
    const matches = compiled(spec("self.str.matches('x++')")).causes;
    expect(matches.map((c) => c.message)).toEqual([
      `Invalid value: ${ruleValue({ rule: "self.str.matches('x++')" })}: compilation failed: ERROR: <input>:1:18: invalid matches argument\n | self.str.matches('x++')\n | .................^`,
    ]);
    // A pattern computed when the rule runs is judged there, with kube's find text.
    const dynamic = compiled(spec("self.str.find(self.str) == ''"));
    expect(dynamic.causes).toEqual([]);
    expect(dynamic.rules.validate({ spec: { str: '(' } }).map((c) => c.message)).toEqual([
      'Invalid value: "object": Illegal regex: error parsing regexp: missing closing ): `(` evaluating rule: self.str.find(self.str) == \'\'',
    ]);
  });

  it('refuses a rule that is not a bool', () => {
    const { causes } = compiled({ type: 'object', properties: { size: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.size + 1' }] });
    expect(causes.map((c) => (c.message ?? '').split(': ').at(-1))).toEqual(['cel expression must evaluate to a bool']);
  });

  it('refuses mixed-type list literals (homogeneous aggregate literals)', () => {
    const { causes } = compiled({ type: 'object', 'x-kubernetes-validations': [{ rule: "['a', 1].size() == 2" }] });
    expect(causes).toHaveLength(1);
    expect(causes[0].message).toContain('compilation failed: ERROR: <input>:1:');
  });

  it('checks the rule fields before compiling, with kube messages', () => {
    const { causes } = compiled({
      type: 'object',
      properties: { a: { type: 'string' } },
      'x-kubernetes-validations': [
        { rule: '  ' },
        { rule: 'true', message: '   ' },
        { rule: 'true', message: 'two\nlines' },
        { rule: 'true ||\nfalse' },
        { rule: 'true', messageExpression: ' ' },
        { rule: 'true', reason: 'FieldValueTooLong' },
        { rule: 'true', fieldPath: '.b' },
        { rule: 'true', fieldPath: '.a' },
      ],
    });
    const at = `${ROOT}.properties[spec].x-kubernetes-validations`;
    expect(causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: rule is not specified', field: `${at}[0].rule` },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "   ": message must be non-empty if specified', field: `${at}[1].message` },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "two\\nlines": message must not contain line breaks', field: `${at}[2].message` },
      { reason: 'FieldValueRequired', message: 'Required value: message must be specified if rule contains line breaks', field: `${at}[3].message` },
      { reason: 'FieldValueRequired', message: 'Required value: messageExpression must be non-empty if specified', field: `${at}[4].messageExpression` },
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "FieldValueTooLong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
        field: `${at}[5].reason`,
      },
      { reason: 'FieldValueInvalid', message: 'Invalid value: ".b": fieldPath must be a valid path', field: `${at}[6].fieldPath` },
    ]);
  });

  it('refuses oldSelf below lists that do not correlate items and below atomic maps', () => {
    const transition = { 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] };
    const { causes } = compiled({
      type: 'object',
      properties: {
        atomic: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, ...transition } },
        set: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 10, ...transition } },
        keyed: {
          type: 'array',
          maxItems: 10,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: { type: 'object', required: ['k'], properties: { k: { type: 'string', maxLength: 10 } }, ...transition },
        },
        frozen: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'string', maxLength: 10, ...transition } } },
        labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 10, ...transition } },
      },
    });
    const at = `${ROOT}.properties[spec].properties`;
    expect(causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}[atomic]`,
        field: `${at}[atomic].items.x-kubernetes-validations[0].rule`,
      },
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}[set]`,
        field: `${at}[set].items.x-kubernetes-validations[0].rule`,
      },
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}[frozen]`,
        field: `${at}[frozen].properties[a].x-kubernetes-validations[0].rule`,
      },
    ]);
  });

  it('refuses optionalOldSelf on a rule that does not use oldSelf', () => {
    const { causes } = compiled({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true', optionalOldSelf: true }] });
    expect(causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: true: may not be set if oldSelf is not used in rule',
        field: `${ROOT}.properties[spec].x-kubernetes-validations[0].optionalOldSelf`,
      },
    ]);
  });

  it('refuses messageExpression that does not compile or is not a string', () => {
    const rule1 = { rule: 'true', messageExpression: 'self.nope' };
    const rule2 = { rule: 'true', messageExpression: '1' };
    const { causes } = compiled({ type: 'object', 'x-kubernetes-validations': [rule1, rule2] });
    const at = `${ROOT}.properties[spec].x-kubernetes-validations`;
    expect(causes[0].field).toBe(`${at}[0].messageExpression`);
    expect(causes[0].message).toMatch(/^Invalid value: apiextensions\.ValidationRule\{.*\}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'/);
    expect(causes[1]).toEqual({ reason: 'FieldValueInvalid', message: `Invalid value: ${ruleValue(rule2)}: messageExpression must evaluate to a string`, field: `${at}[1].messageExpression` });
  });

  it('refuses a quadratic rule over a list without maxItems, with kube cost message', () => {
    const { causes } = compiled({
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } },
    });
    const at = `${ROOT}.properties[spec].properties[names]`;
    expect(causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
        field: `${at}.x-kubernetes-validations[0].rule`,
      },
      { reason: 'FieldValueForbidden', message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema', field: `${at}.x-kubernetes-validations[0].rule` },
      {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
        field: ROOT,
      },
    ]);
  });

  it('does not refuse a rule for its own cost when the schema is unchanged on update, but still counts it', () => {
    const schema = crSchema({
      type: 'object',
      properties: { names: { type: 'array', maxItems: 2000, items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } },
    });
    expect(compileRules(schema, ROOT).causes.map((c) => c.message)).toEqual([
      'Forbidden: estimated rule cost exceeds budget by factor of 3.6x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    ]);
    expect(compileRules(schema, ROOT, { suppressPerExpressionCost: true }).causes).toEqual([]);
  });

  it('accepts the same rule once maxItems and maxLength bound it', () => {
    const { causes } = compiled({
      type: 'object',
      properties: { names: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } },
    });
    expect(causes).toEqual([]);
  });

  it('multiplies a rule cost by how often it can run (rules inside unbounded lists)', () => {
    const rule = { rule: "self.name.matches('^[a-z]+$')" };
    const item = { type: 'object', properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [rule] };
    const unbounded = compiled({ type: 'object', properties: { items: { type: 'array', items: item } } });
    expect(unbounded.causes.some((c) => (c.message ?? '').startsWith('Forbidden: estimated rule cost exceeds budget by factor of'))).toBe(true);
    const bounded = compiled({
      type: 'object',
      properties: { items: { type: 'array', maxItems: 10, items: { ...item, properties: { name: { type: 'string', maxLength: 63 } } } } },
    });
    expect(bounded.causes).toEqual([]);
  });
});

describe('CompiledRules.validate', () => {
  const replicas = {
    type: 'object',
    properties: { replicas: { type: 'integer' }, max: { type: 'integer' } },
    'x-kubernetes-validations': [{ rule: 'self.replicas <= self.max', message: 'replicas must not exceed max' }],
  };

  it('reports a failing rule at its node with the schema type as value', () => {
    const { causes, rules } = compiled(replicas);
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { replicas: 3, max: 5 } })).toEqual([]);
    expect(rules.validate({ spec: { replicas: 6, max: 5 } })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas must not exceed max', field: 'spec' },
    ]);
  });

  it('gives each rule every field it and its message read, however self is used', () => {
    // Every rule here reads self by field selection only (the next test mixes in one that does not).
    const spec = {
      type: 'object',
      properties: {
        a: { type: 'integer' },
        b: { type: 'integer' },
        name: { type: 'string' },
        'dash-field': { type: 'string' },
        opt: { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
      'x-kubernetes-validations': [
        { rule: 'self.a <= self.b', messageExpression: "'a exceeds b for ' + self.name" },
        { rule: "!has(self.opt) || self.opt != 'bad'", message: 'opt is bad' },
        { rule: "self.?opt.orValue('') != 'worse'", message: 'opt is worse' },
        { rule: "self.dash__dash__field != 'x'", message: 'dash-field is x' },
      ],
    };
    const { causes, rules } = compiled(spec);
    expect(causes).toEqual([]);
    const at = (message: string) => ({ reason: 'FieldValueInvalid', message: `Invalid value: "object": ${message}`, field: 'spec' });
    expect(rules.validate({ spec: { a: 1, b: 2, name: 'w', 'dash-field': 'y', labels: { k: 'v' } } })).toEqual([]);
    expect(rules.validate({ spec: { a: 3, b: 2, name: 'w', 'dash-field': 'x', opt: 'bad' } })).toEqual([at('a exceeds b for w'), at('opt is bad'), at('dash-field is x')]);
    expect(rules.validate({ spec: { a: 1, b: 2, 'dash-field': 'y', opt: 'worse' } })).toEqual([at('opt is worse')]);
    // A field a rule reads but the object lacks is still "no such key".
    expect(rules.validate({ spec: { a: 1, 'dash-field': 'y' } })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": no such key: b evaluating rule: self.a <= self.b', field: 'spec' },
    ]);
  });

  it('lets a rule that uses self whole see every field, beside rules that select', () => {
    const spec = {
      type: 'object',
      properties: { a: { type: 'integer' }, m: { type: 'object', additionalProperties: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(k, self[k] > 0)', message: 'positive' }] } },
      'x-kubernetes-validations': [
        { rule: 'self.a > 0', message: 'a positive' },
        { rule: '[self][0].b > 1', message: 'b above one' },
      ],
    };
    spec.properties = { ...spec.properties, b: { type: 'integer' } } as typeof spec.properties;
    const { causes, rules } = compiled(spec);
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { a: 1, b: 2, m: { x: 5 } } })).toEqual([]);
    expect(rules.validate({ spec: { a: 1, b: 1 } })).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": b above one', field: 'spec' }]);
    expect(rules.validate({ spec: { a: 1, b: 2, m: { x: 4, y: 0 } } })).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": positive', field: 'spec.m' }]);
  });

  it('defaults the message to the failed rule', () => {
    const { rules } = compiled({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: "self.a != 'x'" }] });
    expect(rules.validate({ spec: { a: 'x' } })).toEqual([{ reason: 'FieldValueInvalid', message: `Invalid value: "object": failed rule: self.a != 'x'`, field: 'spec' }]);
  });

  it('reports rules at the resource root at <nil>, and lets them read metadata.name', () => {
    const schema = { ...crSchema({ type: 'object' }), 'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('ok-')", message: 'name must start with ok-' }] };
    const { causes, rules } = compileRules(schema, ROOT);
    expect(causes).toEqual([]);
    expect(rules.validate({ metadata: { name: 'ok-1' } })).toEqual([]);
    expect(rules.validate({ metadata: { name: 'bad' } })).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": name must start with ok-', field: '<nil>' }]);
  });

  it('maps reason and fieldPath to the cause', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { a: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'string' } } },
      'x-kubernetes-validations': [
        { rule: 'has(self.a)', reason: 'FieldValueRequired', fieldPath: '.a', message: 'a is required' },
        { rule: 'false', reason: 'FieldValueForbidden', fieldPath: ".m['x.y']", message: 'no' },
        { rule: 'false', reason: 'FieldValueDuplicate' },
      ],
    });
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { m: {} } })).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: a is required', field: 'spec.a' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: no', field: 'spec.m[x.y]' },
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: "object"', field: 'spec' },
    ]);
  });

  it('uses messageExpression, and falls back to message when it fails', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { n: { type: 'integer' } },
      'x-kubernetes-validations': [
        { rule: 'self.n < 10', messageExpression: "'n is ' + string(self.n) + ', must be below 10'" },
        { rule: 'self.n < 10', message: 'fallback', messageExpression: "''" },
        { rule: 'self.n < 10', message: 'fallback2', messageExpression: "string(self.n / 0)" },
      ],
    });
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { n: 12 } }).map((c) => c.message)).toEqual([
      'Invalid value: "object": n is 12, must be below 10',
      'Invalid value: "object": fallback',
      'Invalid value: "object": fallback2',
    ]);
  });

  it('gives messageExpression oldSelf on update', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { n: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.n >= oldSelf.n', messageExpression: "'n may not go down from ' + string(oldSelf.n)" }],
    });
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { n: 1 } }, { spec: { n: 4 } })).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": n may not go down from 4', field: 'spec' }]);
  });

  it('types date-time as timestamp, duration as duration and byte as bytes', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, every: { type: 'string', format: 'duration' }, blob: { type: 'string', format: 'byte' } },
      'x-kubernetes-validations': [
        { rule: "self.at > timestamp('2020-01-01T00:00:00Z')", message: 'too early' },
        { rule: "self.every <= duration('1h')", message: 'too long' },
        { rule: 'size(self.blob) == 5', message: 'five bytes' },
      ],
    });
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { at: '2024-05-01T10:00:00Z', every: '30m', blob: 'aGVsbG8=' } })).toEqual([]);
    expect(rules.validate({ spec: { at: '2019-05-01T10:00:00Z', every: '2h', blob: 'aGk=' } }).map((c) => c.message)).toEqual([
      'Invalid value: "object": too early',
      'Invalid value: "object": too long',
      'Invalid value: "object": five bytes',
    ]);
  });

  it('reports evaluation errors with the rule', () => {
    const { rules } = compiled({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: "self.a == 'x'" }] });
    expect(rules.validate({ spec: {} })).toEqual([
      { reason: 'FieldValueInvalid', message: `Invalid value: "object": no such key: a evaluating rule: self.a == 'x'`, field: 'spec' },
    ]);
  });

  it('treats integers as int and numbers as double, escaping property names', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { 'max-size': { type: 'integer' }, ratio: { type: 'number' }, namespace: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "self.max__dash__size == 3 && self.ratio == 0.5 && self.__namespace__ == 'ns'" }],
    });
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { 'max-size': 3, ratio: 0.5, namespace: 'ns' } })).toEqual([]);
  });

  it('ignores __proto__ and other unknown keys in the object', () => {
    const { rules } = compiled({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: "self.a == 'x'" }] });
    const hostile = JSON.parse('{"spec": {"a": "x", "__proto__": {"a": "y"}, "constructor": 1}}');
    expect(rules.validate(hostile)).toEqual([]);
    const mapSchema = compiled({ type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(k, self[k] == 'v')" }] });
    expect(mapSchema.rules.validate(JSON.parse('{"spec": {"__proto__": "v", "x": "v"}}'))).toEqual([]);
    expect(mapSchema.rules.validate(JSON.parse('{"spec": {"__proto__": "w"}}'))).toHaveLength(1);
  });
});

describe('transition rules', () => {
  const immutable = {
    type: 'object',
    properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } },
  };

  it('run only on update, where an old value exists', () => {
    const { causes, rules } = compiled(immutable);
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { name: 'a' } })).toEqual([]);
    expect(rules.validate({ spec: { name: 'a' } }, { spec: { name: 'a' } })).toEqual([]);
    expect(rules.validate({ spec: { name: 'b' } }, { spec: { name: 'a' } })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": Value is immutable', field: 'spec.name' },
    ]);
    expect(rules.validate({ spec: { name: 'b' } }, { spec: {} })).toEqual([]);
  });

  it('with optionalOldSelf run on create too, with oldSelf an optional', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { name: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "oldSelf.hasValue() ? oldSelf.value().name == self.name : self.name.startsWith('x')", optionalOldSelf: true, message: 'bad' }],
    });
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { name: 'xa' } })).toEqual([]);
    expect(rules.validate({ spec: { name: 'ya' } })).toHaveLength(1);
    expect(rules.validate({ spec: { name: 'ya' } }, { spec: { name: 'ya' } })).toEqual([]);
    expect(rules.validate({ spec: { name: 'xa' } }, { spec: { name: 'xb' } })).toHaveLength(1);
  });

  it('correlate list-type=map items by their keys', () => {
    const { rules } = compiled({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'port is immutable' }],
          },
        },
      },
    });
    const old = { spec: { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] } };
    expect(rules.validate({ spec: { ports: [{ name: 'b', port: 2 }, { name: 'a', port: 1 }, { name: 'c', port: 9 }] } }, old)).toEqual([]);
    expect(rules.validate({ spec: { ports: [{ name: 'b', port: 3 }] } }, old)).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": port is immutable', field: 'spec.ports[0]' },
    ]);
  });

  it('compare set and map lists without regard to order, as kube does', () => {
    const immutable = { 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] };
    const { causes, rules } = compiled({
      type: 'object',
      properties: {
        set: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 10 }, ...immutable },
        keyed: {
          type: 'array',
          maxItems: 10,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: { type: 'object', required: ['k'], properties: { k: { type: 'string', maxLength: 10 }, v: { type: 'integer' } } },
          ...immutable,
        },
        atomic: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 }, ...immutable },
      },
      'x-kubernetes-validations': [{ rule: "self.set[0] == 'b'", message: 'first is b' }],
    });
    expect(causes).toEqual([]);
    const old = { spec: { set: ['a', 'b'], keyed: [{ k: 'x', v: 1 }, { k: 'y', v: 2 }], atomic: ['a', 'b'] } };
    const reordered = { spec: { set: ['b', 'a'], keyed: [{ k: 'y', v: 2 }, { k: 'x', v: 1 }], atomic: ['b', 'a'] } };
    // Only the atomic list changed; indexing still sees the order as written.
    expect(rules.validate(reordered, old)).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "array": immutable', field: 'spec.atomic' }]);
    const changed = { spec: { set: ['b', 'c'], keyed: [{ k: 'y', v: 3 }, { k: 'x', v: 1 }], atomic: ['a', 'b'] } };
    expect(rules.validate(changed, old).map((c) => c.field)).toEqual(['spec.set', 'spec.keyed']);
  });

  it('ratchet errors of values that did not change (CRDValidationRatcheting)', () => {
    const { rules } = compiled({ type: 'object', properties: { a: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] }, b: { type: 'string' } } });
    const old = { spec: { a: 'bad', b: '1' } };
    const unchanged = rules.validateWithWarnings({ spec: { a: 'bad', b: '2' } }, old);
    expect(unchanged.causes).toEqual([]);
    expect(unchanged.warnings).toEqual([`spec.a: Invalid value: "string": failed rule: self != 'bad'`]);
    expect(rules.validate({ spec: { a: 'bad' } })).toHaveLength(1);
  });
});

describe('runtime cost', () => {
  it('stops a rule that loops over a large list with the per-call limit error', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { xs: { type: 'array', maxItems: 10000, items: { type: 'integer' } }, after: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'self.xs.all(x, self.xs.all(y, x + y >= 0))', message: 'nested' }, { rule: 'false', message: 'never reached' }],
    });
    // kube refuses such a CRD at write; a stored one is still stopped at run time.
    expect(causes[0].message).toMatch(/^Forbidden: estimated rule cost exceeds budget by factor of /);
    const xs = Array.from({ length: 10000 }, (_, i) => i);
    const started = Date.now();
    expect(rules.validate({ spec: { xs } })).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: nested`,
        field: 'spec',
      },
    ]);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('stops all rules once the per-object budget is spent', () => {
    const item = { type: 'object', properties: { s: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: "self.s != 'x'" }] };
    const { rules } = compiled({ type: 'object', properties: { items: { type: 'array', items: item } } });
    // Each evaluation reads a million characters (100,000 units); the 10,000,000 budget ends near the 100th item.
    const s = 'a'.repeat(1_000_000);
    const items = Array.from({ length: 150 }, () => ({ s }));
    const result = rules.validate({ spec: { items } });
    expect(result).toHaveLength(1);
    expect(result[0].message).toBe('Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run');
    expect(result[0].field).toMatch(/^spec\.items\[\d+\]$/);
  });
});

describe('hostile rules and objects', () => {
  const messageOf = (rule: string): string => {
    const { causes } = compiled({ type: 'object', 'x-kubernetes-validations': [{ rule }] });
    expect(causes).toHaveLength(1);
    return (causes[0].message ?? '').split('}: ').slice(1).join('}: ');
  };

  it('refuses deeply nested expressions with cel-go recursion errors', () => {
    expect(messageOf(`${'('.repeat(5000)}true${')'.repeat(5000)}`)).toMatch(/^compilation failed: ERROR: <input>:1:\d+: expression recursion limit exceeded: 250/);
    expect(messageOf(Array.from({ length: 5000 }, () => 'true').join(' && '))).toMatch(/^compilation failed: ERROR: <input>:1:1: max recursion depth exceeded/);
  });

  it('refuses expressions beyond cel-go size limit', () => {
    expect(messageOf(`'${'a'.repeat(100_001)}' != ''`)).toBe('compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100009, limit 100000');
  });

  it('refuses a constant matches() pattern Go would not compile', () => {
    expect(messageOf("'a'.matches('[a')")).toBe("compilation failed: ERROR: <input>:1:13: invalid matches argument\n | 'a'.matches('[a')\n | ............^");
  });

  it('accepts a constant matches() pattern Go compiles that was once refused as unsafe, and checks with it', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { host: { type: 'string', maxLength: 253 } },
      'x-kubernetes-validations': [{ rule: "self.host.matches('^([a-z0-9]{1,63}\\\\.)*[a-z]{2,}$')", message: 'not a host' }],
    });
    expect(causes).toEqual([]);
    expect(rules.validate({ spec: { host: 'my.example.com' } })).toEqual([]);
    expect(rules.validate({ spec: { host: 'my..example.com' } })).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": not a host', field: 'spec' }]);
  });

  it('runs a catastrophic pattern over a long value in linear time', () => {
    const { causes, rules } = compiled({
      type: 'object',
      properties: { s: { type: 'string', maxLength: 100000 } },
      'x-kubernetes-validations': [{ rule: "!self.s.matches('^(a+)+$')", message: 'all a' }],
    });
    expect(causes).toEqual([]);
    const started = Date.now();
    expect(rules.validate({ spec: { s: `${'a'.repeat(99_999)}b` } })).toEqual([]);
    expect(rules.validate({ spec: { s: 'a'.repeat(100_000) } })).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": all a', field: 'spec' }]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not let `|| true` hide a spent budget', () => {
    const { rules } = compiled({
      type: 'object',
      properties: { xs: { type: 'array', maxItems: 5000, items: { type: 'string', maxLength: 10 } } },
      'x-kubernetes-validations': [{ rule: "self.xs.all(x, self.xs.all(y, x != y + 'z')) || true", message: 'm' }],
    });
    const xs = Array.from({ length: 5000 }, (_, i) => String(i));
    expect(rules.validate({ spec: { xs } })).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: m`,
        field: 'spec',
      },
    ]);
  });

  it('stops rules that build huge strings', () => {
    const { rules } = compiled({
      type: 'object',
      properties: { xs: { type: 'array', maxItems: 5000, items: { type: 'string', maxLength: 10 } }, s: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'self.xs.map(x, self.s + self.s + self.s).size() > 0' }],
    });
    const result = rules.validate({ spec: { xs: Array.from({ length: 5000 }, () => 'x'), s: 'a'.repeat(100_000) } });
    expect(result).toHaveLength(1);
    expect(result[0].message).toContain('operation cancelled: actual cost limit exceeded');
  });
});

describe('rulesBlockedBy', () => {
  it('stops the rules after blocking schema errors, as kube does', () => {
    expect(rulesBlockedBy([{ reason: 'FieldValueInvalid', message: 'Invalid value: "x": y', field: 'spec.a' }])).toBeUndefined();
    expect(rulesBlockedBy([{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "x": spec.a in body must be of type integer: "string"', field: 'spec.a' }])).toEqual({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      field: '<nil>',
    });
  });
});

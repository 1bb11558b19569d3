// kubectl's JSONPath as client-go's util/jsonpath parses and evaluates it: the parser's accepted
// forms and error texts (parser_test.go), evaluation over decoded JSON (jsonpath_test.go's store
// and its errors), and Go's printing of one result.

import { describe, expect, it } from 'vitest';
import {
  evaluateJSONPath,
  findJSONPathResults,
  goPrint,
  JSONPathError,
  parseColumnJSONPath,
  parseJSONPath,
} from '../../runtime/machinery/jsonpath.js';

const STORE = {
  Store: {
    Book: [
      { Category: 'reference', Author: 'Nigel Rees', Title: 'Sayings of the Centery', Price: 8.95 },
      { Category: 'fiction', Author: 'Evelyn Waugh', Title: 'Sword of Honour', Price: 12.99 },
      { Category: 'fiction', Author: 'Herman Melville', Title: 'Moby Dick', Price: 8.99 },
    ],
    Bicycle: [
      { Color: 'red', Price: 19.95, IsNew: true },
      { Color: 'green', Price: 20.01, IsNew: false },
    ],
    Labels: { 'engieer': 10, 'web/html': 15, 'k8s-app': 20 },
    Employees: { jason: 'manager', dan: 'clerk' },
  },
  Name: 'jsonpath',
};

const run = (template: string, data: unknown = STORE) => evaluateJSONPath(parseJSONPath(template), data);
const text = (template: string, data: unknown = STORE) =>
  findJSONPathResults(parseJSONPath(template), data)
    .map((values) => values.map(goPrint).join(' '))
    .join('');

describe('parseJSONPath', () => {
  it.each([
    ['{.hello', 'unclosed action'],
    ['{*}', "unrecognized character in action: U+002A '*'"],
    ['{+12.3.0}', 'cannot parse number +12.3.0'],
    ['{[1}', 'unterminated array'],
    ['{[?(.price]}', 'unterminated filter'],
    ['{........}', 'invalid multiple recursive descent'],
    ['{[1:2:3:4]}', 'invalid array index 1:2:3:4'],
    ['{[a]}', 'invalid array index a'],
    ['{.a\n}', 'unclosed action'],
    ['{"abc}', 'unterminated quoted string'],
    ['{[?(@.a=="b")}', 'unclosed array expect ]'],
    ['{{.a}}', "unrecognized character in action: U+007B '{'"],
    ['{"\\q"}', 'unquote string "\\q" error invalid syntax'],
  ])('refuses %j with kube\'s message', (template, message) => {
    expect(() => parseJSONPath(template)).toThrow(JSONPathError);
    expect(() => parseJSONPath(template)).toThrow(message);
  });

  it('accepts the forms kube\'s parser test lists', () => {
    for (const template of [
      'hello jsonpath',
      'hello {.jsonpath}',
      "hello {['jsonpath']}",
      '{"{"}',
      '{[1:3]}',
      '{.book[*].author}',
      '{.bicycle.*}',
      '{[?(@.price<3)]}',
      '{..}',
      '{..price}',
      "{['book.price']}",
      "{['bicycle.price', 3, 'book.price']}",
      '{range .items}{.name},{end}',
      '{[?(@.status.nodeInfo.osImage == "()")]}',
      '{[?(@.test == "())(")]}',
      '{[-5:]}',
      '{[-1]}',
      '{[1:-1]}',
    ]) {
      expect(() => parseJSONPath(template), template).not.toThrow();
    }
  });

  it('keeps a plain index as a start with a derived end, and a negative one too', () => {
    const node = parseJSONPath('{[-1]}').root.nodes[0];
    expect(node).toEqual({
      type: 'list',
      nodes: [
        {
          type: 'array',
          params: [
            { value: -1, known: true, derived: false },
            { value: 0, known: true, derived: true },
            { value: 0, known: false, derived: false },
          ],
        },
      ],
    });
  });

  it('parses the printer columns of the real-world CRDs as kube wraps them', () => {
    for (const path of [
      '.status.conditions[?(@.type=="Ready")].status',
      '.spec.secretName',
      '.spec.issuerRef.name',
      '.status.conditions[?(@.type=="Ready")].message',
      '.metadata.creationTimestamp',
      '.spec.replicas',
      '.status.HPAReplicas',
    ]) {
      expect(() => parseColumnJSONPath(path), path).not.toThrow();
    }
  });
});

describe('evaluateJSONPath', () => {
  it.each([
    ['plain', 'hello jsonpath', 'hello jsonpath'],
    ['recursive price', '{..Price}', '8.95 12.99 8.99 19.95 20.01'],
    ['array slice', '{.Store.Book[0:2].Author}', 'Nigel Rees Evelyn Waugh'],
    ['negative index', '{.Store.Book[-1].Author}', 'Herman Melville'],
    ['all with step', '{.Store.Book[::2].Author}', 'Nigel Rees Herman Melville'],
    ['filter <', '{.Store.Book[?(@.Price<10.0)].Title}', 'Sayings of the Centery Moby Dick'],
    ['filter ==', '{.Store.Book[?(@.Category=="fiction")].Author}', 'Evelyn Waugh Herman Melville'],
    ["filter == 'single'", "{.Store.Book[?(@.Category == 'reference')].Author}", 'Nigel Rees'],
    ['filter bool', '{.Store.Bicycle[?(@.IsNew==true)].Color}', 'red'],
    ['filter exists', '{.Store.Bicycle[?(@.IsNew)].Color}', 'red green'],
    ['dict key with dots', "{.Store.Labels['web/html']}", '15'],
    ['union', '{.Store.Book[0,2].Author}', 'Nigel Rees Herman Melville'],
    ['quoted text', '{.Name}{"\\t"}{.Store.Employees.jason}', 'jsonpath\tmanager'],
    ['range', '{range .Store.Book[*]}[{.Author}]{end}', '[Nigel Rees][Evelyn Waugh][Herman Melville]'],
    ['nested map', '{.Store.Employees}', 'map[dan:clerk jason:manager]'],
    ['list', '{.Store.Book[0:1].Price}', '8.95'],
  ])('%s: %s', (_name, template, expected) => {
    expect(text(template)).toBe(expected);
  });

  it('gives the values with their JSON types', () => {
    expect(run('{.Store.Bicycle[*].Price}')).toEqual([19.95, 20.01]);
    expect(run('{.Store.Bicycle[0].IsNew}')).toEqual([true]);
  });

  it.each([
    ['{.Missing}', 'Missing is not found'],
    ['{.Store.Book[5]}', 'array index out of bounds: index 5, length 3'],
    ['{.Store.Book[1:9]}', 'array index out of bounds: index 8, length 3'],
    ['{.Store.Book[2:1]}', 'starting index 2 is greater than ending index 1'],
    ['{.Store.Book[0:2:0]}', 'step must be > 0'],
    ['{.Name[0]}', 'string is not array or slice'],
    ['{.Store.Labels[0]}', 'map[string]interface {} is not array or slice'],
    ['{.Store.Book[?(@.Price=="x")]}', 'incompatible types for comparison'],
    ['{.Store.Bicycle[?(@.IsNew<true)]}', 'invalid type for comparison'],
    ['{.Store.Book[?(@.Price=10)]}', 'unrecognized filter operator ='],
    ['{.Name[?(@.x)]}', 'jsonpath is not array or slice and cannot be filtered'],
    ['{end}', 'not in range, nothing to end'],
    ['{foo}', 'unrecognized identifier foo'],
  ])('%s fails with %j', (template, message) => {
    expect(() => run(template)).toThrow(message);
  });

  it('compares an integer literal with a float value as Go does: different kinds', () => {
    expect(() => run('{.Store.Book[?(@.Price>8)]}')).toThrow('incompatible types for comparison');
    expect(text('{.Store.Book[?(@.Price>8.96)].Author}')).toBe('Evelyn Waugh Herman Melville');
    expect(text('{.Store.Book[?(@.Price==8.95)].Author}')).toBe('Nigel Rees');
  });

  it('skips missing keys when asked, as printer columns do', () => {
    expect(evaluateJSONPath(parseJSONPath('{.Missing.Deeper}'), STORE, { allowMissingKeys: true })).toEqual([]);
    expect(
      evaluateJSONPath(parseColumnJSONPath('.status.conditions[?(@.type=="Ready")].status'), { status: { conditions: [{ reason: 'x' }] } }, { allowMissingKeys: true }),
    ).toEqual([]);
  });

  it('survives a path of thousands of steps and deep data without exhausting the stack', () => {
    const path = '.a'.repeat(5000);
    let data: unknown = 'leaf';
    for (let i = 0; i < 5000; i++) data = { a: data };
    expect(evaluateJSONPath(parseColumnJSONPath(path), data)).toEqual(['leaf']);
  });
});

describe('goPrint', () => {
  it.each([
    [1, '1'],
    [1.5, '1.5'],
    [1e21, '1e+21'],
    [0.00001, '1e-05'],
    [123456789, '123456789'],
    [true, 'true'],
    [null, '<nil>'],
    [['a', 1], '[a 1]'],
    [{ b: 1, a: [1, 2] }, 'map[a:[1 2] b:1]'],
  ])('%j → %s', (value, expected) => {
    expect(goPrint(value)).toBe(expected);
  });
});

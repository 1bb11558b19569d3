import { describe, expect, it } from 'vitest';
import { parseLabelSelector, LabelSelectorError } from '../../runtime/machinery/selectors/label-selector.js';
import { parseFieldSelector, FieldSelectorError } from '../../runtime/machinery/selectors/field-selector.js';

const labels = { app: 'web', tier: 'front', version: '3' };

describe('label selectors', () => {
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['app notin (db)', true],
    ['app notin (web)', false],
    ['missing notin (web)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    ['version>2', true],
    ['version<3', false],
    ['  app = web ', true],
    ['in in (web)', false],
  ];
  it.each(cases)('%j matches: %s', (text, want) => {
    expect(parseLabelSelector(text).matches(labels)).toBe(want);
  });

  const errors: [string, string][] = [
    ['app=web,', "found '', expected: identifier after ','"],
    ['app in web', "unable to parse requirement: found 'web' expected: '('"],
    ['app web', "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt"],
    ['=web', "found '=', expected: !, identifier, or 'end of string'"],
    ['app=a b', "found 'b', expected: ',' or 'end of string'"],
    ['app=-bad-', 'unable to parse requirement: values[0][app]: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')'],
    ['-x=y', 'unable to parse requirement: <nil>: Invalid value: "-x": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')'],
    ['version>x', 'unable to parse requirement: values[0]: Invalid value: "x": for \'Gt\', \'Lt\' operators, the value must be an integer'],
  ];
  it.each(errors)('%j fails with upstream wording', (text, message) => {
    expect(() => parseLabelSelector(text)).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector(text)).toThrow(message);
  });

  it('words an over-long key as apimachinery does (characters, not bytes)', () => {
    expect(() => parseLabelSelector(`${'k'.repeat(64)}=v`)).toThrow('name part must be no more than 63 characters');
  });

  it('an unclosed set is a parse error', () => {
    expect(() => parseLabelSelector('app in (web')).toThrow("unable to parse requirement: found '', expected: ',' or ')'");
  });
});

describe('field selectors', () => {
  const supported = new Set(['metadata.name', 'metadata.namespace']);
  const fields = { 'metadata.name': 'a,b', 'metadata.namespace': 'default' };
  it.each([
    ['metadata.name=a\\,b', true],
    ['metadata.name==a\\,b', true],
    ['metadata.name!=a\\,b', false],
    ['metadata.namespace!=kube-system', true],
    ['metadata.namespace=default,metadata.name!=x', true],
    ['', true],
  ])('%j matches: %s', (text, want) => {
    expect(parseFieldSelector(text, supported).matches(fields)).toBe(want);
  });

  it('unsupported fields and bad syntax are errors with upstream wording', () => {
    expect(() => parseFieldSelector('spec.x=y', supported)).toThrow(new FieldSelectorError('field label not supported: spec.x'));
    expect(() => parseFieldSelector('metadata.name', supported)).toThrow("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    expect(() => parseFieldSelector('metadata.name=a=b', supported)).toThrow('invalid field selector: unescaped character in value: 61');
    expect(() => parseFieldSelector('metadata.name=a\\x', supported)).toThrow('invalid field selector: invalid escape sequence: \\x');
  });
});

// kube's CEL libraries in the base environment, with the examples of their documentation
// (apiserver pkg/cel/library/*.go) and cel-go's strings (version 2) and sets extensions.

import { describe, expect, it } from 'vitest';
import { Duration, UnsignedInt } from '../../../runtime/validation/kube-cel/cel-classes.js';
import { kubeEnvironment } from '../../../runtime/validation/kube-cel/environment.js';
import { instrument, runMetered } from '../../../runtime/validation/kube-cel/runtime-cost.js';

const env = kubeEnvironment();
env.registerVariable('s', 'string');

/** Evaluates with the runtime meter on, as rules are evaluated. */
function ev(expr: string, vars: Record<string, unknown> = {}): unknown {
  const checked = env.check(expr);
  if (!checked.valid) throw new Error(`does not compile: ${checked.error?.message}`);
  const program = env.parse(expr);
  program.check();
  instrument(program.ast);
  const r = runMetered(1_000_000, () => program({ s: '', ...vars }));
  if (r.error) throw r.error;
  return r.value;
}

const isTrue = (exprs: string[]) => {
  for (const e of exprs) it(e, () => expect(ev(e)).toBe(true));
};
const fails = (exprs: [string, RegExp][]) => {
  for (const [e, msg] of exprs) it(`${e} fails`, () => expect(() => ev(e)).toThrow(msg));
};

describe('lists', () => {
  isTrue([
    '[1, 2, 3].isSorted()',
    "['a', 'b', 'b', 'c'].isSorted()",
    '![2.0, 1.0].isSorted()',
    '[1].isSorted()',
    '[1, 3].sum() == 4',
    '[1.0, 3.0].sum() == 4.0',
    "[duration('1m'), duration('1s')].sum() == duration('1m1s')",
    '[1, 3].min() == 1',
    '[1, 3].max() == 3',
    '[1].min() == 1',
    '[1, 2, 2, 3].indexOf(2) == 1',
    "['a', 'b', 'b', 'c'].lastIndexOf('b') == 2",
    '[1.0].indexOf(1.1) == -1',
  ]);
  fails([['[1].filter(x, x > 1).min()', /min called on empty list/]]);
});

describe('sets', () => {
  isTrue([
    'sets.contains([1, 2, 3, 4], [2, 3])',
    '!sets.contains([1, 2], [3])',
    'sets.equivalent([1, 2, 3], [3, 2, 1, 1])',
    '!sets.equivalent([1, 2], [1, 2, 3])',
    'sets.intersects([1], [1, 2])',
    '!sets.intersects([1], [2])',
  ]);
});

describe('regex', () => {
  isTrue([
    "'abc 123'.find('[0-9]+') == '123'",
    "'abc 123'.find('xyz') == ''",
    "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
    "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
    "'123 abc 456'.findAll('xyz') == []",
    "'hello'.matches('^h.*o$')",
    "'HELLO'.matches('(?i)^hello$')",
  ]);

  it('runs a catastrophic pattern in linear time', () => {
    const started = Date.now();
    expect(ev("s.matches('^(a+)+$')", { s: `${'a'.repeat(50_000)}b` })).toBe(false);
    expect(ev("s.find('(a|aa)+c')", { s: 'a'.repeat(50_000) })).toBe('');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses what RE2 refuses', () => {
    expect(() => ev("'aa'.matches('(a)\\\\1')")).toThrow('error parsing regexp: invalid escape sequence: `\\1`');
    expect(() => ev("'aa'.matches('a(?=a)')")).toThrow(/invalid or unsupported Perl syntax/);
  });

  it("refuses with Go's parse error, worded as cel-go's matches and kube's find and findAll word it", () => {
    expect(() => ev("s.matches('(a')", { s: 'a' })).toThrow(/^error parsing regexp: missing closing \): `\(a`$/);
    expect(() => ev("s.find('a\\\\C')", { s: 'a' })).toThrow(/^Illegal regex: error parsing regexp: invalid escape sequence: `\\C`$/);
    expect(() => ev("'a'.findAll(s)", { s: ')' })).toThrow(/^Illegal regex: error parsing regexp: unexpected \): `\)`$/);
  });

  // Valid Go patterns once refused here (rules ran on a rewrite for V8's linear engine, which takes no
  // counted repetition inside a repeated group, nor Go syntax JavaScript lacks) or answered as JavaScript
  // would: they run as Go runs them.
  isTrue([
    "'my.example.com'.matches('^([a-z0-9]{1,63}\\\\.)*[a-z]{2,}$')",
    "!'my..example.com'.matches('^([a-z0-9]{1,63}\\\\.)*[a-z]{2,}$')",
    "'aB'.matches('a(?i)b') && !'AB'.matches('a(?i)b')",
    "'Ab'.matches('(?i:a)b')",
    "'123'.matches('^[[:^alpha:]]+$')",
    "'aaa'.find('(?U)a+') == 'a'",
    "'héllo wörld'.findAll('\\\\pL+') == ['héllo', 'wörld']",
    "'αβγ'.matches('^\\\\p{Greek}+$')",
    "'😀'.matches('^.$')",
    "'a😀b'.findAll('.') == ['a', '😀', 'b']",
    "'x1 y22 z333'.findAll('[a-z][0-9]{1,20}', 2) == ['x1', 'y22']",
  ]);

  it('runs a hostile pattern once refused over a long value in linear time', () => {
    expect(ev("s.matches('^([a-z0-9]{1,63}\\\\.)*[a-z]{2,}$')", { s: `${'a.'.repeat(30_000)}!` })).toBe(false);
  });
});

describe('strings (version 2)', () => {
  isTrue([
    "'hello'.charAt(1) == 'e'",
    "'hello'.charAt(5) == ''",
    "'hello'.indexOf('l') == 2",
    "'hello'.lastIndexOf('l') == 3",
    "'TacoCat'.lowerAscii() == 'tacocat'",
    "'TacoCat'.upperAscii() == 'TACOCAT'",
    "'hello hello'.replace('he', 'we') == 'wello wello'",
    "'hello hello'.replace('he', 'we', 1) == 'wello hello'",
    "'hello hello'.replace('he', 'we', 0) == 'hello hello'",
    "'hello hello'.split(' ') == ['hello', 'hello']",
    "'hello hello hello'.split(' ', 2) == ['hello', 'hello hello']",
    "'tacocat'.substring(4) == 'cat'",
    "'tacocat'.substring(0, 4) == 'taco'",
    "'  \\ttrim\\n    '.trim() == 'trim'",
    "['hello', 'mellow'].join() == 'hellomellow'",
    "['hello', 'mellow'].join(' ') == 'hello mellow'",
    "strings.quote('single-quote with \"double quote\"') == '\"single-quote with \\\\\"double quote\\\\\"\"'",
    "'%s is %d years'.format([dyn('Tom'), dyn(30)]) == 'Tom is 30 years'",
    "'%.2f'.format([3.14159]) == '3.14'",
    "'%x %X %o %b'.format([255, 255, 8, 5]) == 'ff FF 10 101'",
    "'%e'.format([1234.5]) == '1.234500e+03'",
    "'%s'.format([[1, 2]]) == '[1, 2]'",
    "'100%%'.format([]) == '100%'",
  ]);
  fails([
    ["'hello'.charAt(6)", /index out of range: 6/],
    ["'%d'.format(['x'])", /decimal clause can only be used on integers/],
  ]);
  it('refuses mixed-type list literals (homogeneous aggregate literals)', () => {
    expect(env.check("'%s %d'.format(['Tom', 30]) == ''").valid).toBe(false);
  });
  it('has no reverse() (strings version 3 is not in kube 1.33)', () => {
    expect(env.check("'abc'.reverse() == 'cba'").valid).toBe(false);
  });
});

describe('urls', () => {
  isTrue([
    "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
    "isURL('/absolute-path')",
    "!isURL('https://a:b:c/')",
    "!isURL('../relative-path')",
    "url('/path').getScheme() == ''",
    "url('https://example.com/').getScheme() == 'https'",
    "url('https://example.com:80/').getHost() == 'example.com:80'",
    "url('https://example.com/').getHost() == 'example.com'",
    "url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://[::1]/').getHost() == '[::1]'",
    "url('/path').getHost() == ''",
    "url('https://example.com:80/').getHostname() == 'example.com'",
    "url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
    "url('https://[::1]:80/').getHostname() == '::1'",
    "url('https://example.com:80/').getPort() == '80'",
    "url('https://example.com/').getPort() == ''",
    "url('https://example.com/path').getEscapedPath() == '/path'",
    "url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    "url('https://example.com/path?key with spaces=value with spaces').getQuery() == {'key with spaces': ['value with spaces']}",
    "url('https://example.com/path').getQuery() == {}",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    "url('https://example.com/path?').getQuery() == {}",
  ]);
  fails([
    ["url('../relative-path')", /URL parse error during conversion from string/],
    ["url('https://a:b:c/')", /URL parse error during conversion from string/],
  ]);
});

describe('quantity', () => {
  isTrue([
    "isQuantity('1.3G')",
    "isQuantity('1.3Gi')",
    "!isQuantity('1,3G')",
    "isQuantity('10000k')",
    "!isQuantity('200K')",
    "!isQuantity('Three')",
    "!isQuantity('Mi')",
    "quantity('50000000G').isInteger()",
    "quantity('50k').isInteger()",
    "!quantity('9999999999999999999999999999999999999G').isInteger()",
    "quantity('50k').asInteger() == 50000",
    "quantity('50k').sub(20000).asApproximateFloat() == 30000.0",
    "quantity('50k').add(quantity('20k')) == quantity('70k')",
    "quantity('50k').add(20) == quantity('50020')",
    "quantity('50k').sub(quantity('20k')) == quantity('30k')",
    "quantity('50k').sub(20000) == quantity('30k')",
    "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
    "quantity('200M').compareTo(quantity('0.2G')) == 0",
    "quantity('50M').compareTo(quantity('50Mi')) == -1",
    "quantity('50Mi').compareTo(quantity('50M')) == 1",
    "quantity('150Mi').isGreaterThan(quantity('100Mi'))",
    "!quantity('50Mi').isGreaterThan(quantity('100Mi'))",
    "quantity('50M').isLessThan(quantity('100M'))",
    "quantity('-1').sign() == -1",
  ]);
  fails([
    ["quantity('200K')", /quantities must match the regular expression/],
    ["quantity('9999999999999999999999999999999999999G').asInteger()", /cannot convert value to integer/],
  ]);
});

describe('ip and cidr', () => {
  isTrue([
    "isIP('127.0.0.1')",
    "isIP('::1')",
    "!isIP('127.0.0.256')",
    "!isIP(':::1')",
    "!isIP('127.0.0.01')",
    "!isIP('::ffff:1.2.3.4')",
    "!isIP('fe80::1%eth0')",
    "ip('127.0.0.1').family() == 4",
    "ip('::1').family() == 6",
    "ip('0.0.0.0').isUnspecified()",
    "!ip('127.0.0.1').isUnspecified()",
    "ip('::').isUnspecified()",
    "ip('127.0.0.1').isLoopback()",
    "!ip('192.168.0.1').isLoopback()",
    "ip('::1').isLoopback()",
    "!ip('2001:db8::abcd').isLoopback()",
    "ip('224.0.0.1').isLinkLocalMulticast()",
    "!ip('224.0.1.1').isLinkLocalMulticast()",
    "ip('ff02::1').isLinkLocalMulticast()",
    "!ip('fd00::1').isLinkLocalMulticast()",
    "ip('169.254.169.254').isLinkLocalUnicast()",
    "!ip('192.168.0.1').isLinkLocalUnicast()",
    "ip('fe80::1').isLinkLocalUnicast()",
    "!ip('fd80::1').isLinkLocalUnicast()",
    "ip('192.168.0.1').isGlobalUnicast()",
    "!ip('255.255.255.255').isGlobalUnicast()",
    "ip('2001:db8::abcd').isGlobalUnicast()",
    "!ip('ff00::1').isGlobalUnicast()",
    "string(ip('2001:db8:0:0:0:0:0:abcd')) == '2001:db8::abcd'",
    "ip.isCanonical('127.0.0.1')",
    "ip.isCanonical('2001:db8::abcd')",
    "!ip.isCanonical('2001:DB8::ABCD')",
    "!ip.isCanonical('2001:db8::0:0:0:abcd')",
    "isCIDR('192.168.0.0/16')",
    "isCIDR('::1/128')",
    "!isCIDR('192.168.0.0/33')",
    "!isCIDR('::1/129')",
    "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))",
    "!cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
    "cidr('192.168.0.0/24').containsIP('192.168.0.1')",
    "!cidr('192.168.0.0/24').containsIP('192.168.1.1')",
    "cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))",
    "!cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))",
    "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')",
    "!cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')",
    "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')",
    "cidr('192.168.0.1/24').ip().family() == 4",
    "cidr('::1/128').ip() == ip('::1')",
    "cidr('192.168.0.0/24').masked() == cidr('192.168.0.0/24')",
    "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
    "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()",
    "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
    "cidr('192.168.0.0/16').prefixLength() == 16",
    "cidr('::1/128').prefixLength() == 128",
    "string(cidr('192.168.0.1/24').masked()) == '192.168.0.0/24'",
  ]);
  fails([
    ["ip('127.0.0.256')", /parse error during conversion from string/],
    ["ip('::ffff:1.2.3.4')", /IPv4-mapped IPv6 address is not allowed/],
    ["cidr('192.168.0.0/33')", /network address parse error during conversion from string/],
  ]);
});

describe('format', () => {
  isTrue([
    "!format.dns1123Label().validate('my-label-name').hasValue()",
    "!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()",
    "!format.dns1035Label().validate('my-label-name').hasValue()",
    "!format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()",
    "!format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()",
    "!format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-').hasValue()",
    "!format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()",
    "!format.uri().validate('http://example.com').hasValue()",
    "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()",
    "!format.byte().validate('aGVsbG8=').hasValue()",
    "!format.date().validate('2021-01-01').hasValue()",
    "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue()",
    "format.dns1123Label().validate('Not_A_Label').hasValue()",
    "format.named('dns1123Label').hasValue()",
    "!format.named('noSuchFormat').hasValue()",
    "format.named('labelValue').value().validate('ok').orValue([]).size() == 0",
  ]);
  it('gives the messages kube gives', () => {
    expect(ev("format.dns1123Label().validate('Not_A_Label').value()")).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});

describe('optional types', () => {
  isTrue([
    "optional.of(1).hasValue()",
    "!optional.none().hasValue()",
    "optional.none().orValue(2) == 2",
    "{'a': 1}.?a.orValue(0) == 1",
    "{'a': 1}.?b.orValue(0) == 0",
  ]);
});

describe("cel-js's classes as the libraries know them", () => {
  it('are the classes of the durations and unsigned integers CEL makes', () => {
    expect(ev('duration("90s")')).toBeInstanceOf(Duration);
    expect(ev('3u')).toBeInstanceOf(UnsignedInt);
  });
});

// The string formats kube-apiserver 1.33 validates in custom resources (apiextensions-apiserver
// pkg/apiserver/validation/formats.go, looked up with `-` removed, so `date-time` is `datetime`;
// every other format, int32 included, is stripped before validation and checks nothing), each
// judged as kube-openapi's strfmt registry judges it: its own checks, govalidator's, or Go's
// standard library parsers.

import { isIPv4 as nodeIsIPv4, isIPv6 as nodeIsIPv6 } from 'node:net';
import { parseGoDurationNs } from '../../machinery/duration.js';
import { compileGoRegexp, type GoRegexp } from '../re2/index.js';

type Check = (value: string) => boolean;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// strfmt's hostname pattern has nested repetitions: it runs on the linear Go engine. Compiled by
// the first hostname checked, not at every start (its Unicode classes make it costly to build).
const HOSTNAME_PATTERN =
  '^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$';
let hostname: GoRegexp | undefined;
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/;
const NAMED_EMAIL = /^[^<>]*<[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+>$/;
const CONTROL = /[\x00-\x1f\x7f]/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const MAC_COLON = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})*$/;
const MAC_DASH = /^[0-9a-fA-F]{2}(-[0-9a-fA-F]{2})*$/;
const MAC_DOT = /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})*$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const SCALA_DURATION_PART = /(\d+)\s*([A-Za-zµ]+)/g;
const DURATION_UNITS = [['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week']];
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Go's time.Parse("2006-01-02"): four-digit year, a month, and a day that month has. */
function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** strfmt's IsDateTime: a date, a `t`, then a time of day with a zone (compared as text, as strfmt does). */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = TIME_OF_DAY.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

/** strfmt's ParseDuration: Go's time.ParseDuration, else any `<digits> <unit>` it knows (Scala style). */
function isDuration(s: string): boolean {
  try {
    parseGoDurationNs(s);
    return true;
  } catch {
    // not Go's syntax; strfmt tries its own below
  }
  for (const [, , rawUnit] of s.matchAll(SCALA_DURATION_PART)) {
    const unit = rawUnit.trim().toLowerCase();
    for (const variants of DURATION_UNITS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => v === unit || (i === last && unit.startsWith(v)))) return true;
    }
  }
  return false;
}

/** Go's net.ParseIP for IPv4 text; the sloppy parser kube-openapi uses for ipv4 and cidr also takes leading zeros. */
function isIPv4Text(s: string, sloppy: boolean): boolean {
  if (!sloppy) return nodeIsIPv4(s) && !s.split('.').some((o) => o.length > 1 && o.startsWith('0'));
  const octets = s.split('.');
  return octets.length === 4 && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** Go's net.ParseIP: IPv4 or IPv6 text (an embedded IPv4 part included), never with a zone. */
function parseIP(s: string, sloppy: boolean): boolean {
  if (s.includes('%')) return false;
  if (isIPv4Text(s, sloppy)) return true;
  const colon = s.lastIndexOf(':');
  const tail = s.slice(colon + 1);
  if (colon >= 0 && tail.includes('.')) {
    // Node's parser is strict about the embedded IPv4 part; check that part on its own terms.
    return isIPv4Text(tail, sloppy) && nodeIsIPv6(`${s.slice(0, colon + 1)}0.0.0.0`);
  }
  return nodeIsIPv6(s);
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d+$/.test(bits) || !parseIP(ip, true)) return false;
  return Number(bits) <= (isIPv4Text(ip, true) ? 32 : 128);
}

/** Go's net.ParseMAC: 6, 8 or 20 octets, as xx:xx, xx-xx or xxxx.xxxx groups. */
function isMAC(s: string): boolean {
  const octets = MAC_COLON.test(s) || MAC_DASH.test(s) ? (s.length + 1) / 3 : MAC_DOT.test(s) ? ((s.length + 1) / 5) * 2 : 0;
  return octets === 6 || octets === 8 || octets === 20;
}

/** strfmt's IsHostname: its pattern, at most 255 bytes, labels at most 63 bytes. */
function isHostname(s: string): boolean {
  hostname ??= compileGoRegexp(HOSTNAME_PATTERN);
  return hostname.test(s) && utf8Length(s) <= 255 && s.split('.').every((label) => utf8Length(label) <= 63);
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path, without control characters. */
function isRequestURI(s: string): boolean {
  if (s === '' || CONTROL.test(s)) return false;
  if (s.startsWith('/')) return true;
  if (!URI_SCHEME.test(s)) return false;
  const rest = s.slice(s.indexOf(':') + 1);
  if (!rest.startsWith('//')) return true;
  const authority = rest.slice(2).split(/[/?#]/, 1)[0];
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return !/[\s<>"{}|\\^`]/.test(host);
}

function isISBN10(s: string): boolean {
  const digits = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (10 - i) * (digits[i] === 'X' ? 10 : Number(digits[i]));
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const digits = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(digits[12]);
}

/** govalidator's IsCreditCard: the digits match a card number's form and pass the Luhn check. */
function isCreditCard(s: string): boolean {
  const digits = s.replace(/\D/g, '');
  if (!CREDIT_CARD.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const CRD_FORMATS: Readonly<Record<string, Check>> = {
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
  uri: isRequestURI,
  email: (s) => EMAIL.test(s) || NAMED_EMAIL.test(s),
  hostname: isHostname,
  ipv4: (s) => parseIP(s, true) && s.includes('.'),
  ipv6: (s) => parseIP(s, false) && s.includes(':'),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && SSN.test(s),
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** The format's check when kube validates it, else undefined (the format is ignored). */
export function formatCheck(format: string): Check | undefined {
  const normalized = format.replaceAll('-', '');
  return Object.hasOwn(CRD_FORMATS, normalized) ? CRD_FORMATS[normalized] : undefined;
}

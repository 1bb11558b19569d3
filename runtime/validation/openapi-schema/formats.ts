// The string formats kube-apiserver validates in custom resources (apiextensions-apiserver
// pkg/apiserver/validation/formats.go: every other format, int32 and date-time included, is
// stripped from the schema before validation and so checks nothing), each judged as kube-openapi's
// strfmt registry judges it, which mostly means Go's standard library parsers.

import { isIPv4 as nodeIsIPv4, isIPv6 as nodeIsIPv6 } from 'node:net';

type Check = (value: string) => boolean;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME_LABEL = /^[a-zA-Z0-9\p{S}\p{L}]([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?$/u;
const HOSTNAME_TLD = /^[a-zA-Z\p{L}]{2,63}$/u;
const HOSTNAME_SINGLE = /^[a-zA-Z0-9\p{S}\p{L}](-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?$/u;
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/;
const NAMED_EMAIL = /^[^<>]*<[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+>$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]*$/;
const ABSOLUTE_PATH = /^\/[^\s\x00-\x1f\x7f]*$/;
const MAC_COLON = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})*$/;
const MAC_DASH = /^[0-9a-fA-F]{2}(-[0-9a-fA-F]{2})*$/;
const MAC_DOT = /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})*$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?$/;
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const SCALA_DURATION = /^(\d+)\s*(ns|nano|nanos|nanosecond|nanoseconds|us|µs|micro|micros|microsecond|microseconds|ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hour|hours|d|day|days|w|wk|week|weeks)$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

/** Go's net.ParseIP for IPv4 text: four decimal octets, no leading zeros. */
function isIPv4Text(s: string): boolean {
  return nodeIsIPv4(s) && !s.split('.').some((o) => o.length > 1 && o.startsWith('0'));
}

/** Go's net.ParseIP: IPv4 or IPv6 text (an embedded IPv4 part included), never with a zone. */
function parseIP(s: string): boolean {
  if (s.includes('%')) return false;
  if (isIPv4Text(s)) return true;
  if (!nodeIsIPv6(s)) return false;
  const tail = s.slice(s.lastIndexOf(':') + 1);
  return !tail.includes('.') || isIPv4Text(tail);
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || (bits.length > 1 && bits.startsWith('0'))) return false;
  const max = isIPv4Text(ip) ? 32 : 128;
  return parseIP(ip) && Number(bits) <= max;
}

function isMAC(s: string): boolean {
  // Go's net.ParseMAC: 6, 8 or 20 octets, as xx:xx, xx-xx or xxxx.xxxx groups.
  const octets = MAC_COLON.test(s) || MAC_DASH.test(s) ? (s.length + 1) / 3 : MAC_DOT.test(s) ? ((s.length + 1) / 5) * 2 : 0;
  return octets === 6 || octets === 8 || octets === 20;
}

function isHostname(s: string): boolean {
  if (s.length > 255) return false;
  if (HOSTNAME_SINGLE.test(s)) return true;
  const labels = s.split('.');
  if (labels.length < 2) return false;
  const tld = labels.pop()!;
  return HOSTNAME_TLD.test(tld) && labels.every((l) => HOSTNAME_LABEL.test(l));
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

export const CRD_FORMATS: Readonly<Record<string, Check>> = {
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
  uri: (s) => URI_SCHEME.test(s) || ABSOLUTE_PATH.test(s),
  email: (s) => EMAIL.test(s) || NAMED_EMAIL.test(s),
  hostname: isHostname,
  ipv4: (s) => parseIP(s) && s.includes('.'),
  ipv6: (s) => parseIP(s) && s.includes(':'),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: (s) => CREDIT_CARD.test(s.replace(/\D/g, '')),
  ssn: (s) => SSN.test(s),
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  byte: (s) => BASE64.test(s.replace(/[\r\n]/g, '')),
  password: () => true,
  date: (s) => {
    const m = DATE.exec(s);
    return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  duration: (s) => GO_DURATION.test(s) || s === '0' || SCALA_DURATION.test(s.trim()),
  datetime: (s) => {
    const m = DATE_TIME.exec(s);
    return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3])) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60;
  },
};

/** The format's check when kube validates it, else undefined (the format is ignored). */
export function formatCheck(format: string): Check | undefined {
  return Object.hasOwn(CRD_FORMATS, format) ? CRD_FORMATS[format] : undefined;
}

// Named string formats with kube-apiserver's exact messages (k8s.io/apimachinery/pkg/util/validation
// and pkg/api/validate/content). Each returns every message that applies, [] when the value is
// valid, because kube-apiserver reports one cause per message.

export type FormatCheck = (value: string) => string[];

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_NAME = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Go's len(): UTF-8 bytes, which is what kube-apiserver's length limits count. */
export const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const emptyError = (): string => 'must be non-empty';

/** validation.RegexError: the human description, examples, and the regex itself. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    // A valid subdomain that is no label can only fail on its dots (length was checked above).
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL_FMT,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  return errs;
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** validation.IsDNS1035Label: a label that starts with a letter (CRD names and versions, Service names). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** content.IsLabelKey (a.k.a. IsQualifiedName): optional DNS subdomain prefix, '/', a 63-char name. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  let name = value;
  const slash = value.indexOf('/');
  if (slash >= 0) {
    const prefix = value.slice(0, slash);
    name = value.slice(slash + 1);
    if (name.includes('/')) {
      return [
        `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ];
    }
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!LABEL_KEY_NAME.test(name)) errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (value.length > 0 && !LABEL_KEY_NAME.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!CONFIG_MAP_KEY.test(value))
    errs.push(
      regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'),
    );
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** The finalizer names core kube-apiserver accepts without a domain prefix. */
export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** A qualified name that, without a '/', must be one of the standard finalizers (core's validateFinalizerName). */
export function isKubeFinalizerName(value: string): string[] {
  const errs = isQualifiedName(value);
  if (!value.includes('/') && !STANDARD_FINALIZERS.has(value)) errs.push('name is neither a standard finalizer name nor is it fully qualified');
  return errs;
}

export function isPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return isPathSegmentPrefix(value);
}

export function isPathSegmentPrefix(value: string): string[] {
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (value.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || s.split('::').length > 2) return false;
  let groups = s.split(':');
  const last = groups[groups.length - 1] ?? '';
  let width = 8;
  if (last.includes('.')) {
    if (!isIPv4(last)) return false;
    groups = groups.slice(0, -1);
    width = 6;
  }
  const filled = groups.filter((g) => g !== '');
  if (!filled.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return s.includes('::') ? filled.length < width : filled.length === width && groups.length === width;
}

export function isIP(value: string): string[] {
  return isIPv4(value) || isIPv6(value) ? [] : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

/** Go's net.ParseIP bytes of an IPv4 or IPv6 text (IPv4 octets may have leading zeros, as ParseIPSloppy allows). */
function ipv4Octets(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

function ipv6Groups(s: string): number[] | undefined {
  if (!isIPv6(s)) return undefined;
  let text = s;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // An embedded IPv4 tail is two 16-bit groups.
    const v4 = ipv4Octets(text.slice(lastColon + 1));
    if (!v4) return undefined;
    text = `${text.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const parse = (part: string): number[] => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const halves = text.split('::');
  if (halves.length === 1) return parse(text);
  const left = parse(halves[0] ?? '');
  const right = parse(halves[1] ?? '');
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** Go's net.IP.String() of an IPv6 address: lower case, no leading zeros, the longest zero run (2+) as '::'. */
function canonicalIPv6(groups: number[]): string {
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestAt = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hexOf = (g: number[]): string => g.map((x) => x.toString(16)).join(':');
  if (bestAt < 0) return hexOf(groups);
  return `${hexOf(groups.slice(0, bestAt))}::${hexOf(groups.slice(bestAt + bestLen))}`;
}

/** validation.IsValidIPv4Address. */
export function isIPv4Address(value: string): string[] {
  return ipv4Octets(value) ? [] : ['must be a valid IPv4 address'];
}

/** validation.IsValidIPv6Address: an IPv6 address that is not an IPv4 one (IPv4-mapped counts as IPv4, as in Go). */
export function isIPv6Address(value: string): string[] {
  const groups = ipv6Groups(value);
  const v4mapped = groups !== undefined && groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  return groups && !v4mapped ? [] : ['must be a valid IPv6 address'];
}

/** An IPv4 address written as Go prints it: no leading zeros. */
export function isCanonicalIPv4(value: string): string[] {
  const octets = ipv4Octets(value);
  if (!octets) return isIPv4Address(value);
  const canonical = octets.join('.');
  return canonical === value ? [] : [`must be in canonical form (${goQuoteSimple(canonical)})`];
}

export function isCanonicalIPv6(value: string): string[] {
  const errs = isIPv6Address(value);
  if (errs.length) return errs;
  const canonical = canonicalIPv6(ipv6Groups(value) as number[]);
  return canonical === value ? [] : [`must be in canonical form (${goQuoteSimple(canonical)})`];
}

const goQuoteSimple = (s: string): string => `"${s}"`;

/**
 * ValidateEndpointIP: addresses no endpoint may have (unspecified, loopback, link-local unicast
 * and multicast). Only judges parsable addresses; whether it is an address at all is another check's.
 */
export function isEndpointIP(value: string): string[] {
  const v4 = ipv4Octets(value);
  const v6 = v4 ? undefined : ipv6Groups(value);
  if (!v4 && !v6) return [];
  const errs: string[] = [];
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries, as Go's net.IP does.
  const mapped = v6 && v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff ? [v6[6]! >> 8, v6[6]! & 255, v6[7]! >> 8, v6[7]! & 255] : undefined;
  const o = v4 ?? mapped;
  if (o) {
    if (o.every((x) => x === 0)) errs.push(`may not be unspecified (${value})`);
    if (o[0] === 127) errs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
    if (o[0] === 169 && o[1] === 254) errs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
    if (o[0] === 224 && o[1] === 0 && o[2] === 0) errs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
    return errs;
  }
  const g = v6 as number[];
  if (g.every((x) => x === 0)) errs.push(`may not be unspecified (${value})`);
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) errs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  if ((g[0]! & 0xffc0) === 0xfe80) errs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  if ((g[0]! & 0xff0f) === 0xff02) errs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return errs;
}

/** validation.IsFullyQualifiedDomainName: a DNS subdomain of at least two labels; one trailing dot allowed. */
export function isFullyQualifiedDomainName(value: string): string[] {
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const subdomain = isDNS1123Subdomain(name);
  if (subdomain.length) return [subdomain.join(',')];
  const labels = name.split('.');
  if (labels.length < 2) return ['should be a domain with at least two segments separated by dots'];
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length) return [errs.join(',')];
  }
  return [];
}

/** validation.IsValidPortName: an IANA_SVC_NAME. */
export function isIANAServiceName(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(value)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) errs.push('must contain at least one letter (a-z)');
  if (value.includes('--')) errs.push('must not contain consecutive hyphens');
  if (value.length > 0 && (value.startsWith('-') || value.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

export function isQuantity(value: string): string[] {
  return QUANTITY.test(value) ? [] : ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"];
}

export function isRFC3339(value: string): string[] {
  return RFC3339.test(value) && !Number.isNaN(Date.parse(value)) ? [] : ['must be an RFC 3339 timestamp (e.g. 2006-01-02T15:04:05Z)'];
}

/** Every named format a spec may use, by the name the spec uses. */
export const FORMAT_CHECKS: Readonly<Record<string, FormatCheck>> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  qualifiedName: isQualifiedName,
  labelKey: isQualifiedName,
  labelValue: isLabelValue,
  configMapKey: isConfigMapKey,
  kubeFinalizerName: isKubeFinalizerName,
  pathSegment: isPathSegmentName,
  ip: isIP,
  quantity: isQuantity,
  rfc3339: isRFC3339,
  ipv4: isIPv4Address,
  ipv6: isIPv6Address,
  canonicalIPv4: isCanonicalIPv4,
  canonicalIPv6: isCanonicalIPv6,
  ianaServiceName: isIANAServiceName,
  endpointIP: isEndpointIP,
  fullyQualifiedDomainName: isFullyQualifiedDomainName,
  // StorageClass provisioner and VolumeAttributesClass driverName: checked lower-cased.
  anyCaseQualifiedName: (v) => isQualifiedName(v.toLowerCase()),
  // Its length limit is a TooLong of its own (FORMAT_MAX_BYTES); these are the Invalid messages.
  csiDriverName: (v) => isDNS1123Subdomain(v.toLowerCase()),
};

/**
 * Formats whose length limit kube-apiserver reports as TooLong (FieldValueTooLong, before the
 * format's Invalid messages) rather than as one more Invalid message: ValidateCSIDriverName and
 * resource.k8s.io's driver names. The 63 is also the spec's limit on CSIDriver names (Limits table).
 */
export const FORMAT_MAX_BYTES: Readonly<Record<string, number>> = { csiDriverName: 63 };

/** Whether `value` meets the named format, its length limit included. */
export function meetsFormat(name: string, value: string): boolean {
  const max = FORMAT_MAX_BYTES[name];
  if (max !== undefined && byteLength(value) > max) return false;
  return (FORMAT_CHECKS[name]?.(value) ?? []).length === 0;
}

/** The formats in the shape ajv's standalone code calls (`formats.<name>.validate(value)`). */
export const ajvFormats: Record<string, { type: 'string'; validate: (value: string) => boolean }> = Object.fromEntries(
  Object.keys(FORMAT_CHECKS).map((name) => [name, { type: 'string' as const, validate: (v: string) => meetsFormat(name, v) }]),
);

/** A name format's length limit reported as TooLong at metadata.name, when it has one. */
export function nameMaxBytes(format: string): number | undefined {
  return FORMAT_MAX_BYTES[format];
}

/** metadata.name rules, as ValidateNameFunc: `prefix` is true for generateName, whose trailing '-' is allowed. */
export function nameChecks(format: string): (name: string, prefix: boolean) => string[] {
  const maskTrailingDash = (name: string): string => (name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);
  switch (format) {
    case 'dns1123Label':
      return (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case 'dns1123Subdomain':
      return (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case 'pathSegment':
      return (name, prefix) => (prefix ? isPathSegmentPrefix(name) : isPathSegmentName(name));
    case 'csiDriverName':
      // The spec's rule for CSI driver names (kube-apiserver's older ValidateCSIDriverName): a DNS
      // subdomain in any letter case; its 63-character limit is a TooLong (nameMaxBytes).
      return (name, prefix) => isDNS1123Subdomain((prefix ? maskTrailingDash(name) : name).toLowerCase());
    default:
      throw new Error(`unknown name format ${format}`);
  }
}

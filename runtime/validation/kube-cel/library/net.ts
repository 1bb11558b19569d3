// kube's IP and CIDR libraries (apiserver pkg/cel/library/ip.go, cidr.go): ip(), isIP(), ip.isCanonical(), family,
// isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast; cidr(),
// isCIDR(), containsIP, containsCIDR, ip, masked, prefixLength; string() of both. Parsing is Go's
// netip: no leading zeros in IPv4, no zones, and IPv4-mapped IPv6 addresses are refused.

import { isIPv4, isIPv6 } from 'node:net';
import type { Environment } from '@marcbachmann/cel-js';

export class KubeIP {
  constructor(readonly bytes: number[]) {}
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  toString(): string {
    if (this.family === 4) return this.bytes.join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((this.bytes[i] << 8) | this.bytes[i + 1]);
    // The longest run of two or more zero groups becomes "::".
    let bestAt = -1;
    let bestLen = 1;
    for (let i = 0; i < 8; ) {
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen) {
        bestAt = i;
        bestLen = j - i;
      }
      i = j === i ? i + 1 : j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (bestAt < 0) return hex.join(':');
    return `${hex.slice(0, bestAt).join(':')}::${hex.slice(bestAt + bestLen).join(':')}`;
  }
}

class IPNamespace {}

export class KubeCIDR {
  constructor(
    readonly ip: KubeIP,
    readonly prefix: number,
  ) {}
  toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
}

function parseIPv6(s: string): number[] | undefined {
  let text = s;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = v4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (h: string): number[] => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  const head = part(halves[0]);
  const rest = halves.length === 2 ? part(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const groups = [...head, ...new Array(halves.length === 2 ? fill : 0).fill(0), ...rest];
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function parseIPv4(s: string): number[] | undefined {
  if (!isIPv4(s)) return undefined;
  const parts = s.split('.');
  if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
  return parts.map(Number);
}

/** Go's netip.ParseAddr with kube's refusals; the error text kube gives, or the address. */
export function parseIP(s: string): KubeIP | string {
  if (s.includes('%')) return 'IP address with zone value is not allowed';
  if (isIPv4(s)) {
    const v4 = parseIPv4(s);
    return v4 ? new KubeIP(v4) : `IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): IPv4 field has octet with leading zero`;
  }
  if (isIPv6(s)) {
    const v6 = parseIPv6(s);
    if (!v6) return `IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): unable to parse IP`;
    if (v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff) return 'IPv4-mapped IPv6 address is not allowed';
    return new KubeIP(v6);
  }
  return `IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): unable to parse IP`;
}

/** Go's netip.ParsePrefix with kube's refusals. */
export function parseCIDR(s: string): KubeCIDR | string {
  const slash = s.lastIndexOf('/');
  if (slash < 0) return `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): no '/'`;
  const ip = parseIP(s.slice(0, slash));
  if (typeof ip === 'string') return ip.includes('zone') || ip.includes('IPv4-mapped') ? ip : `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): ${ip.replace(/^.*: /, '')}`;
  const bits = s.slice(slash + 1);
  const prefix = /^(0|[1-9][0-9]*)$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= ip.bytes.length * 8)) return `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): bad bits after slash: ${JSON.stringify(bits)}`;
  return new KubeCIDR(ip, prefix);
}

function masked(ip: KubeIP, prefix: number): KubeIP {
  return new KubeIP(ip.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  }));
}

function contains(c: KubeCIDR, ip: KubeIP): boolean {
  return ip.family === c.ip.family && masked(ip, c.prefix).toString() === masked(c.ip, c.prefix).toString();
}

const isLoopback = (ip: KubeIP): boolean => (ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1);
const isUnspecified = (ip: KubeIP): boolean => ip.bytes.every((b) => b === 0);
const isLinkLocalMulticast = (ip: KubeIP): boolean =>
  ip.family === 4 ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0 : ip.bytes[0] === 0xff && (ip.bytes[1] & 0x0f) === 0x02;
const isLinkLocalUnicast = (ip: KubeIP): boolean => (ip.family === 4 ? ip.bytes[0] === 169 && ip.bytes[1] === 254 : ip.bytes[0] === 0xfe && (ip.bytes[1] & 0xc0) === 0x80);
const isMulticast = (ip: KubeIP): boolean => (ip.family === 4 ? ip.bytes[0] >= 224 && ip.bytes[0] <= 239 : ip.bytes[0] === 0xff);
const isGlobalUnicast = (ip: KubeIP): boolean =>
  !(ip.family === 4 && ip.bytes.every((b) => b === 255)) && !isUnspecified(ip) && !isLoopback(ip) && !isMulticast(ip) && !isLinkLocalUnicast(ip);

function must<T>(v: T | string): T {
  if (typeof v === 'string') throw new Error(v);
  return v;
}

export function registerNet(env: Environment): void {
  const IP = 'net.IP';
  const CIDR = 'net.CIDR';
  env.registerType(IP, KubeIP);
  env.registerType(CIDR, KubeCIDR);
  env.registerFunction(`ip(string): ${IP}`, (s: string) => must(parseIP(s)));
  env.registerFunction('isIP(string): bool', (s: string) => typeof parseIP(s) !== 'string');
  env.registerFunction(`string(${IP}): string`, (ip: KubeIP) => ip.toString());
  env.registerFunction(`${IP}.family(): int`, (ip: KubeIP) => BigInt(ip.family));
  env.registerFunction(`${IP}.isUnspecified(): bool`, isUnspecified);
  env.registerFunction(`${IP}.isLoopback(): bool`, isLoopback);
  env.registerFunction(`${IP}.isLinkLocalMulticast(): bool`, isLinkLocalMulticast);
  env.registerFunction(`${IP}.isLinkLocalUnicast(): bool`, isLinkLocalUnicast);
  env.registerFunction(`${IP}.isGlobalUnicast(): bool`, isGlobalUnicast);
  env.registerOperator(`${IP} == ${IP}`, (a: KubeIP, b: KubeIP) => a.toString() === b.toString());
  // ip.isCanonical(s): whether s is written as the address prints (lower case, zeros compressed).
  env.registerType('kubernetes.IPNamespace', IPNamespace);
  env.registerConstant('ip', 'kubernetes.IPNamespace', new IPNamespace());
  env.registerFunction('kubernetes.IPNamespace.isCanonical(string): bool', (_ns: unknown, s: string) => must(parseIP(s)).toString() === s);

  env.registerFunction(`cidr(string): ${CIDR}`, (s: string) => must(parseCIDR(s)));
  env.registerFunction('isCIDR(string): bool', (s: string) => typeof parseCIDR(s) !== 'string');
  env.registerFunction(`string(${CIDR}): string`, (c: KubeCIDR) => c.toString());
  env.registerFunction(`${CIDR}.containsIP(${IP}): bool`, (c: KubeCIDR, ip: KubeIP) => contains(c, ip));
  env.registerFunction(`${CIDR}.containsIP(string): bool`, (c: KubeCIDR, s: string) => contains(c, must(parseIP(s))));
  env.registerFunction(`${CIDR}.containsCIDR(${CIDR}): bool`, (c: KubeCIDR, o: KubeCIDR) => o.prefix >= c.prefix && contains(c, o.ip));
  env.registerFunction(`${CIDR}.containsCIDR(string): bool`, (c: KubeCIDR, s: string) => {
    const o = must(parseCIDR(s));
    return o.prefix >= c.prefix && contains(c, o.ip);
  });
  env.registerFunction(`${CIDR}.ip(): ${IP}`, (c: KubeCIDR) => c.ip);
  env.registerFunction(`${CIDR}.masked(): ${CIDR}`, (c: KubeCIDR) => new KubeCIDR(masked(c.ip, c.prefix), c.prefix));
  env.registerFunction(`${CIDR}.prefixLength(): int`, (c: KubeCIDR) => BigInt(c.prefix));
  env.registerOperator(`${CIDR} == ${CIDR}`, (a: KubeCIDR, b: KubeCIDR) => a.toString() === b.toString());
}

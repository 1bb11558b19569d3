// Go's time.Duration: int64 nanoseconds, written as Go's time.ParseDuration reads it (300ms,
// 1.5h, 2h45m, optionally signed; "0" alone needs no unit) and as Duration.String writes it
// ("1h2m3.5s", "150ms", "0s"). kube reads the `timeout` query parameter, duration flags and
// configuration fields with the former and prints meta/v1 Duration with the latter. BigInt keeps
// durations past 104 days exact. Error texts are Go's, since they reach clients in a 400 Status
// and users at start-up.
import { getMember } from './own-member.js';

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n,
  '\u03bcs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const quote = (s: string): string => JSON.stringify(s);

/** Nanoseconds; throws Error with Go's message for a malformed duration. */
export function parseGoDurationNs(input: string): bigint {
  const invalid = () => new Error(`time: invalid duration ${quote(input)}`);
  let s = input;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    const num = /^(\d*)(\.(\d*))?/.exec(s);
    if (!num || (num[1] === '' && (num[3] === undefined || num[3] === ''))) throw invalid();
    s = s.slice(num[0].length);
    const unitName = /^[^\d.]*/.exec(s)?.[0] ?? '';
    if (unitName === '') throw new Error(`time: missing unit in duration ${quote(input)}`);
    const unit = getMember(UNIT_NS, unitName) as bigint | undefined;
    if (unit === undefined) throw new Error(`time: unknown unit ${quote(unitName)} in duration ${quote(input)}`);
    s = s.slice(unitName.length);
    total += BigInt(num[1] || '0') * unit;
    // Go truncates the fraction toward zero at nanosecond precision.
    if (num[3]) total += (BigInt(num[3]) * unit) / 10n ** BigInt(num[3].length);
  }
  // int64's range: -2^63 (Go's minimum Duration) to 2^63 - 1.
  if (total > (negative ? 9_223_372_036_854_775_808n : 9_223_372_036_854_775_807n)) throw invalid();
  return negative ? -total : total;
}

/** Milliseconds (fractions kept); throws Error with Go's message for a malformed duration. */
export function parseGoDuration(input: string): number {
  return Number(parseGoDurationNs(input)) / 1e6;
}

function fraction(value: bigint, digits: number): string {
  const text = value.toString().padStart(digits, '0').replace(/0+$/, '');
  return text ? `.${text}` : '';
}

/** Formats nanoseconds the way Go's time.Duration.String does. */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${u / 1_000n}${fraction(u % 1_000n, 3)}\u00b5s`;
  if (u < 1_000_000_000n) return `${sign}${u / 1_000_000n}${fraction(u % 1_000_000n, 6)}ms`;
  const hours = u / 3_600_000_000_000n;
  const minutes = (u / 60_000_000_000n) % 60n;
  const seconds = `${(u / 1_000_000_000n) % 60n}${fraction(u % 1_000_000_000n, 9)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

// meta/v1 Duration is a Go time.Duration: int64 nanoseconds on the wire, and Go's own text form
// ("1h2m3.5s", "150ms", "0s") in JSON. BigInt keeps durations past 104 days exact.

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n,
  '\u03bcs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Parses a Go duration string (time.ParseDuration); throws on malformed input. */
export function parseGoDuration(text: string): bigint {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw new Error(`time: invalid duration "${text}"`);
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) {
      throw new Error(`time: invalid duration "${text}"`);
    }
    const unit = UNITS[m[3]];
    total += BigInt(m[1] || '0') * unit;
    if (m[2]) {
      // Go truncates the fraction toward zero at nanosecond precision.
      total += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    }
    rest = rest.slice(m[0].length);
  }
  return negative ? -total : total;
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

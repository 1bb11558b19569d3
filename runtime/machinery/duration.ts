// Go's time.ParseDuration, for the `timeout` query parameter kube-apiserver reads with it:
// a sequence of decimal numbers with units (300ms, 1.5h, 2h45m), optionally signed; "0" alone
// needs no unit. The error texts are Go's, since they reach clients inside a 400 Status.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3,
  '\u03bcs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const quote = (s: string): string => JSON.stringify(s);

/** Milliseconds; throws Error with Go's message for a malformed duration. */
export function parseGoDuration(input: string): number {
  const invalid = () => new Error(`time: invalid duration ${quote(input)}`);
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(\.(\d*))?/.exec(s);
    if (!num || (num[1] === '' && (num[3] === undefined || num[3] === ''))) throw invalid();
    s = s.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(s)?.[0] ?? '';
    if (unit === '') throw new Error(`time: missing unit in duration ${quote(input)}`);
    const factor = UNIT_MS[unit];
    if (factor === undefined) throw new Error(`time: unknown unit ${quote(unit)} in duration ${quote(input)}`);
    s = s.slice(unit.length);
    total += Number(`${num[1] || '0'}.${num[3] ?? '0'}`) * factor;
  }
  return sign * total;
}

// The errors of Go's time.Parse for the two layouts metav1.Time and metav1.MicroTime decode with
// (RFC 3339, and RFC 3339 with exactly six fractional digits). time.Parse walks the layout chunk
// by chunk: literal text must match ("cannot parse <rest> as <literal>"), each number is read by
// its own rule ("cannot parse <rest> as <chunk>"), ranges are checked as they are read ("month
// out of range"), left-over text is "extra text", and the day is checked against the month last.

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

type Std = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micro' | 'zone';
interface Chunk {
  prefix: string;
  std: Std;
  text: string;
}

const CHUNKS: Chunk[] = [
  { prefix: '', std: 'year', text: '2006' },
  { prefix: '-', std: 'month', text: '01' },
  { prefix: '-', std: 'day', text: '02' },
  { prefix: 'T', std: 'hour', text: '15' },
  { prefix: ':', std: 'minute', text: '04' },
  { prefix: ':', std: 'second', text: '05' },
];
const MICRO: Chunk = { prefix: '', std: 'micro', text: '.000000' };
const ZONE: Chunk = { prefix: '', std: 'zone', text: 'Z07:00' };

/** time's own quote(): ASCII as is (with \ and " escaped), anything else as \x bytes of its UTF-8. */
export function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return `${out}"`;
}

const isDigit = (s: string, i: number) => i < s.length && s[i] >= '0' && s[i] <= '9';

/** getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

/** skip: the value after the literal prefix, or the value where they first differ. */
function skip(value: string, prefix: string): { rest: string; ok: boolean } {
  let v = value;
  for (const c of prefix) {
    if (v.length === 0 || v[0] !== c) return { rest: v, ok: false };
    v = v.slice(1);
  }
  return { rest: v, ok: true };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The error time.Parse(layout, value) gives, or undefined when the value parses. */
export function timeParseError(value: string, layout: typeof RFC3339 | typeof RFC3339_MICRO): string | undefined {
  const head = `parsing time ${timeQuote(value)}`;
  const cannot = (rest: string, elem: string) => `${head} as ${timeQuote(layout)}: cannot parse ${timeQuote(rest)} as ${timeQuote(elem)}`;
  const chunks = layout === RFC3339_MICRO ? [...CHUNKS, MICRO, ZONE] : [...CHUNKS, ZONE];
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (const chunk of chunks) {
    const skipped = skip(rest, chunk.prefix);
    if (!skipped.ok) return cannot(skipped.rest, chunk.prefix);
    rest = skipped.rest;
    const hold = rest;
    let range = '';
    let bad = false;
    switch (chunk.std) {
      case 'year':
        if (rest.length < 4 || !isDigit(rest, 0) || !/^[0-9]{4}$/.test(rest.slice(0, 4))) bad = true;
        else [year, rest] = [Number(rest.slice(0, 4)), rest.slice(4)];
        break;
      case 'month': {
        const n = getnum(rest, true);
        if (!n) bad = true;
        else {
          [month, rest] = n;
          if (month <= 0 || month > 12) range = 'month';
        }
        break;
      }
      case 'day': {
        const n = getnum(rest, true);
        if (!n) bad = true;
        else [day, rest] = n;
        break;
      }
      case 'hour':
      case 'minute':
      case 'second': {
        const n = getnum(rest, chunk.std !== 'hour');
        const limit = chunk.std === 'hour' ? 24 : 60;
        if (!n) {
          bad = true;
          break;
        }
        rest = n[1];
        if (n[0] >= limit) {
          range = chunk.std;
          break;
        }
        // A fraction the layout does not spell is still read after the seconds (RFC 3339 only).
        if (chunk.std === 'second' && layout === RFC3339 && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
          let n2 = 2;
          while (isDigit(rest, n2)) n2++;
          rest = rest.slice(n2);
        }
        break;
      }
      case 'micro':
        if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || !/^[0-9]{6}$/.test(rest.slice(1, 7))) bad = true;
        else rest = rest.slice(7);
        break;
      case 'zone': {
        if (rest[0] === 'Z') {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':') {
          bad = true;
          break;
        }
        const hr = getnum(rest.slice(1, 3), true);
        const mm = hr && getnum(rest.slice(4, 6), true);
        if (!hr || !mm) bad = true;
        // Go checks the hour first and the minute after, so a bad minute is the one reported.
        else if (mm[0] > 60) range = 'time zone offset minute';
        else if (hr[0] > 24) range = 'time zone offset hour';
        if (!bad && rest[0] !== '+' && rest[0] !== '-') bad = true;
        rest = rest.slice(6);
        break;
      }
    }
    if (range) return `${head}: ${range} out of range`;
    if (bad) return cannot(hold, chunk.text);
  }
  if (rest.length > 0) return `${head}: extra text: ${timeQuote(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return `${head}: day out of range`;
  return undefined;
}

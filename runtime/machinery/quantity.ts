// resource.Quantity arithmetic for the rules that compare quantities (a LimitRange's min <= max,
// a claim's storage request): exact values as rationals of BigInts, ordered comparison, and the
// canonical string kube-apiserver prints in messages (Quantity.String(): "1024Mi" -> "1Gi",
// "1000m" -> "1", "1.5Gi" -> "1536Mi", "1e3" kept in exponent form).

const QUANTITY = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact value num / den (den > 0) and the notation it was written in. */
export interface Quantity {
  num: bigint;
  den: bigint;
  format: Format;
}

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

const pow = (base: bigint, exp: number): bigint => base ** BigInt(exp);

/**
 * Exponents beyond this are not multiplied out: 1e2000000000 is a valid quantity to Go, but as a
 * BigInt it would not fit in memory. Such values compare as ±10^1000 (larger than any quantity a
 * cluster uses); their canonical text is computed from the digits (canonicalQuantity).
 */
const MAX_EXPANDED_EXPONENT = 1000;

/** The exponent of an "e" suffix as Go reads it: parsed as an int64, then kept as an int32. */
const exponentOf = (suffix: string): number => Number(BigInt.asIntN(32, BigInt(suffix.slice(1))));

/** Parses a quantity string; undefined when it is not one (the decoder rejects those first). */
export function parseQuantity(text: string): Quantity | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign, whole = '', frac = '', suffix = ''] = m;
  if (whole === '' && frac === '') return undefined;
  const negative = sign === '-';
  // An "e" exponent; "Ei" (exbibytes) is a binary suffix.
  if (/^[eE][+-]?[0-9]/.test(suffix)) {
    const exp = exponentOf(suffix);
    const digits = (whole + frac).replace(/^0+/, '');
    if (digits === '') return { num: 0n, den: 1n, format: 'DecimalExponent' };
    if (exp > MAX_EXPANDED_EXPONENT) return { num: (negative ? -1n : 1n) * 10n ** BigInt(MAX_EXPANDED_EXPONENT), den: 1n, format: 'DecimalExponent' };
    // Far below a nano, a value rounds up (away from zero) to one nano.
    if (exp < -MAX_EXPANDED_EXPONENT && digits.length - frac.length + exp < -9) return { num: negative ? -1n : 1n, den: 1_000_000_000n, format: 'DecimalExponent' };
  }
  let num = BigInt((whole || '0') + frac) * (negative ? -1n : 1n);
  let den = pow(10n, frac.length);
  let format: Format = 'DecimalSI';
  if (suffix in BINARY_SUFFIX) {
    format = 'BinarySI';
    num *= pow(1024n, BINARY_SUFFIX[suffix] as number);
  } else if (suffix in DECIMAL_SUFFIX) {
    const exp = DECIMAL_SUFFIX[suffix] as number;
    if (exp >= 0) num *= pow(10n, exp);
    else den *= pow(10n, -exp);
  } else {
    format = 'DecimalExponent';
    const exp = exponentOf(suffix);
    if (exp >= 0) num *= pow(10n, exp);
    else den *= pow(10n, -exp);
  }
  // Go keeps at most nano precision, rounding away from zero.
  const nanoDen = 1_000_000_000n;
  if ((num * nanoDen) % den !== 0n) {
    const scaled = (num * nanoDen) / den;
    num = scaled + (num < 0n ? -1n : 1n);
    den = nanoDen;
  }
  return { num, den, format };
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function quantitySign(q: Quantity): number {
  return q.num < 0n ? -1 : q.num > 0n ? 1 : 0;
}

/** The value as a float, for ratios (kube divides in float64 too). */
export function quantityToNumber(q: Quantity): number {
  return Number(q.num) / Number(q.den);
}

/** The value rounded up to an integer (Quantity.Value()). */
export function quantityValue(q: Quantity): bigint {
  const whole = q.num / q.den;
  return q.num % q.den !== 0n && q.num > 0n ? whole + 1n : whole;
}

function decimalString(q: Quantity, format: Format): string {
  if (q.num === 0n) return '0';
  // The value times 10^9 is an integer: find the largest exponent (a multiple of 3) that
  // leaves an integer mantissa.
  let mantissa = (q.num * 1_000_000_000n) / q.den;
  let exp = -9;
  // Go's suffixes end at E (10^18); an exponent has no end.
  while (mantissa % 1000n === 0n && (exp < 18 || format === 'DecimalExponent')) {
    mantissa /= 1000n;
    exp += 3;
  }
  if (format === 'DecimalExponent') return `${mantissa}${exp === 0 ? '' : `e${exp}`}`;
  const suffix = Object.entries(DECIMAL_SUFFIX).find(([, e]) => e === exp)?.[0] ?? '';
  return `${mantissa}${suffix}`;
}

/** Quantity.MilliValue(): thousandths, rounded up. */
export function milliValue(q: Quantity): bigint {
  const scaled = q.num * 1000n;
  const whole = scaled / q.den;
  return scaled % q.den !== 0n && scaled > 0n ? whole + 1n : whole;
}

/** Quantity.String(): the canonical form kube-apiserver prints. */
export function formatQuantity(q: Quantity): string {
  if (q.format !== 'BinarySI') return decimalString(q, q.format);
  const small = q.num * 1n > -1024n * q.den && q.num < 1024n * q.den;
  if (small || q.num % q.den !== 0n) return decimalString(q, 'DecimalSI');
  let mantissa = q.num / q.den;
  let exp = 0;
  while (mantissa % 1024n === 0n && exp < 6) {
    mantissa /= 1024n;
    exp += 1;
  }
  const suffix = Object.entries(BINARY_SUFFIX).find(([, e]) => e === exp)?.[0] ?? '';
  return `${mantissa}${suffix}`;
}

/** A string of decimal digits plus one. */
function incremented(digits: string): string {
  const at = digits.search(/9*$/);
  const head = at === 0 ? '1' : `${digits.slice(0, at - 1)}${Number(digits[at - 1]) + 1}`;
  return head + '0'.repeat(digits.length - at);
}

/**
 * The canonical form of a quantity with an exponent suffix, worked on its digits so that any
 * int32 exponent costs nothing: rounded up to a nano, trailing zeros moved into the exponent, the
 * exponent brought down to a multiple of three ("1e400" -> "10e399", "1.5e3" -> "1500").
 */
function canonicalExponentQuantity(negative: boolean, whole: string, frac: string, suffix: string): string {
  let digits = (whole + frac).replace(/^0+/, '');
  let exp = exponentOf(suffix) - frac.length;
  if (digits === '') return '0';
  if (exp < -9) {
    const drop = -9 - exp;
    const kept = drop >= digits.length ? '' : digits.slice(0, digits.length - drop);
    const lost = drop >= digits.length ? digits : digits.slice(digits.length - drop);
    digits = /[1-9]/.test(lost) ? incremented(kept || '0').replace(/^0+/, '') : kept;
    exp = -9;
  }
  const zeros = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - zeros);
  exp += zeros;
  const shift = ((exp % 3) + 3) % 3;
  digits += '0'.repeat(shift);
  exp -= shift;
  return `${negative ? '-' : ''}${digits}${exp === 0 ? '' : `e${exp}`}`;
}

/** The canonical form of a quantity string, or the string itself when it does not parse. */
export function canonicalQuantity(text: string): string {
  const m = QUANTITY.exec(text.trim());
  if (m && /^[eE][+-]?[0-9]/.test(m[4] ?? '') && (m[2] || m[3])) return canonicalExponentQuantity(m[1] === '-', m[2] ?? '', m[3] ?? '', m[4]!);
  const q = parseQuantity(text);
  return q ? formatQuantity(q) : text;
}

/** A quantity as JSON carries it: a string, or a plain number (which kube-apiserver also accepts). */
export function quantityOf(value: unknown): Quantity | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? parseQuantity(String(value)) : undefined;
  return typeof value === 'string' ? parseQuantity(value) : undefined;
}

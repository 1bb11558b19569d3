// What resource.ParseQuantity says about a text that is no quantity, as Quantity.UnmarshalJSON
// passes it on. Its hand-written scanner reads a sign, digits, an optional fraction and then a
// suffix (letters of "eEinumkKMGTP", an optional sign, digits); a suffix that scans but means
// nothing is a different error from text the scanner cannot read at all.

export const QUANTITY_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_WRONG = "unable to parse quantity's suffix";

const SUFFIX_LETTERS = 'eEinumkKMGTP';
const KNOWN_SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** Whether the suffixer knows `s`: a named suffix, or e/E and a base-10 int64 exponent. */
function knownSuffix(s: string): boolean {
  if (KNOWN_SUFFIXES.has(s)) return true;
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) return /^[+-]?[0-9]+$/.test(s.slice(1)) && Math.abs(Number(s.slice(1))) <= 2 ** 63;
  return false;
}

/**
 * The error for a quantity text, or undefined when ParseQuantity accepts it. The scanner is
 * lenient where the regular expression of its message is not: "-", "." or "m" read as zero.
 */
export function quantityParseError(str: string): string | undefined {
  if (str.length === 0) return QUANTITY_FORMAT_WRONG;
  let pos = 0;
  if (str[0] === '-' || str[0] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos >= str.length) return undefined;
  if (str[pos] === '.') {
    pos++;
    while (isDigit(str[pos])) pos++;
    if (pos >= str.length) return undefined;
  }
  const suffixStart = pos;
  while (pos < str.length && SUFFIX_LETTERS.includes(str[pos])) pos++;
  if (pos < str.length && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) return QUANTITY_FORMAT_WRONG;
  return knownSuffix(str.slice(suffixStart)) ? undefined : QUANTITY_SUFFIX_WRONG;
}

// Where Go's base64.StdEncoding.Decode gives up on a text, so decode errors of []byte values can
// name the same input byte kube-apiserver names ("illegal base64 data at input byte N"). Newlines
// (\r, \n) are skipped anywhere; padding is required; trailing bits need not be zero.

const ALPHABET = /[A-Za-z0-9+/]/;
const isNewline = (c: string) => c === '\n' || c === '\r';

/** The offset Go reports for `text`, or undefined when it decodes. */
export function base64ErrorOffset(text: string): number | undefined {
  let si = 0;
  for (;;) {
    // One quantum of up to four characters.
    let j = 0;
    for (; j < 4; j++) {
      while (si < text.length && isNewline(text[si])) si++;
      if (si === text.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = text[si++];
      if (ALPHABET.test(c)) continue;
      if (c !== '=') return si - 1;
      // Padding: only after two or three characters of a quantum, and it ends the input.
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < text.length && isNewline(text[si])) si++;
        if (si === text.length) return text.length;
        if (text[si] !== '=') return si - 1;
        si++;
      }
      while (si < text.length && isNewline(text[si])) si++;
      return si < text.length ? si : undefined;
    }
  }
}

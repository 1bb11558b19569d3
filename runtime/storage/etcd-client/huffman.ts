// HPACK's Huffman code (RFC 7541 Appendix B), decoding only: this client sends its header
// values as plain literals, but Go's HTTP/2 server (etcd's) Huffman-codes what it sends.
//
// The appendix's code is canonical: codes of one length are consecutive numbers in symbol order,
// and each length's first code follows the previous length's last, shifted left. So the table
// is kept as the 257 code lengths alone (symbols 0 to 255, then EOS) and the codes are derived
// from them, which keeps the data short enough to check against the appendix by eye and makes
// a mistyped length break the code's completeness (checked below, at load).

// prettier-ignore
const CODE_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];

const EOS = 256;
const LONGEST = 30;

/** Each symbol's code (its low bits, CODE_LENGTHS[symbol] of them), assigned canonically. */
const codes = (): number[] => {
  const result = new Array<number>(CODE_LENGTHS.length).fill(0);
  let code = 0;
  let kraft = 0;
  for (let length = 1; length <= LONGEST; length++) {
    for (let symbol = 0; symbol < CODE_LENGTHS.length; symbol++) {
      if (CODE_LENGTHS[symbol] !== length) continue;
      result[symbol] = code++;
      kraft += 2 ** (LONGEST - length);
    }
    code <<= 1;
  }
  // A complete prefix code fills the code space exactly; a wrong length would not.
  if (kraft !== 2 ** LONGEST) throw new Error('hpack: the Huffman code lengths do not form a complete code');
  return result;
};

/**
 * The decoding tree as two arrays of child links (bit 0, bit 1): a positive entry is the
 * next node, a negative one a leaf holding -(symbol + 1). Node 0 is the root.
 */
const buildTree = (): { zero: Int32Array; one: Int32Array } => {
  const all = codes();
  // A complete binary code of 257 leaves has 256 inner nodes.
  const zero = new Int32Array(256);
  const one = new Int32Array(256);
  let nodes = 1;
  for (let symbol = 0; symbol < all.length; symbol++) {
    const length = CODE_LENGTHS[symbol]!;
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const branch = (all[symbol]! >>> bit) & 1 ? one : zero;
      if (bit === 0) {
        branch[node] = -(symbol + 1);
      } else {
        if (branch[node] === 0) branch[node] = nodes++;
        node = branch[node]!;
      }
    }
  }
  return { zero, one };
};

/**
 * Built on the first decode: only a server on etcd decodes, and the build's loops, run at load,
 * were hot enough for V8 to optimize them during every start (README, "Idle memory").
 */
let tree: { zero: Int32Array; one: Int32Array } | undefined;

export class HuffmanError extends Error {}

/**
 * Decodes a Huffman-coded string literal. Refuses, as RFC 7541 §5.2 requires, an EOS symbol in
 * the data and padding that is longer than 7 bits or not the EOS code's leading ones.
 */
export const decodeHuffman = (input: Uint8Array): string => {
  const { zero: ZERO, one: ONE } = (tree ??= buildTree());
  const out = Buffer.allocUnsafe(Math.ceil((input.length * 8) / 5));
  let written = 0;
  let node = 0;
  // Bits read since the last symbol ended, and whether all of them were ones (valid padding).
  let depth = 0;
  let allOnes = true;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const set = (byte >> bit) & 1;
      const next = set ? ONE[node]! : ZERO[node]!;
      depth++;
      allOnes &&= set === 1;
      if (next < 0) {
        const symbol = -next - 1;
        if (symbol === EOS) throw new HuffmanError('hpack: EOS symbol inside a Huffman-coded string');
        out[written++] = symbol;
        node = 0;
        depth = 0;
        allOnes = true;
      } else {
        node = next;
      }
    }
  }
  if (depth > 7 || !allOnes) throw new HuffmanError('hpack: Huffman-coded string with invalid padding');
  return out.toString('latin1', 0, written);
};

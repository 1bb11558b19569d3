// HPACK as the etcd client reads and writes it (runtime/storage/etcd-client/hpack.ts,
// huffman.ts), checked against RFC 7541's own examples (Appendix C): the Huffman-coded strings,
// the request and response sequences with the dynamic table's contents and size after each
// block (C.4: Huffman, table 4096; C.6: Huffman, table 256 with evictions), and the cases a
// decoder must refuse. etcd's Go server sends exactly these forms.

import { describe, expect, it } from 'vitest';
import { HpackDecoder, HpackError, encodeHeaders } from '../../runtime/storage/etcd-client/hpack.js';
import type { HeaderField } from '../../runtime/storage/etcd-client/hpack.js';
import { HuffmanError, decodeHuffman } from '../../runtime/storage/etcd-client/huffman.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('HPACK Huffman decoding', () => {
  it('decodes every Huffman-coded string of RFC 7541 Appendix C', () => {
    const vectors: Array<[string, string]> = [
      ['f1e3 c2e5 f23a 6ba0 ab90 f4ff', 'www.example.com'],
      ['a8eb 1064 9cbf', 'no-cache'],
      ['25a8 49e9 5ba9 7d7f', 'custom-key'],
      ['25a8 49e9 5bb8 e8b4 bf', 'custom-value'],
      ['6402', '302'],
      ['640e ff', '307'],
      ['aec3 771a 4b', 'private'],
      ['d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff', 'Mon, 21 Oct 2013 20:13:22 GMT'],
      ['9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3', 'https://www.example.com'],
      ['9bd9 ab', 'gzip'],
      [
        '94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
        'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1',
      ],
      ['', ''],
    ];
    for (const [coded, text] of vectors) expect(decodeHuffman(hex(coded))).toBe(text);
  });

  it('decodes the longest codes: bytes 0x00 to 0xff through their own 5 to 30-bit codes', () => {
    // 0x0a (newline) has a 30-bit code, 0xff 26 bits, '0' 5 bits (RFC 7541 Appendix B): packed
    // by hand, then padded with ones.
    // '0' = 00000 (5), 0x0a = 3ffffffc (30), 0xff = 3ffffee (26): 61 bits, padded with 3 ones.
    let bits = '00000' + (0x3ffffffc).toString(2).padStart(30, '0') + (0x3ffffee).toString(2).padStart(26, '0');
    bits += '1'.repeat(8 - (bits.length % 8));
    const bytes = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
    expect([...Buffer.from(decodeHuffman(bytes), 'latin1')]).toEqual([0x30, 0x0a, 0xff]);
  });

  it('refuses padding that is not ones, padding of 8 bits or more, and an EOS symbol', () => {
    // '0' (00000) then 000: padding of zeros.
    expect(() => decodeHuffman(Buffer.from([0b00000000]))).toThrow(HuffmanError);
    // 'a' (00011) padded with 111, then a whole byte of ones: 11 bits of padding.
    expect(() => decodeHuffman(Buffer.from([0b00011111, 0xff]))).toThrow(HuffmanError);
    // EOS is 30 ones: four bytes of ones hold it whole.
    expect(() => decodeHuffman(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toThrow(/EOS/);
  });
});

const text = (fields: HeaderField[]): string => fields.map(([n, v]) => `${n}: ${v}`).join('\n');

describe('HPACK decoder', () => {
  it('reads RFC 7541 C.4 (requests, Huffman) with the dynamic table as the RFC shows it', () => {
    const decoder = new HpackDecoder(4096);
    expect(text(decoder.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')))).toBe(':method: GET\n:scheme: http\n:path: /\n:authority: www.example.com');
    expect(decoder.tableSize).toBe(57);
    expect(text(decoder.decode(hex('8286 84be 5886 a8eb 1064 9cbf')))).toBe(
      ':method: GET\n:scheme: http\n:path: /\n:authority: www.example.com\ncache-control: no-cache',
    );
    expect(decoder.tableSize).toBe(110);
    expect(text(decoder.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')))).toBe(
      ':method: GET\n:scheme: https\n:path: /index.html\n:authority: www.example.com\ncustom-key: custom-value',
    );
    expect(decoder.tableSize).toBe(164);
  });

  it('reads RFC 7541 C.6 (responses, Huffman, a 256-byte table) with its evictions', () => {
    const decoder = new HpackDecoder(256);
    const first = decoder.decode(
      hex('4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3'),
    );
    expect(text(first)).toBe(':status: 302\ncache-control: private\ndate: Mon, 21 Oct 2013 20:13:21 GMT\nlocation: https://www.example.com');
    expect(decoder.tableSize).toBe(222);
    // (":status", "302") is evicted to make room for (":status", "307"); indexes 63 to 65 move.
    const second = decoder.decode(hex('4883 640e ffc1 c0bf'));
    expect(text(second)).toBe(':status: 307\ncache-control: private\ndate: Mon, 21 Oct 2013 20:13:21 GMT\nlocation: https://www.example.com');
    expect(decoder.tableSize).toBe(222);
    const third = decoder.decode(
      hex(
        '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
      ),
    );
    expect(text(third)).toBe(
      ':status: 200\ncache-control: private\ndate: Mon, 21 Oct 2013 20:13:22 GMT\nlocation: https://www.example.com\ncontent-encoding: gzip\nset-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1',
    );
    expect(decoder.tableSize).toBe(215);
    // Index 62 is now the set-cookie entry, and 65 is past the three entries left.
    expect(decoder.decode(hex('be'))).toEqual([['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1']]);
    expect(() => decoder.decode(hex('c1'))).toThrow(/past the table/);
  });

  it('applies a dynamic table size update at the start of a block, and refuses one elsewhere or above the limit', () => {
    const decoder = new HpackDecoder(4096);
    decoder.decode(hex('4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'));
    expect(decoder.tableSize).toBe(54);
    expect(decoder.decode(hex('be'))).toEqual([['custom-key', 'custom-value']]);
    // 0x20: size update to 0, which empties the table; then back to 4096 (0x3f e1 1f) in the next block.
    expect(decoder.decode(hex('20'))).toEqual([]);
    expect(decoder.tableSize).toBe(0);
    expect(() => decoder.decode(hex('be'))).toThrow(/past the table/);
    // Two updates may open one block (the smallest, then the final size).
    expect(decoder.decode(hex('20 3fe1 1f 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'))).toEqual([['custom-key', 'custom-value']]);
    expect(decoder.tableSize).toBe(54);
    // An update after a field, and one above the SETTINGS_HEADER_TABLE_SIZE this side announced.
    expect(() => decoder.decode(hex('82 20'))).toThrow(/after a header field/);
    expect(() => decoder.decode(hex('3fe2 1f'))).toThrow(/above the 4096 allowed/);
  });

  it('refuses a block cut inside an integer or a string, index 0, and an integer past 2^28', () => {
    const decoder = new HpackDecoder(4096);
    expect(() => decoder.decode(hex('ff'))).toThrow(HpackError);
    expect(() => decoder.decode(hex('40 05 6162'))).toThrow(/inside a string/);
    expect(() => decoder.decode(hex('80'))).toThrow(/index 0/);
    expect(() => decoder.decode(hex('ff ff ff ff ff 0f'))).toThrow(/too large/);
  });

  it('reads a block lying inside a larger buffer (a frame\'s payload) from its own offset, and reads on after a refused block', () => {
    const decoder = new HpackDecoder(4096);
    // The literal strings are read in place; bytes before and after the block must not leak in.
    const frame = Buffer.concat([Buffer.from('xxxxx'), hex('40 03 616263 03 646566  be'), Buffer.from('yyy')]);
    const block = frame.subarray(5, frame.length - 3);
    expect(decoder.decode(block)).toEqual([['abc', 'def'], ['abc', 'def']]);
    expect(() => decoder.decode(hex('40 05 6162'))).toThrow(/inside a string/);
    expect(decoder.decode(hex('be 88'))).toEqual([['abc', 'def'], [':status', '200']]);
  });

  it('drops an entry larger than the whole table and empties it (RFC 7541 §4.4)', () => {
    const decoder = new HpackDecoder(64);
    decoder.decode(hex('40 01 61 01 62'));
    expect(decoder.tableSize).toBe(34);
    // A 40-byte value makes an entry of 73 bytes: nothing is kept.
    const value = 'v'.repeat(40);
    expect(decoder.decode(Buffer.concat([hex('40 01 61 28'), Buffer.from(value)]))).toEqual([['a', value]]);
    expect(decoder.tableSize).toBe(0);
  });
});

describe('HPACK encoder', () => {
  it('writes static references and literals without indexing, which a decoder reads back and leaves its table alone', () => {
    const fields: HeaderField[] = [
      [':method', 'POST'],
      [':scheme', 'http'],
      [':path', '/etcdserverpb.KV/Txn'],
      [':authority', '127.0.0.1:2379'],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ['grpc-timeout', `${'9'.repeat(200)}m`],
    ];
    const block = encodeHeaders(fields);
    // :method POST and :scheme http are whole static entries (3 and 6).
    expect([...block.subarray(0, 2)]).toEqual([0x83, 0x86]);
    const decoder = new HpackDecoder(4096);
    expect(decoder.decode(block)).toEqual(fields);
    expect(decoder.tableSize).toBe(0);
  });
});

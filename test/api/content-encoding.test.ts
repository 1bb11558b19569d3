// Response compression's threshold counts the bytes that go on the wire (UTF-8), whatever form
// the body has before it is written.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeContent, GZIP_THRESHOLD_BYTES } from '../../runtime/api/content-encoding.js';

describe('encodeContent', () => {
  it('compresses a text whose UTF-8 bytes pass the threshold though its characters do not', () => {
    // Each "é" is one UTF-16 unit and two UTF-8 bytes.
    const text = 'é'.repeat(GZIP_THRESHOLD_BYTES / 2 + 1);
    expect(text.length).toBeLessThanOrEqual(GZIP_THRESHOLD_BYTES);
    const out = encodeContent(text, 'gzip', true);
    expect(out.headers).toEqual({ 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
    expect(gunzipSync(out.body as Uint8Array).toString('utf8')).toBe(text);
  });

  it('leaves a text at the threshold as it is, the same string', () => {
    const text = 'é'.repeat(GZIP_THRESHOLD_BYTES / 2);
    const out = encodeContent(text, 'deflate, gzip', true);
    expect(out).toEqual({ body: text, headers: {} });
  });

  it('compresses bytes over the threshold, and nothing when the client or the gate says no', () => {
    const bytes = new Uint8Array(GZIP_THRESHOLD_BYTES + 1).fill(0x61);
    expect(gunzipSync(encodeContent(bytes, 'gzip', true).body as Uint8Array)).toEqual(Buffer.from(bytes));
    expect(encodeContent(bytes, 'gzip;q=1', true).body).toBe(bytes);
    expect(encodeContent(bytes, 'gzip', false).body).toBe(bytes);
  });
});

// The pool of buffers that large response bodies are written into
// (runtime/machinery/http/lent-bodies.ts): a buffer given back goes to the next body that fits,
// once; nothing that was not lent is ever taken. The server's side (bodies given back when node's
// response closes) is test/server/lent-bodies.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { encodeContent } from '../../runtime/api/content-encoding.js';
import { bodyBuffer, giveBackBody, lendBodyBuffer, LENT_BODY_MIN_BYTES } from '../../runtime/machinery/http/lent-bodies.js';

describe('lent body buffers', () => {
  it('lend a buffer given back to the next body that fits it, and only once', () => {
    const first = lendBodyBuffer(LENT_BODY_MIN_BYTES + 10);
    // Rounded up to whole MiB, so a list grown by a few objects fits the buffer it had.
    expect(first.length).toBe(2 * LENT_BODY_MIN_BYTES);
    const body = first.subarray(0, LENT_BODY_MIN_BYTES + 10);
    giveBackBody(body);
    // Given back twice: kept once, so two borrowers never share it.
    giveBackBody(body);
    const again = lendBodyBuffer(LENT_BODY_MIN_BYTES);
    expect(again.buffer).toBe(first.buffer);
    const other = lendBodyBuffer(LENT_BODY_MIN_BYTES);
    expect(other.buffer).not.toBe(first.buffer);
    giveBackBody(again);
    giveBackBody(other);
  });

  it('lend nothing larger than the free buffers hold from them', () => {
    const small = lendBodyBuffer(LENT_BODY_MIN_BYTES);
    giveBackBody(small);
    const large = lendBodyBuffer(3 * LENT_BODY_MIN_BYTES);
    expect(large.buffer).not.toBe(small.buffer);
    expect(large.length).toBeGreaterThanOrEqual(3 * LENT_BODY_MIN_BYTES);
    giveBackBody(large);
  });

  it('never take a buffer that was not lent: small bodies and bodies of their own', () => {
    const small = bodyBuffer(1000);
    expect(small.length).toBe(1000);
    giveBackBody(small);
    const own = Buffer.allocUnsafeSlow(2 * LENT_BODY_MIN_BYTES);
    giveBackBody(own);
    for (let i = 0; i < 3; i++) {
      const lent = lendBodyBuffer(LENT_BODY_MIN_BYTES);
      expect(lent.buffer).not.toBe(small.buffer);
      expect(lent.buffer).not.toBe(own.buffer);
    }
  });

  it('give large bodies exactly the size asked, on a lent buffer', () => {
    const body = bodyBuffer(LENT_BODY_MIN_BYTES + 1);
    expect(body.length).toBe(LENT_BODY_MIN_BYTES + 1);
    giveBackBody(body);
    expect(lendBodyBuffer(LENT_BODY_MIN_BYTES).buffer).toBe(body.buffer);
  });

  it('take back a body gzip has compressed into another', () => {
    const body = bodyBuffer(LENT_BODY_MIN_BYTES + 5).fill(0x61);
    const content = encodeContent(body, 'gzip', true);
    expect(content.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(content.body as Uint8Array).equals(Buffer.alloc(LENT_BODY_MIN_BYTES + 5, 0x61))).toBe(true);
    expect(lendBodyBuffer(LENT_BODY_MIN_BYTES).buffer).toBe(body.buffer);
  });

  it('keep two free buffers at most, the ones given back last', () => {
    const bodies = [0, 1, 2].map(() => lendBodyBuffer(LENT_BODY_MIN_BYTES));
    for (const body of bodies) giveBackBody(body);
    const again = [0, 1, 2].map(() => lendBodyBuffer(LENT_BODY_MIN_BYTES).buffer);
    expect(again.slice(0, 2)).toEqual([bodies[2].buffer, bodies[1].buffer]);
    expect(again[2]).not.toBe(bodies[0].buffer);
    for (const buffer of again) giveBackBody(new Uint8Array(buffer));
  });

  it('drop the free buffers once no body has been given back for 10 s', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const first = lendBodyBuffer(LENT_BODY_MIN_BYTES);
    giveBackBody(first);
    vi.advanceTimersByTime(9_000);
    // Given back again within the 10 s: the clock starts over.
    const second = lendBodyBuffer(LENT_BODY_MIN_BYTES);
    expect(second.buffer).toBe(first.buffer);
    giveBackBody(second);
    vi.advanceTimersByTime(9_000);
    const third = lendBodyBuffer(LENT_BODY_MIN_BYTES);
    expect(third.buffer).toBe(first.buffer);
    giveBackBody(third);
    vi.advanceTimersByTime(10_000);
    expect(lendBodyBuffer(LENT_BODY_MIN_BYTES).buffer).not.toBe(first.buffer);
  });
});

afterEach(() => {
  vi.useRealTimers();
});

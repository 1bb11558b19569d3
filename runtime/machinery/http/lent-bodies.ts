// Buffers for large response bodies, lent to the encoder of one response and given back once node
// has written that response. A list of 10,000 ConfigMaps from the watch cache is a body of about
// 10 MB, copied together from the items' kept bytes; allocated afresh for every list, each such
// buffer counts as V8 external memory, and V8 answers every 64 MB of it with a full collection of
// the heap ("external memory pressure"): under back-to-back protobuf LISTs of 10,000 that was 30%
// of the server's CPU, and with the buffer reused the server's CPU per list went from 55 to 68 ms
// to 33 to 40.
//
// Only an encoder that makes a fresh body for one response borrows (the list encoders), and a body
// is given back only by what consumes it last: the HTTP listener, when node's response has closed
// (node and the TLS layer are done with the bytes by then, whether the answer was sent whole or
// the client went away), or gzip, once it has compressed the body into another. A lent buffer
// never given back (a HEAD's dropped body, an in-process request) is left to the collector, and a
// body that was never lent is never taken, so nothing else's bytes are ever reused.

/** Bodies smaller than this are allocated as any other: they cost the collector little. */
export const LENT_BODY_MIN_BYTES = 1 << 20;

/** Sizes are rounded up to this, so that a list grown by a few objects still fits the buffer it had. */
const SIZE_STEP = 1 << 20;

/** Free buffers kept: one per list being encoded while another is still being written. */
const FREE_KEPT = 2;

/** Free buffers are dropped once no body has been given back for this long: a burst of lists leaves no memory held. */
const IDLE_MS = 10_000;

const lent = new WeakSet<ArrayBufferLike>();
let free: Buffer[] = [];
let idle: ReturnType<typeof setTimeout> | undefined;

/**
 * A buffer of at least `size` bytes (`size` at least LENT_BODY_MIN_BYTES), for one response's
 * body: a free one when one is large enough, else a new one.
 */
export function lendBodyBuffer(size: number): Buffer {
  let buffer: Buffer | undefined;
  // The one given back last first: a stack, so a steady run of lists keeps using one buffer.
  for (let i = free.length - 1; i >= 0 && !buffer; i--) if (free[i]!.length >= size) buffer = free.splice(i, 1)[0];
  buffer ??= Buffer.allocUnsafeSlow(Math.ceil(size / SIZE_STEP) * SIZE_STEP);
  lent.add(buffer.buffer);
  return buffer;
}

/** `allocate(size)` for an encoder of response bodies: lent when large, else a buffer of its own. */
export function bodyBuffer(size: number): Buffer {
  return size >= LENT_BODY_MIN_BYTES ? lendBodyBuffer(size).subarray(0, size) : Buffer.allocUnsafeSlow(size);
}

/**
 * Gives back the buffer under `body`, a response body node has finished with. A body on a buffer
 * that was not lent, or was given back already, is left alone.
 */
export function giveBackBody(body: Uint8Array): void {
  const buffer = body.buffer;
  if (!lent.delete(buffer)) return;
  free.push(Buffer.from(buffer));
  if (free.length > FREE_KEPT) free.shift();
  clearTimeout(idle);
  idle = setTimeout(() => {
    free = [];
    idle = undefined;
  }, IDLE_MS);
  idle.unref?.();
}

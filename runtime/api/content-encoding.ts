// Response compression as kube-apiserver does it (gate APIResponseCompression, beta, on by
// default): when the client lists the token `gzip` in Accept-Encoding and the serialized response
// exceeds 128 KiB, the body goes out gzip-compressed (at Go's BestSpeed level) with
// `Content-Encoding: gzip` and `Vary: Accept-Encoding`. Smaller bodies are not worth the CPU.
// Watch streams are never compressed.

import { createRequire } from 'node:module';
import { giveBackBody } from '../machinery/http/lent-bodies.js';

/**
 * node:zlib, loaded by the first response worth compressing: loading it at start cost every
 * server about 1.3 MB of memory (its module and native state) for large lists gzipped only for
 * clients that ask. A built-in module resolves the same from any base path.
 */
let zlib: typeof import('node:zlib') | undefined;
const loadZlib = () => (zlib ??= createRequire('/')('node:zlib') as typeof import('node:zlib'));

/** kube-apiserver's defaultGzipThresholdBytes: bodies larger than this are compressed. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/**
 * Whether Accept-Encoding asks for gzip: one of its comma-separated tokens, trimmed, is exactly
 * `gzip` (a token with parameters such as `gzip;q=1` does not count, as upstream only compares).
 */
export function acceptsGzip(acceptEncoding: string | null | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((token) => token.trim() === 'gzip');
}

export interface EncodedContent {
  body: Uint8Array | string;
  headers: Record<string, string>;
}

/** The body as it goes on the wire, compressed when asked for, allowed and large enough. */
export function encodeContent(body: Uint8Array | string, acceptEncoding: string | null | undefined, enabled: boolean): EncodedContent {
  if (!enabled || !acceptsGzip(acceptEncoding)) return { body, headers: {} };
  // Client-go asks for gzip on every request: a text is measured, not copied, unless it is compressed.
  const size = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  if (size <= GZIP_THRESHOLD_BYTES) return { body, headers: {} };
  const compressed = loadZlib().gzipSync(typeof body === 'string' ? Buffer.from(body, 'utf8') : body, { level: loadZlib().constants.Z_BEST_SPEED });
  // The body is read and goes no further: a buffer lent for it (a large list's) is free again.
  if (typeof body !== 'string') giveBackBody(body);
  return { body: compressed, headers: { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } };
}

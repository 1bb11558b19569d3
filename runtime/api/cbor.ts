// CBOR (RFC 8949) bodies as kube-apiserver writes and reads them behind CBORServingAndStorage.
// Its encoder (k8s.io/apimachinery .../serializer/cbor) makes these choices, mirrored here:
//   - every document starts with the self-described CBOR tag 55799 (bytes d9 d9 f7);
//   - map keys are sorted bytewise by their encoding (RFC 8949 core deterministic order);
//   - strings, map keys included, are written as byte strings, not text strings;
//   - floats take the shortest width that keeps their value; integers stay integers;
//   - no indefinite lengths.
// The decoder takes text or byte strings alike, refuses repeated map keys, and yields the same
// JSON-shaped objects every other decoder produces. A watch is a CBOR sequence (RFC 8742): each
// event is one self-described data item, written back to back.
//
// Known gap: fields that Go holds as []byte (Secret data) are base64 text in our JSON form and go
// out as the bytes of that text, where kube-apiserver would send the raw bytes.

import { decode, decodeSequence } from 'cbor2';
import { encodeJsonAsCbor } from './cbor-encode.js';
import { badRequest } from '../errors/status-error.js';

/** The self-described CBOR tag (55799) kube-apiserver prefixes to each document. */
export const SELF_DESCRIBED_CBOR = Uint8Array.of(0xd9, 0xd9, 0xf7);

const text = new TextDecoder('utf-8', { fatal: true });

/** One CBOR document, self-described, as kube-apiserver sends it. */
export function encodeCBOR(value: unknown): Uint8Array {
  return encodeJsonAsCbor(SELF_DESCRIBED_CBOR, value);
}

function stringOf(bytesOrText: unknown): string {
  if (typeof bytesOrText === 'string') return bytesOrText;
  if (bytesOrText instanceof Uint8Array) return text.decode(bytesOrText);
  throw new Error(`cbor: map key of type ${typeof bytesOrText} is not a string`);
}

/** A decoded CBOR item back in JSON shape: byte and text strings both become strings. */
function fromCborShape(value: unknown): unknown {
  if (value instanceof Uint8Array) return text.decode(value);
  if (Array.isArray(value)) return value.map(fromCborShape);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) Object.defineProperty(out, stringOf(k), { value: fromCborShape(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/**
 * Decodes one CBOR document (with or without the self-described tag). Malformed input,
 * repeated keys and trailing bytes are a 400 with the decoder's complaint.
 */
export function decodeCBOR(bytes: Uint8Array): unknown {
  let body = bytes;
  if (bytes.length >= 3 && bytes[0] === 0xd9 && bytes[1] === 0xd9 && bytes[2] === 0xf7) body = bytes.subarray(3);
  try {
    return fromCborShape(decode(body, { preferMap: true, rejectDuplicateKeys: true, rejectStreaming: true }));
  } catch (err) {
    throw badRequest(`cbor: ${(err as Error).message}`);
  }
}

/** The items of a CBOR sequence (a watch stream), each in JSON shape; the self-described tag is dropped. */
export function decodeCBORSequence(bytes: Uint8Array): unknown[] {
  try {
    return [...decodeSequence(bytes, { preferMap: true, rejectDuplicateKeys: true, rejectStreaming: true })].map(fromCborShape);
  } catch (err) {
    throw badRequest(`cbor: ${(err as Error).message}`);
  }
}

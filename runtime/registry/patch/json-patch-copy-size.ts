// The bytes a JSON Patch `copy` adds to the document, as gopkg.in/evanphx/json-patch.v4 counts
// them: the length of the copied value's JSON encoding. kube-apiserver caps their sum over one
// patch (JSONPatchMaxCopyBytes, given to the library's AccumulatedCopySizeLimit), since copies can
// double a document with every operation: thirty of them turn a few kilobytes into gigabytes.
//
// The length is counted while walking the value, without building the text. It is Go's compact
// encoding: <, >, & and U+2028/U+2029 escaped as \u00XX, control characters as \n or \u00XX.
// (A value the patch itself added keeps its own spelling in the library, whitespace included;
// the compact length is what the document's own values have.)

import { RawScalar } from './json-patch-equality.js';

/** kube-apiserver's JSONPatchMaxCopyBytes: 3 MiB, twice etcd's usual request limit. */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/** Characters whose encoding is longer than their UTF-8 bytes. */
const ESCAPED = /["\\\u0000-\u001f<>&\u2028\u2029]/g;

function stringLength(s: string): number {
  let length = Buffer.byteLength(s, 'utf8') + 2;
  ESCAPED.lastIndex = 0;
  if (!ESCAPED.test(s)) return length;
  ESCAPED.lastIndex = 0;
  for (const [c] of s.matchAll(ESCAPED)) {
    if (c === '"' || c === '\\' || c === '\n' || c === '\r' || c === '\t') length += 1;
    else if (c === '\u2028' || c === '\u2029') length += 3;
    else length += 5;
  }
  return length;
}

/** The length in bytes of the JSON encoding of `value` (a null or missing value counts 0). */
export function copiedSize(value: unknown): number {
  return value === null || value === undefined ? 0 : encodedLength(value);
}

function encodedLength(value: unknown): number {
  if (value === null || value === undefined) return 4;
  if (value instanceof RawScalar) return value.raw.length;
  switch (typeof value) {
    case 'string':
      return stringLength(value);
    case 'number':
    case 'bigint':
      return String(value).length;
    case 'boolean':
      return value ? 4 : 5;
  }
  if (Array.isArray(value)) {
    let length = 2 + Math.max(0, value.length - 1);
    for (const item of value) length += encodedLength(item);
    return length;
  }
  const members = Object.entries(value as Record<string, unknown>);
  let length = 2 + Math.max(0, members.length - 1);
  for (const [key, member] of members) length += stringLength(key) + 1 + encodedLength(member);
  return length;
}

// The `continue` token of paged lists, in kube-apiserver's encoding: unpadded base64url of
// {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the collection prefix>"}. Clients
// treat it as opaque; keeping the upstream shape makes tokens debuggable with familiar tools.

import { posix } from 'node:path';
import { badRequest } from '../errors/status-error.js';

const VERSION = 'meta.k8s.io/v1';

export function encodeContinue(key: string, prefix: string, revision: number): string {
  const start = key.startsWith(prefix) ? key.slice(prefix.length) : key;
  return Buffer.from(JSON.stringify({ v: VERSION, rv: revision, start })).toString('base64url');
}

export interface DecodedContinue {
  startKey: string;
  revision: number;
}

/** Returns the absolute start key and revision; a malformed token is a 400 as kube-apiserver reports it. */
export function decodeContinue(token: string, prefix: string): DecodedContinue {
  const fail = (why: string) => badRequest(`invalid continue token: ${why}`);
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]*$/.test(token)) throw new Error('illegal base64 data');
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (e) {
    throw fail(`continue key is not valid: ${(e as Error).message}`);
  }
  const c = (parsed ?? {}) as { v?: unknown; rv?: unknown; start?: unknown };
  if (c.v !== VERSION) throw fail(`continue key is not valid: server does not recognize this encoded version ${String(c.v ?? '')}`);
  if (typeof c.rv !== 'number' || c.rv === 0) {
    throw fail('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof c.start !== 'string' || c.start.length === 0) {
    throw fail('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  }
  // A start key must stay inside the collection: no '..' or '//' tricks to range over other keys.
  const key = c.start.startsWith('/') ? c.start : `/${c.start}`;
  if (posix.normalize(key) !== key || key.endsWith('/.') || (key.length > 1 && key.endsWith('/'))) {
    throw fail(`continue key is not valid: ${c.start}`);
  }
  return { startKey: prefix + key.slice(1), revision: c.rv };
}

// Credentials that do not need a plugin: a fixed token and/or client certificate, or a token in
// a file that is re-read as it rotates (a projected service account token, kubeconfig tokenFile).

import { readFile } from 'node:fs/promises';
import { KubeConfigError } from './errors.js';
import type { CredentialSource, Credentials } from './types.js';

export class StaticCredentialSource implements CredentialSource {
  constructor(private readonly credentials: Credentials) {}
  async get(): Promise<Credentials> {
    return this.credentials;
  }
  invalidate(): void {}
}

/**
 * client-go's NewCachedFileTokenSource keeps a file's token for a minute less ten seconds of
 * leeway: the kubelet rewrites a projected token at 80% of its (at least 10 minute) lifetime,
 * so reading about once a minute always sees a live token.
 */
export const TOKEN_FILE_REREAD_MS = 60_000 - 10_000;

export class TokenFileCredentialSource implements CredentialSource {
  private current: Credentials;
  private readAt: number;
  private reading?: Promise<Credentials>;

  private constructor(
    private readonly path: string,
    token: string,
    private readonly clientCertificate: Credentials['clientCertificate'],
  ) {
    this.current = withCert({ token }, clientCertificate);
    this.readAt = Date.now();
  }

  /**
   * Reads the file once now, so a missing or empty file fails the configuration, not the first
   * request; unless the kubeconfig also has a `token`, which client-go then sends until the file
   * can be read.
   */
  static async open(path: string, clientCertificate?: Credentials['clientCertificate'], token?: string): Promise<TokenFileCredentialSource> {
    const first = await readToken(path).catch((err: unknown) => {
      if (token) return token;
      throw err;
    });
    const source = new TokenFileCredentialSource(path, first, clientCertificate);
    if (first === token) source.readAt = -Infinity;
    return source;
  }

  get(): Promise<Credentials> {
    if (Date.now() - this.readAt < TOKEN_FILE_REREAD_MS) return Promise.resolve(this.current);
    this.reading ??= this.reread().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** A 401 with the token we hold: read the file again before the next request, as client-go resets its cache. */
  invalidate(used: Credentials): void {
    if (used.token === this.current.token) this.readAt = -Infinity;
  }

  private async reread(): Promise<Credentials> {
    try {
      const token = await readToken(this.path);
      if (token !== this.current.token) this.current = withCert({ token }, this.clientCertificate);
    } catch {
      // A file caught mid-rotation or briefly missing: keep the token we have, as client-go's
      // caching token source does, and try again at the next request.
      return this.current;
    }
    this.readAt = Date.now();
    return this.current;
  }
}

async function readToken(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`failed to read token file "${path}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const token = text.trim();
  if (token === '') throw new KubeConfigError(`read empty token from file "${path}"`);
  return token;
}

function withCert(credentials: Credentials, clientCertificate: Credentials['clientCertificate']): Credentials {
  return clientCertificate ? { ...credentials, clientCertificate } : credentials;
}

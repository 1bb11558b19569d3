// The authentication contract and the way kube-apiserver combines authenticators: each one either
// finds no credential of its kind (no opinion), accepts the request, or rejects the credential it
// found. The chain takes the first acceptance; if none accepts, any rejection means 401.

import type { TLSSocket } from 'node:tls';
import { aggregateMessage } from './aggregate.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, type UserInfo } from './user.js';

/** What an authenticator may look at: the headers, the path and the TLS connection. */
export interface AuthenticationRequest {
  /** Header lookup by lowercase name. */
  header(name: string): string | undefined;
  /** The decoded URL path. */
  path: string;
  /** The TLS connection the request came on; absent for in-process requests (app.request in tests). */
  tlsSocket?: TLSSocket;
  /**
   * The audiences a token must be meant for (one of them), when the caller names them: a
   * TokenReview's spec.audiences (authenticator.WithAudiences). Absent: no audience is checked.
   */
  audiences?: string[];
}

export type AuthenticationResult =
  | { kind: 'none' }
  | { kind: 'user'; user: UserInfo; authenticator: string; audiences?: string[] }
  | { kind: 'error'; error: string };

export interface Authenticator {
  /** Short name, for logs. */
  readonly name: string;
  authenticate(req: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult>;
}

export const NO_CREDENTIAL: AuthenticationResult = { kind: 'none' };

/**
 * Tries authenticators in order and returns the first user; rejections from earlier ones do not
 * stop later ones (union.New). When nobody accepts, the collected rejections are the result.
 */
export function unionAuthenticator(authenticators: Authenticator[]): Authenticator {
  return {
    name: 'union',
    async authenticate(req) {
      const errors: string[] = [];
      for (const a of authenticators) {
        const result = await a.authenticate(req);
        if (result.kind === 'user') return result;
        if (result.kind === 'error') errors.push(result.error);
      }
      // TokenReview shows the aggregate in status.error.
      return errors.length === 0 ? NO_CREDENTIAL : { kind: 'error', error: aggregateMessage(errors) };
    },
  };
}

/**
 * Tries `primary`, and only when it saw no credential at all, `fallback` (union.NewFailOnError):
 * a bad credential is never downgraded to anonymous access.
 */
export function failOnErrorAuthenticator(primary: Authenticator, fallback: Authenticator): Authenticator {
  return {
    name: primary.name,
    async authenticate(req) {
      const result = await primary.authenticate(req);
      if (result.kind !== 'none') return result;
      return fallback.authenticate(req);
    },
  };
}

/** Adds system:authenticated to every user the wrapped authenticator accepts (group.NewAuthenticatedGroupAdder). */
export function authenticatedGroupAdder(inner: Authenticator): Authenticator {
  return {
    name: inner.name,
    async authenticate(req) {
      const result = await inner.authenticate(req);
      if (result.kind !== 'user') return result;
      const { user } = result;
      // Anonymous users and users already tagged either way keep their groups, as upstream does.
      if (user.name === ANONYMOUS || user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) {
        return result;
      }
      return { ...result, user: { ...user, groups: [...user.groups, ALL_AUTHENTICATED] } };
    },
  };
}

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
 * Answers at once while the authenticators do (a client certificate, a cached token).
 */
export function unionAuthenticator(authenticators: Authenticator[]): Authenticator {
  const from = (req: AuthenticationRequest, first: number, errors: string[] | undefined): AuthenticationResult | Promise<AuthenticationResult> => {
    for (let i = first; i < authenticators.length; i++) {
      const result = authenticators[i].authenticate(req);
      if (result instanceof Promise) {
        return result.then((r) => {
          if (r.kind === 'user') return r;
          if (r.kind === 'error') (errors ??= []).push(r.error);
          return from(req, i + 1, errors);
        });
      }
      if (result.kind === 'user') return result;
      if (result.kind === 'error') (errors ??= []).push(result.error);
    }
    // TokenReview shows the aggregate in status.error.
    return errors === undefined ? NO_CREDENTIAL : { kind: 'error', error: aggregateMessage(errors) };
  };
  return { name: 'union', authenticate: (req) => from(req, 0, undefined) };
}

/**
 * Tries `primary`, and only when it saw no credential at all, `fallback` (union.NewFailOnError):
 * a bad credential is never downgraded to anonymous access.
 */
export function failOnErrorAuthenticator(primary: Authenticator, fallback: Authenticator): Authenticator {
  const decide = (req: AuthenticationRequest, result: AuthenticationResult) => (result.kind !== 'none' ? result : fallback.authenticate(req));
  return {
    name: primary.name,
    authenticate(req) {
      const result = primary.authenticate(req);
      return result instanceof Promise ? result.then((r) => decide(req, r)) : decide(req, result);
    },
  };
}

/**
 * Adds system:authenticated to every user the wrapped authenticator accepts (group.NewAuthenticatedGroupAdder).
 * The inner authenticators hand out one result object per cached credential, so the answer for
 * each is made once, not per request.
 */
export function authenticatedGroupAdder(inner: Authenticator): Authenticator {
  const added = new WeakMap<AuthenticationResult, AuthenticationResult>();
  const add = (result: AuthenticationResult): AuthenticationResult => {
    if (result.kind !== 'user') return result;
    let answer = added.get(result);
    if (answer) return answer;
    const { user } = result;
    // Anonymous users and users already tagged either way keep their groups, as upstream does.
    if (user.name === ANONYMOUS || user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) answer = result;
    else answer = { ...result, user: { ...user, groups: [...user.groups, ALL_AUTHENTICATED] } };
    added.set(result, answer);
    return answer;
  };
  return {
    name: inner.name,
    authenticate(req) {
      const result = inner.authenticate(req);
      return result instanceof Promise ? result.then(add) : add(result);
    },
  };
}

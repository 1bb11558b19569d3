// Static tokens from --token-auth-file: CSV rows `token,user,uid[,"group1,group2"]`, read the way
// kube-apiserver's tokenfile authenticator reads them (rows need three columns; rows with an
// empty token are skipped; a later duplicate wins).

import { readFileSync } from 'node:fs';
import { parseCsv } from './csv.js';
import { newUserInfo, type UserInfo } from './user.js';

export interface TokenAuthenticator {
  /**
   * The user the token belongs to, or undefined when the token is unknown. An authenticator that
   * checks audiences itself (service account tokens) sets `audienceAware`, is given the audiences
   * the request asks for, and answers with the ones the token is good for; the others count as
   * meant for the server's API audiences (authenticator.WrapAudienceAgnosticToken).
   */
  authenticateToken(token: string, audiences?: string[]): TokenUser | Promise<TokenUser>;
  readonly audienceAware?: boolean;
}

/** An audience-agnostic authenticator answers with the user alone, an audience-aware one with its audiences. */
export type TokenUser = UserInfo | { user: UserInfo; audiences: string[] } | undefined;

export class StaticTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly tokens: Map<string, UserInfo>) {}

  static fromCsv(text: string, source: string): StaticTokenAuthenticator {
    const tokens = new Map<string, UserInfo>();
    for (const record of parseCsv(text)) {
      if (record.length < 3) {
        throw new Error(`token file '${source}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
      }
      const [token, name, uid, groups] = record;
      if (token === '') continue;
      tokens.set(token, newUserInfo(name, { uid, groups: groups === undefined ? [] : groups.split(',') }));
    }
    return new StaticTokenAuthenticator(tokens);
  }

  static fromFile(path: string): StaticTokenAuthenticator {
    return StaticTokenAuthenticator.fromCsv(readFileSync(path, 'utf8'), path);
  }

  /**
   * The table's own entry for the token, not a copy: for a caller that keeps one answer per user
   * and never changes it. The table holds the file's tokens for the server's life anyway, so
   * looking one up by its text keeps no token anywhere new.
   */
  known(token: string): UserInfo | undefined {
    return this.tokens.get(token);
  }

  authenticateToken(token: string): UserInfo | undefined {
    const user = this.tokens.get(token);
    // Hand out copies: later filters add groups, and the table must not change.
    return user && { ...user, groups: [...user.groups], extra: { ...user.extra } };
  }
}

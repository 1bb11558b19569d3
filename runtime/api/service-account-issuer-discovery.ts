// Service account issuer discovery (pkg/serviceaccount/openidmetadata.go): an OpenID provider
// configuration at /.well-known/openid-configuration and the verification keys as a JWK set at
// /openid/v1/jwks, so relying parties outside the cluster can check the tokens this server
// issues. Both are fixed at start, written compactly as Go's encoder writes them, and cacheable
// for an hour. Who may read them is the authorizer's call (RBAC's
// system:service-account-issuer-discovery role).

import type { ServiceAccountKeys, VerificationKey } from '../auth/service-account-keys.js';
import { Response } from '../machinery/http/response.js';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
const CACHE_CONTROL = 'public, max-age=3600';

/** One public key as go-jose writes a JSONWebKey: use, kty, kid, crv, alg, then the key's numbers. */
function jwkOf(key: VerificationKey): Record<string, unknown> {
  const jwk = key.key.export({ format: 'jwk' });
  if (jwk.kty === 'EC') return { use: 'sig', kty: 'EC', kid: key.kid, crv: jwk.crv, alg: key.alg, x: jwk.x, y: jwk.y };
  return { use: 'sig', kty: jwk.kty, kid: key.kid, alg: key.alg, n: jwk.n, e: jwk.e };
}

export class ServiceAccountIssuerDiscovery {
  private readonly jwks: string;
  private readonly algorithms: string[];

  constructor(
    private readonly issuer: string,
    keys: ServiceAccountKeys,
    /** --service-account-jwks-uri; default this server's own /openid/v1/jwks. */
    private readonly jwksUri?: string,
  ) {
    this.jwks = JSON.stringify({ keys: keys.verification.map(jwkOf) });
    this.algorithms = [...new Set(keys.verification.map((k) => k.alg))].sort();
  }

  /** The document at `path`, or undefined for any other path. `origin` is how the client reached us. */
  handle(path: string, origin: string): Response | undefined {
    if (path === OPENID_CONFIGURATION_PATH) {
      const config = {
        issuer: this.issuer,
        jwks_uri: this.jwksUri ?? `${origin}${JWKS_PATH}`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: this.algorithms,
      };
      return new Response(JSON.stringify(config), { status: 200, headers: { 'content-type': 'application/json', 'cache-control': CACHE_CONTROL } });
    }
    if (path === JWKS_PATH) {
      return new Response(this.jwks, { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': CACHE_CONTROL } });
    }
    return undefined;
  }
}

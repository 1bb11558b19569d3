// POST .../serviceaccounts/<name>/token (`kubectl create token`): an authentication.k8s.io/v1
// TokenRequest asks for a JWT of the service account, as kube-apiserver's TokenREST answers it.
// Audiences default to the server's; expirationSeconds defaults to an hour, must be at least ten
// minutes and at most 2^32 seconds (422), and is cut to --service-account-max-token-expiration
// with a warning. A token may be bound to a Pod (which must run as the account), a Secret or a
// Node of the same namespace; a uid given in the reference must match the object's (409). The
// answer is 201 with the request, its status holding the token. Nothing is stored.

import type { ServiceAccountTokenSigner } from '../../auth/service-account-token.js';
import { serviceAccountClaims, type BoundObjects } from '../../auth/service-account-token.js';
import { badRequest, conflict, forbidden, invalid, isStatusError, notFound, type StatusCause } from '../../errors/status-error.js';
import { nodeTokenRequestRefusal, type AudienceRestriction } from '../../registry/admission/node-restriction.js';
import { asObject, isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import type { Store } from '../../registry/store.js';
import type { HandlerContext } from '../handlers/context.js';
import { cannotBeHandled, readBody, respond, writeOptions } from '../handlers/context.js';
import type { SubresourceHandler } from './index.js';

const GROUP = 'authentication.k8s.io';
const KIND = 'TokenRequest';
const DEFAULT_EXPIRATION_SECONDS = 60 * 60;
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** The lifetime kubelet asks for projected tokens, which kube-apiserver extends to a year. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;
const EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 60 * 60;

export interface TokenRequestOptions {
  signer: ServiceAccountTokenSigner;
  issuer: string;
  /** --api-audiences: the audiences a request without any gets. */
  audiences: string[];
  /** --service-account-max-token-expiration in seconds; 0 for no limit. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration: kubelet's pod tokens last a year, warned about after their hour. */
  extendExpiration: boolean;
  pods?: Store;
  secrets?: Store;
  nodes?: Store;
  /** NodeRestriction's ServiceAccountNodeAudienceRestriction, when that gate is on. */
  audienceRestriction?: AudienceRestriction;
}

interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: { kind: string; apiVersion: string; name: string; uid: string };
}

/** The decoder's complaint about a field of the wrong JSON type, as Go's encoding/json words it. */
function typeError(ctx: HandlerContext, jsonType: string, struct: string, path: string, goType: string): Error {
  return cannotBeHandled(ctx, `json: cannot unmarshal ${jsonType} into Go struct field ${struct}.${path} of type ${goType}`);
}

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function specOf(ctx: HandlerContext, body: KubeObject): TokenRequestSpec {
  const spec = body.spec === undefined || body.spec === null ? {} : body.spec;
  if (!isPlainObject(spec)) throw typeError(ctx, jsonTypeOf(spec), KIND, 'spec', 'v1.TokenRequestSpec');
  const audiences = spec.audiences ?? [];
  if (!Array.isArray(audiences)) throw typeError(ctx, jsonTypeOf(audiences), 'TokenRequestSpec', 'spec.audiences', '[]string');
  for (const a of audiences) if (typeof a !== 'string') throw typeError(ctx, jsonTypeOf(a), 'TokenRequestSpec', 'spec.audiences', 'string');
  const expiration = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  if (typeof expiration !== 'number' || !Number.isInteger(expiration)) {
    throw typeError(ctx, typeof expiration === 'number' ? 'number ' + String(expiration) : jsonTypeOf(expiration), 'TokenRequestSpec', 'spec.expirationSeconds', 'int64');
  }
  const result: TokenRequestSpec = { audiences: audiences as string[], expirationSeconds: expiration };
  const ref = spec.boundObjectRef;
  if (ref !== undefined && ref !== null) {
    if (!isPlainObject(ref)) throw typeError(ctx, jsonTypeOf(ref), 'TokenRequestSpec', 'spec.boundObjectRef', 'v1.BoundObjectReference');
    const field = (name: string): string => {
      const v = ref[name] ?? '';
      if (typeof v !== 'string') throw typeError(ctx, jsonTypeOf(v), 'BoundObjectReference', `spec.boundObjectRef.${name}`, 'string');
      return v;
    };
    result.boundObjectRef = { kind: field('kind'), apiVersion: field('apiVersion'), name: field('name'), uid: field('uid') };
  }
  return result;
}

/** The body as a TokenRequest: its type fields, when given, must name one. */
function decode(ctx: HandlerContext, bytes: Uint8Array): KubeObject {
  const obj = ctx.negotiator.decodeBody(ctx.request.headers.get('content-type') ?? undefined, bytes, ctx.target);
  const expected = `${GROUP}/v1`;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind && kind !== KIND) {
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion || 'v1';
    throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${KIND}: no kind "${kind}" is registered for version "${apiVersion || expected}"`);
  }
  if (apiVersion && apiVersion !== expected) throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
  if (obj.metadata !== undefined && obj.metadata !== null && !isPlainObject(obj.metadata)) {
    throw typeError(ctx, jsonTypeOf(obj.metadata), KIND, 'metadata', 'v1.ObjectMeta');
  }
  return obj;
}

/** ValidateTokenRequest's bounds on the lifetime. */
function lifetimeCauses(seconds: number): StatusCause[] {
  const causes: StatusCause[] = [];
  const cause = (detail: string) => ({ reason: 'FieldValueInvalid', message: `Invalid value: ${seconds}: ${detail}`, field: 'spec.expirationSeconds' });
  if (seconds < MIN_EXPIRATION_SECONDS) causes.push(cause('may not specify a duration less than 10 minutes'));
  if (seconds > MAX_EXPIRATION_SECONDS) causes.push(cause('may not specify a duration larger than 2^32 seconds'));
  return causes;
}

/** The object, or the 404 of its kind (also when the kind is not served: nothing can exist). */
async function getOr404(store: Store | undefined, resource: string, namespace: string | undefined, name: string): Promise<KubeObject> {
  if (!store) throw notFound({ group: '', resource }, name);
  return store.get(namespace, name);
}

/** The pod's node, by name only when the Node is gone (kube still names it in the claims). */
async function nodeOfPod(nodes: Store | undefined, nodeName: string): Promise<BoundObjects['node']> {
  if (!nodes) return { name: nodeName, uid: '' };
  try {
    const node = await nodes.get(undefined, nodeName);
    return { name: nodeName, uid: metaOf(node).uid ?? '' };
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return { name: nodeName, uid: '' };
    throw err;
  }
}

async function boundObjects(options: TokenRequestOptions, saName: string, namespace: string, ref: NonNullable<TokenRequestSpec['boundObjectRef']>): Promise<BoundObjects> {
  const slash = ref.apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const bound: BoundObjects = {};
  let uid: string;
  if (group === '' && ref.kind === 'Pod') {
    const pod = await getOr404(options.pods, 'pods', namespace, ref.name);
    if (asObject(pod.spec).serviceAccountName !== saName) {
      throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(saName)} to pod running with different serviceaccount name.`);
    }
    bound.pod = pod;
    uid = metaOf(pod).uid ?? '';
    const nodeName = asObject(pod.spec).nodeName;
    if (typeof nodeName === 'string' && nodeName !== '') bound.node = await nodeOfPod(options.nodes, nodeName);
  } else if (group === '' && ref.kind === 'Node') {
    const node = await getOr404(options.nodes, 'nodes', undefined, ref.name);
    uid = metaOf(node).uid ?? '';
    bound.node = { name: metaOf(node).name ?? '', uid };
  } else if (group === '' && ref.kind === 'Secret') {
    const secret = await getOr404(options.secrets, 'secrets', namespace, ref.name);
    bound.secret = secret;
    uid = metaOf(secret).uid ?? '';
  } else {
    // schema.GroupVersionKind's String(): "group/version, Kind=kind".
    const version = slash < 0 ? ref.apiVersion : ref.apiVersion.slice(slash + 1);
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind}`);
  }
  if (ref.uid !== '' && ref.uid !== uid) {
    throw conflict(
      { group, resource: ref.kind },
      ref.name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return bound;
}

export function tokenRequestHandler(options: TokenRequestOptions): SubresourceHandler {
  const kubeAudiences = new Set(options.audiences);
  return async (ctx: HandlerContext): Promise<Response> => {
    writeOptions(ctx, 'CreateOptions');
    const request = decode(ctx, await readBody(ctx));
    ctx.recordRequestObject?.(request);
    const name = ctx.info.name;
    const namespace = ctx.info.namespace;
    const meta = asObject(request.metadata);
    if (typeof meta.name === 'string' && meta.name !== '' && meta.name !== name) {
      throw invalid(GROUP, KIND, name, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(meta.name)}: must match the service account name if specified`, field: 'metadata.name' }]);
    }
    if (typeof meta.namespace === 'string' && meta.namespace !== '' && meta.namespace !== namespace) {
      throw invalid(GROUP, KIND, name, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(meta.namespace)}: must match the service account namespace if specified`, field: 'metadata.namespace' }]);
    }
    const spec = specOf(ctx, request);
    // NodeRestriction admission, ahead of the TokenRequest's own checks as in kube.
    const refusal = await nodeTokenRequestRefusal(
      ctx.user,
      { namespace, serviceAccount: name, boundObjectRef: spec.boundObjectRef, audiences: spec.audiences },
      { getPod: (pod) => getOr404(options.pods, 'pods', namespace, pod), audienceRestriction: options.audienceRestriction },
    );
    if (refusal) throw forbidden({ group: '', resource: 'serviceaccounts' }, name, refusal);
    const serviceAccount = await ctx.store.get(namespace, name);
    if (spec.audiences.length === 0) spec.audiences = [...options.audiences];
    const now = new Date();
    const causes = lifetimeCauses(spec.expirationSeconds);
    if (causes.length) throw invalid(GROUP, KIND, '', causes);

    const bound = spec.boundObjectRef ? await boundObjects(options, name, namespace, spec.boundObjectRef) : {};
    if (options.maxExpirationSeconds > 0 && spec.expirationSeconds > options.maxExpirationSeconds) {
      ctx.warnings.push(`requested expiration of ${spec.expirationSeconds} seconds shortened to ${options.maxExpirationSeconds} seconds`);
      spec.expirationSeconds = options.maxExpirationSeconds;
    }
    let lifetime = spec.expirationSeconds;
    let warnAfterSeconds: number | undefined;
    if (options.extendExpiration && bound.pod && lifetime === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && spec.audiences.every((a) => kubeAudiences.has(a))) {
      warnAfterSeconds = lifetime;
      lifetime = EXTENDED_EXPIRATION_SECONDS;
    }
    const claims = serviceAccountClaims(options.issuer, { serviceAccount, bound, audiences: spec.audiences, expirationSeconds: lifetime, warnAfterSeconds, now });
    const token = await options.signer.sign(claims);

    const seconds = Math.floor(now.getTime() / 1000);
    const outSpec: Record<string, unknown> = { audiences: spec.audiences, expirationSeconds: spec.expirationSeconds };
    // The reference's fields are omitempty in the API type.
    if (spec.boundObjectRef) outSpec.boundObjectRef = Object.fromEntries(Object.entries(spec.boundObjectRef).filter(([, v]) => v !== ''));
    const answer = {
      kind: KIND,
      apiVersion: `${GROUP}/v1`,
      metadata: {
        ...meta,
        name: meta.name || metaOf(serviceAccount).name,
        namespace: meta.namespace || metaOf(serviceAccount).namespace,
        creationTimestamp: new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'),
      },
      spec: outSpec,
      status: { token, expirationTimestamp: new Date((seconds + spec.expirationSeconds) * 1000).toISOString().replace('.000Z', 'Z') },
    };
    return respond(ctx, 201, answer);
  };
}

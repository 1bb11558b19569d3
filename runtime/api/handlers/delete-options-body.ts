// The DeleteOptions of a DELETE (one object or a collection), read as kube-apiserver 1.33's delete
// handlers read them: a non-empty body is decoded with the negotiated codec (JSON, YAML,
// protobuf, CBOR when served) into meta/v1 DeleteOptions by the meta-internal scheme, and then
// the query is not read at all; an empty body leaves the options to the query. The handlers
// pass the decoder's errors on as they come, so a body that does not decode is a 500 with no
// reason, the object untouched.

import { StatusError, isStatusError } from '../../errors/status-error.js';
import type { DeleteOptions } from '../../registry/delete-options.js';
import { dryRunCauses, invalidOptions } from '../../registry/delete-options.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { getMember } from '../../machinery/own-member.js';
import { recordNumberLiterals } from '../../machinery/go-decode/number-literals.js';
import { jsonDecodeError, typeMetaDecodeError } from '../../machinery/go-decode/index.js';
import { negotiateInput } from '../negotiation.js';
import { jsonNestingBracket } from '../../machinery/nesting.js';
import type { BodyTarget } from '../serialization.js';
import { goJsonError, tooDeepJson } from '../../machinery/go-json.js';
import type { HandlerContext } from './context.js';
import { readBody } from './context.js';

const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const TARGET: BodyTarget = { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' };

/** runtime.NewScheme names a scheme after the line that made it: the meta-internal one, in a -trimpath build. */
const SCHEME_NAME = 'pkg/apis/meta/internalversion/scheme/register.go:27';

/** Kinds the meta-internal scheme finds by name under any version (its unversioned types), as Go types. */
const UNVERSIONED: Record<string, string> = {
  DeleteOptions: 'v1.DeleteOptions',
  CreateOptions: 'v1.CreateOptions',
  UpdateOptions: 'v1.UpdateOptions',
  Status: 'v1.Status',
  APIVersions: 'v1.APIVersions',
  APIGroupList: 'v1.APIGroupList',
  APIGroup: 'v1.APIGroup',
  APIResourceList: 'v1.APIResourceList',
};

/** Kinds it registers under a meta.k8s.io version (v1beta1's are aliases of v1's Go types). */
const META_KINDS: Record<string, string[]> = {
  'meta.k8s.io/v1': ['WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'Table', 'TableOptions', 'PartialObjectMetadata', 'PartialObjectMetadataList'],
  'meta.k8s.io/v1beta1': ['Table', 'TableOptions', 'PartialObjectMetadata', 'PartialObjectMetadataList'],
};

/**
 * The scheme's verdict on the type a body names (missing parts default to meta.k8s.io/v1
 * DeleteOptions): an unknown kind is not registered, a known type other than DeleteOptions has no
 * conversion into it. Both are plain errors upstream, so 500s here.
 */
function checkKind(apiVersion: string, kind: string): void {
  const k = kind || 'DeleteOptions';
  const v = apiVersion || 'meta.k8s.io/v1';
  const goType = (getMember(META_KINDS, v) as string[] | undefined)?.includes(k) ? `v1.${k}` : (getMember(UNVERSIONED, k) as string | undefined);
  if (!goType) throw new StatusError(500, '', `no kind ${JSON.stringify(k)} is registered for version ${JSON.stringify(v)} in scheme ${JSON.stringify(SCHEME_NAME)}`);
  if (goType !== 'v1.DeleteOptions') throw new StatusError(500, '', `converting (${goType}) to (v1.DeleteOptions): unknown conversion`);
}

/** A decoder's complaint, passed on by the delete handler without a reason. */
const decodeFailure = (message: string) => new StatusError(500, '', message);

function decodeJSON(bytes: Uint8Array): KubeObject {
  const text = Buffer.from(bytes).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw decodeFailure(`couldn't get version/kind; json parse error: ${goJsonError(bytes)}`);
  }
  const bracket = jsonNestingBracket(bytes);
  if (bracket) throw decodeFailure(`couldn't get version/kind; json parse error: ${tooDeepJson(bracket)}`);
  if (!isPlainObject(parsed)) {
    const type = Array.isArray(parsed) ? 'array' : parsed === null ? 'null' : typeof parsed;
    throw decodeFailure(`couldn't get version/kind; json parse error: json: cannot unmarshal ${type} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  recordNumberLiterals(text, parsed);
  return parsed as KubeObject;
}

function withoutTypeMeta(obj: KubeObject): KubeObject {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  return rest;
}

function decodeBody(ctx: HandlerContext, bytes: Uint8Array): KubeObject {
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  // 415 for a media type the meta codecs do not read, as NegotiateInputSerializer answers.
  const format = negotiateInput(contentType, { protobufSupported: true, cbor: ctx.config.cbor });
  let body: KubeObject;
  if (format === 'json') {
    body = decodeJSON(bytes);
  } else {
    try {
      body = ctx.negotiator.decodeBody(contentType, bytes, TARGET, checkKind);
    } catch (err) {
      if (isStatusError(err) && err.code === 400) throw decodeFailure(err.message);
      throw err;
    }
  }
  const textual = format === 'json' || format === 'yaml';
  // JSON and YAML are read for apiVersion and kind first, then into the struct.
  const typeMeta = textual ? typeMetaDecodeError(body) : undefined;
  if (typeMeta) throw decodeFailure(`couldn't get version/kind; json parse error: ${typeMeta}`);
  checkKind(typeof body.apiVersion === 'string' ? body.apiVersion : '', typeof body.kind === 'string' ? body.kind : '');
  const typeError = textual ? jsonDecodeError(DELETE_OPTIONS, body) : undefined;
  if (typeError) throw decodeFailure(typeError);
  // kube logs the decoded options in the version the body named (meta.k8s.io/v1 when it named none).
  ctx.recordRequestObject?.({ kind: 'DeleteOptions', apiVersion: typeof body.apiVersion === 'string' && body.apiVersion ? body.apiVersion : 'meta.k8s.io/v1', ...withoutTypeMeta(body) });
  return body;
}

/** The query's DeleteOptions, for a DELETE without a body. */
function fromQuery(q: URLSearchParams): Record<string, unknown> {
  const grace = q.get('gracePeriodSeconds');
  const orphan = q.get('orphanDependents');
  return {
    dryRun: q.getAll('dryRun'),
    gracePeriodSeconds: grace ?? undefined,
    propagationPolicy: q.get('propagationPolicy') ?? undefined,
    // The parameter codec's bool: anything but "0" and "false" is true.
    orphanDependents: orphan === null ? undefined : !(orphan === '0' || orphan.toLowerCase() === 'false'),
  };
}

export async function deleteOptionsFrom(ctx: HandlerContext): Promise<DeleteOptions> {
  const bytes = await readBody(ctx);
  const options = bytes.length > 0 ? decodeBody(ctx, bytes) : fromQuery(ctx.query);
  const dryRun = Array.isArray(options.dryRun) ? options.dryRun.map(String) : [];
  const causes = dryRunCauses(dryRun);
  if (causes.length) throw invalidOptions('DeleteOptions', causes);
  const grace = options.gracePeriodSeconds;
  return {
    dryRun: dryRun.length > 0,
    preconditions: isPlainObject(options.preconditions) ? (options.preconditions as DeleteOptions['preconditions']) : undefined,
    propagationPolicy: typeof options.propagationPolicy === 'string' ? options.propagationPolicy : undefined,
    orphanDependents: typeof options.orphanDependents === 'boolean' ? options.orphanDependents : undefined,
    gracePeriodSeconds: grace === undefined || grace === null ? undefined : Number(grace),
  };
}

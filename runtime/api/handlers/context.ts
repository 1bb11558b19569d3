// What every verb handler gets, and the pieces they share: reading the body, checking its
// apiVersion/kind against the endpoint, the write options of the query, and writing responses.

import { StatusError, badRequest, internalError, isStatusError } from '../../errors/status-error.js';
import { dryRunCauses, invalidOptions } from '../../registry/delete-options.js';
import type { ResourceDefinition } from '../../registry/definition.js';
import type { KubeObject } from '../../machinery/object.js';
import { dropNullMembers } from '../../registry/null-members.js';
import { generatedSchemaIndex } from '../../machinery/openapi-schema.js';
import { parseFieldValidation, type FieldValidation } from '../../registry/unknown-fields.js';
import type { UserInfo } from '../../auth/user.js';
import type { Store, WriteOptions } from '../../registry/store.js';
import type { RequestInfo } from '../../machinery/request-info.js';
import { encodeContent } from '../content-encoding.js';
import { warningHeaders } from '../warning-headers.js';
import { decodeIntoStruct, hasComponent, memberCount, typeMetaDecodeError } from '../../machinery/go-decode/index.js';
import { unrecognized } from '../serializers.js';
import { repeatsMembers, scanJsonMembers, scanYamlDuplicates, type FieldComplaint } from '../duplicate-fields.js';
import { negotiateInput, type Format } from '../negotiation.js';
import type { ApiMetrics } from '../../machinery/metrics.js';
import type { Logger } from '../../machinery/logger.js';
import type { BodyTarget, Negotiator, RequestHints } from '../serialization.js';
import type { WatchResponseSink } from './watch-body.js';
import type { Readable } from 'node:stream';
import { Headers } from '../../machinery/http/headers.js';
import { Response } from '../../machinery/http/response.js';

/** Server-wide settings the verb handlers need (from flags and feature gates). */
export interface HandlerConfig {
  /** The WatchList feature gate: whether watches may ask for sendInitialEvents. */
  watchListEnabled: boolean;
  /** --min-request-timeout: a watch without timeoutSeconds ends after 1x to 2x this. */
  minRequestTimeoutSeconds: number;
  /** The APIResponseCompression feature gate: large responses are gzipped for clients that accept it. */
  responseCompression: boolean;
  /** The CBORServingAndStorage feature gate: PATCH also takes application/apply-patch+cbor. */
  cbor: boolean;
  /** The AuthorizeWithSelectors feature gate: access reviews keep their field and label selectors. */
  authorizeWithSelectors: boolean;
  /** Where watches are counted for /metrics. */
  metrics?: ApiMetrics;
  /** Where a watch ended as unresponsive is logged. */
  logger?: Logger;
}

export const DEFAULT_HANDLER_CONFIG: HandlerConfig = {
  watchListEnabled: false,
  minRequestTimeoutSeconds: 1800,
  responseCompression: true,
  cbor: false,
  authorizeWithSelectors: true,
};

/**
 * The node request a served request arrived as (IncomingMessage, Http2ServerRequest): its body is
 * read from it directly, and `url` is the request target as node read it.
 */
export type NodeRequest = Readable & { readonly url?: string };

/** What reading a body and writing a response need: every request context, virtual kinds' too. */
export interface RequestContext {
  request: Request;
  /** The node request, when served over HTTP (in-process requests have only `request`). */
  incoming?: NodeRequest;
  config: HandlerConfig;
  info: RequestInfo;
  /** The served kind; a virtual kind has only its definition, no store. */
  store: { definition: ResourceDefinition };
  negotiator: Negotiator;
  query: URLSearchParams;
  /** The kind the endpoint takes and returns (a subresource's kind for subresource requests). */
  target: BodyTarget;
  /** Sent as `Warning` headers with the response (unknown fields under fieldValidation=Warn, ...). */
  warnings: string[];
  /** The authenticated caller, for the checks that depend on who writes (RBAC escalation). */
  user?: UserInfo;
  /** Present only when the request is audited: shown the decoded body, for the audit event. */
  recordRequestObject?: RequestObjectRecorder;
}

/**
 * Shown each decoded request object (kube's audit.LogRequestObject); `patch` is shown a patch
 * body as JSON (LogRequestPatch), computed only if the audit level keeps request bodies.
 */
export type RequestObjectRecorder = ((obj: KubeObject) => void) & { patch?: (json: () => unknown) => void };

export interface HandlerContext extends RequestContext {
  store: Store;
  /** The node response, when served over HTTP: a watch writes its events to it directly (watch-body.ts). */
  response?: WatchResponseSink;
}

/** kube-apiserver's MaxRequestBodyBytes (3 MiB), which it gives no flag. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** limitedReadBody's 413; the connection closes, as Go closes one whose large body was left unread. */
function requestBodyTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`, undefined, { Connection: 'close' });
}

/**
 * The request body, refused with 413 once it passes `limit` bytes: before reading when its
 * Content-Length says so, else while reading. Bytes are counted as sent: a Content-Encoding is
 * not decoded (kube-apiserver does not decode request bodies either).
 */
export async function readBody({ request, incoming }: { request: Request; incoming?: NodeRequest }, limit = MAX_REQUEST_BODY_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    // The HTTP parser delivers exactly Content-Length bytes, so the buffered read cannot overrun.
    if (Number(declared) > limit) throw requestBodyTooLarge(limit);
    if (incoming && !incoming.readableDidRead) return readNodeBody(incoming);
    return new Uint8Array(await request.arrayBuffer());
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw requestBodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/**
 * The whole body of a node request, as the chunks node read it (one, for nearly every body): the
 * Request's arrayBuffer() would copy them into an ArrayBuffer of their own behind two promises.
 * Nothing writes to the bytes, and nothing keeps them past the request. Each event comes once per
 * request, so plain listeners do what once() would without its wrapper for each; a second error
 * or a close after the end changes nothing.
 */
function readNodeBody(incoming: NodeRequest): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // A client gone before the read began: node destroyed the request, and no event will come.
    if (incoming.destroyed) return reject(clientGoneEarly());
    // A list only from the second chunk on.
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let total = 0;
    let ended = false;
    incoming.on('data', (chunk: Buffer) => {
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
      total += chunk.length;
    });
    incoming.on('end', () => {
      ended = true;
      resolve(more ? Buffer.concat(more, total) : (first ?? EMPTY_BODY));
    });
    incoming.on('error', reject);
    // Node closes every request once it is answered; only a close before 'end' is a client gone early.
    incoming.on('close', () => {
      if (!ended) reject(clientGoneEarly());
    });
  });
}

const EMPTY_BODY = Buffer.alloc(0);

const clientGoneEarly = () => new Error('the client closed the connection before the request body ended');

/** What the body's text says about its members: repetitions, and where each member first appears. */
export interface BodyMembers {
  duplicates: FieldComplaint[];
  firstSeen?: Map<string, number>;
}

/**
 * The repeated members of a JSON or YAML body (protobuf cannot repeat a field in a way a decoder
 * reports). Skipped under Ignore, where nobody hears about them. `held` is how many members the
 * JSON body held as parsed, before anything was added to or dropped from it (memberCount): when
 * the body repeats nothing, its members are only tokenized if an unknown field needs its position.
 */
export function bodyMembers(format: Format, body: Uint8Array, directive: FieldValidation, held?: number): BodyMembers {
  // Protobuf cannot repeat a member a decoder would report; the CBOR decoder refuses repeated keys itself.
  if (directive === 'Ignore' || format === 'protobuf' || format === 'cbor') return { duplicates: [] };
  if (format === 'json' && held !== undefined && !repeatsMembers(body, held)) return new UnrepeatedMembers(body);
  const text = Buffer.from(body).toString('utf8');
  return format === 'json' ? scanJsonMembers(text) : { duplicates: scanYamlDuplicates(text) };
}

/** A JSON body that repeats no member: it is tokenized only if an unknown field's complaint needs its position. */
class UnrepeatedMembers implements BodyMembers {
  readonly duplicates: FieldComplaint[] = [];

  constructor(private readonly body: Uint8Array) {}

  get firstSeen(): Map<string, number> {
    return scanJsonMembers(Buffer.from(this.body).toString('utf8')).firstSeen;
  }
}

/**
 * Applies the fieldValidation directive to the unknown fields decoding dropped and to repeated
 * members, in document order as a single strict decode reports them (400 under Strict, warnings
 * under Warn).
 */
export function reportUnknownFields(ctx: RequestContext, unknown: readonly string[], directive: FieldValidation, members: BodyMembers): void {
  if (directive === 'Ignore' || (unknown.length === 0 && members.duplicates.length === 0)) return;
  const complaints: FieldComplaint[] = [
    ...members.duplicates,
    ...unknown.map((f) => ({ message: `unknown field ${JSON.stringify(f)}`, at: members.firstSeen?.get(f) ?? Number.MAX_SAFE_INTEGER })),
  ].sort((a, b) => a.at - b.at);
  const messages = complaints.map((c) => c.message);
  if (directive === 'Strict') throw cannotBeHandled(ctx, `strict decoding error: ${messages.join(', ')}`);
  ctx.warnings.push(...messages);
}

/**
 * Null members as decoding into the kind's Go struct leaves them: absent when optional (see
 * null-members.ts). Runs on decoded bodies and on patched documents; a patch's own nulls have
 * already done their work (deleting) by then.
 */
export function dropNulls(definition: ResourceDefinition, obj: KubeObject): void {
  const index = generatedSchemaIndex();
  const schema = index.component(definition.openAPIName);
  if (schema) dropNullMembers(obj, schema, index);
}

/** The 400 of a body the kind's decoder refused (transformDecodeError of the create and update handlers). */
export function cannotBeHandled(ctx: RequestContext, why: string): StatusError {
  const { kind, version } = ctx.target;
  return badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${why}`);
}

/** The fieldValidation query parameter of a create, update or patch. */
export function fieldValidation(ctx: RequestContext, optionsKind: string): FieldValidation {
  return parseFieldValidation(ctx.query.get('fieldValidation') ?? undefined, optionsKind);
}

/**
 * Decodes an object body, checks its apiVersion/kind against the endpoint and drops unknown fields
 * by the fieldValidation directive, as the create and update handlers do.
 */
export async function readObject(ctx: RequestContext, directive: FieldValidation): Promise<KubeObject> {
  const contentType = ctx.request.headers.get('content-type') ?? undefined;
  const body = await readBody(ctx);
  const obj = ctx.negotiator.decodeBody(contentType, body, ctx.target);
  // decodeBody accepted the type, so naming its format cannot fail here.
  const format = negotiateInput(contentType, { cbor: true });
  const { openAPIName, validator } = ctx.store.definition;
  // A kind the generated schema describes counts its members while it is filled below; any other
  // (a custom resource) is counted here, before apiVersion and kind are filled in and it is pruned.
  const typed = hasComponent(openAPIName);
  const counted = typed ? undefined : bodyMembers(format, body, directive, format === 'json' ? memberCount(obj) : undefined);
  // JSON and YAML (turned into JSON upstream) are read into Go structs: apiVersion and kind first.
  const textual = format === 'json' || format === 'yaml';
  const typeMetaError = textual ? typeMetaDecodeError(obj) : undefined;
  if (typeMetaError) throw unrecognized(body, `couldn't get version/kind; json parse error: ${typeMetaError}`, ctx.target);
  const expected = ctx.target.group ? `${ctx.target.group}/${ctx.target.version}` : ctx.target.version;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind && kind !== ctx.target.kind) {
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion || ctx.target.version;
    throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${ctx.target.kind}: no kind "${kind}" is registered for version "${apiVersion || expected}"`);
  }
  if (apiVersion && apiVersion !== expected) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
  }
  // The members filling apiVersion and kind adds, which the body did not hold.
  const added = (Object.hasOwn(obj, 'apiVersion') ? 0 : 1) + (Object.hasOwn(obj, 'kind') ? 0 : 1);
  // Missing type fields take the endpoint's, as the decoder's defaults do upstream.
  obj.apiVersion = expected;
  obj.kind = ctx.target.kind;
  // Then the whole body into the kind's struct, whose type errors come before any strict-decoding complaint.
  // A protobuf body is typed by its decoder, but a Quantity's text is parsed as it is read there too;
  // a CBOR body is read into the same structs upstream (the texts here are the JSON decoder's).
  const decoded = typed ? decodeIntoStruct(openAPIName, obj) : undefined;
  if (decoded?.error) throw cannotBeHandled(ctx, decoded.error);
  const unknown = decoded ? decoded.unknown : (validator.prune?.(obj) ?? []);
  const members = counted ?? bodyMembers(format, body, directive, format === 'json' ? decoded!.members - added : undefined);
  reportUnknownFields(ctx, unknown, directive, members);
  ctx.recordRequestObject?.(obj);
  return obj;
}

/** dryRun and fieldManager of create, update and patch (`<Kind>Options` names the 422). */
export function writeOptions(ctx: RequestContext, optionsKind: string): WriteOptions {
  const dryRun = ctx.query.getAll('dryRun');
  const causes = dryRunCauses(dryRun);
  const fieldManager = ctx.query.get('fieldManager') ?? undefined;
  if (fieldManager !== undefined && fieldManager.length > 128) {
    causes.push({ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' });
  }
  if (causes.length) throw invalidOptions(optionsKind, causes);
  // Without fieldManager, the writer's managedFields entry is named after its User-Agent.
  return { dryRun: dryRun.length > 0, fieldManager, userAgent: ctx.request.headers.get('user-agent') ?? undefined, warnings: ctx.warnings, user: ctx.user };
}

/** The parts of a request, besides Accept, that shape its response. */
export function requestHints(request: Request, query: URLSearchParams): RequestHints {
  return { query, userAgent: request.headers.get('user-agent') ?? undefined };
}

/**
 * The success response. Its object is often stored already, so nothing here may turn it into a
 * failure: Warning headers are built so node accepts every one (see warning-headers.ts).
 */
export function respond(ctx: RequestContext, code: number, obj: unknown): Response {
  const encoded = ctx.negotiator.encodeResponse(ctx.request.headers.get('accept') ?? undefined, obj, ctx.target, requestHints(ctx.request, ctx.query));
  const content = encodeContent(encoded.body, ctx.request.headers.get('accept-encoding'), ctx.config.responseCompression);
  const plain = { 'content-type': encoded.contentType, ...content.headers };
  const warnings = warningHeaders(ctx.warnings);
  // A plain object is written as it is; only repeated Warning headers need a Headers.
  if (warnings.length === 0) return new Response(bodyInit(content.body), { status: code, headers: plain });
  const headers = new Headers(plain);
  for (const warning of warnings) headers.append('Warning', warning);
  let body = content.body;
  // Node writes the head together with a string body in the body's encoding (UTF-8), which would
  // encode the warnings' UTF-8 bytes a second time; before a byte body it writes the head as latin1.
  if (typeof body === 'string' && warnings.some(hasNonAscii)) body = Buffer.from(body, 'utf8');
  return new Response(bodyInit(body), { status: code, headers });
}

const hasNonAscii = (value: string) => /[^\x00-\x7f]/.test(value);

/** Any failure as the Status kube-apiserver would send; unknown errors become 500 InternalError. */
export function errorResponse(err: unknown, negotiator: Negotiator, accept: string | undefined, target: BodyTarget, hints?: RequestHints): Response {
  const status: StatusError = isStatusError(err) ? err : internalError(err);
  let encoded;
  try {
    encoded = negotiator.encodeResponse(accept, status.toStatus(), target, hints);
  } catch {
    encoded = { contentType: 'application/json', body: JSON.stringify(status.toStatus()) };
  }
  return new Response(bodyInit(encoded.body), { status: status.code, headers: { 'content-type': encoded.contentType, ...status.headers } });
}

/**
 * Response wants bytes backed by a plain ArrayBuffer: the same bytes under that type when they
 * are (a 10 MB list body is not copied again), a copy of anything else. No body is written to
 * once it is handed out.
 */
export function bodyInit(body: Uint8Array | string): string | Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return body;
  return body.buffer instanceof ArrayBuffer ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : new Uint8Array(body);
}

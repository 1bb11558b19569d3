// Audit (k8s.io/apiserver's WithAudit): after authentication, the policy decides from the
// authenticated user and the request's attributes what to record; None (or no policy at all:
// the filter is then not installed) costs nothing more. An event is written at each stage the
// rule does not omit: RequestReceived before anything else runs, ResponseStarted when a
// long-running response (a watch) starts, ResponseComplete when the response is done, Panic
// instead when a handler failed with something that is not a StatusError. Request and response
// bodies are read only at the levels that record them, and never a long-running response's.

import { isIP } from 'node:net';
import { internalError, isStatusError } from '../../errors/status-error.js';
import { isLongRunning, type RequestInfo } from '../../machinery/request-info.js';
import type { UserInfo } from '../../auth/user.js';
import type { AuditEvent, AuditObjectReference, AuditResponseStatus, AuditUser } from '../audit/event.js';
import { microTime } from '../audit/event.js';
import type { AuditSink } from '../audit/log-backend.js';
import { levelAtLeast, type PolicyRuleEvaluator, type RequestAuditConfig, type Stage } from '../audit/policy.js';
import { connectionSocket, requestTarget, type KubeContext, type KubeHandler } from '../context.js';
import type { StatusWriter } from '../status-response.js';

export interface AuditConfig {
  evaluate: PolicyRuleEvaluator;
  sink: AuditSink;
}

/** kube's maxUserAgentLength and the suffix it appends when it cuts. */
const MAX_USER_AGENT_LENGTH = 1024;
const USER_AGENT_TRUNCATED = '...TRUNCATED';
/** Bodies larger than this are not copied into the event. */
const MAX_CAPTURED_BODY_BYTES = 3 * 1024 * 1024;

function auditUser(user: UserInfo): AuditUser {
  const out: AuditUser = { username: user.name };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (Object.keys(user.extra).length) out.extra = user.extra;
  return out;
}

/** utilnet.SourceIPs: X-Forwarded-For's entries, X-Real-Ip, then the peer, each once. */
function sourceIPs(c: KubeContext): string[] {
  const ips: string[] = [];
  const add = (raw: string | undefined) => {
    const ip = raw?.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
    if (ip && isIP(ip) && !ips.includes(ip)) ips.push(ip);
  };
  c.req.header('x-forwarded-for')?.split(',').forEach(add);
  add(c.req.header('x-real-ip'));
  const incoming = c.env?.incoming;
  add(incoming && ('stream' in incoming ? incoming.stream.session?.socket?.remoteAddress : incoming.socket?.remoteAddress));
  return ips;
}

function userAgent(c: KubeContext): string | undefined {
  const ua = c.req.header('user-agent');
  if (ua === undefined) return undefined;
  return ua.length > MAX_USER_AGENT_LENGTH ? ua.slice(0, MAX_USER_AGENT_LENGTH) + USER_AGENT_TRUNCATED : ua;
}

const isJSON = (contentType: string | null | undefined) => !!contentType && contentType.includes('json');

/**
 * A deep copy as JSON holds it; byte strings (from CBOR) become base64, as Go's json writes []byte.
 * Undefined for what JSON cannot hold: recording never fails a request.
 */
function jsonCopy(value: unknown): unknown {
  try {
    // The holder's own member, before a Buffer's toJSON has turned it into a list of numbers.
    const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      const own = this[key];
      return own instanceof Uint8Array ? Buffer.from(own).toString('base64') : v;
    });
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

function withoutManagedFields(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const strip = (o: unknown) => {
    const metadata = (o as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    if (metadata && 'managedFields' in metadata) delete metadata.managedFields;
  };
  strip(object);
  if (Array.isArray(object.items)) object.items.forEach(strip);
  return object;
}

async function readJSON(body: Promise<string> | undefined, config: RequestAuditConfig): Promise<unknown> {
  if (!body) return undefined;
  try {
    const text = await body;
    if (!text) return undefined;
    const value = JSON.parse(text) as unknown;
    return config.omitManagedFields ? withoutManagedFields(value) : value;
  } catch {
    return undefined;
  }
}

function capturable(contentType: string | null | undefined, length: string | null | undefined): boolean {
  return isJSON(contentType) && !(length && Number(length) > MAX_CAPTURED_BODY_BYTES);
}

/** The fields of a Status body kube's LogResponseObject copies; for anything else, the code alone. */
async function responseStatus(res: Response): Promise<AuditResponseStatus> {
  const status: AuditResponseStatus = { metadata: {}, code: res.status };
  if (res.status < 400 || !isJSON(res.headers.get('content-type'))) return status;
  try {
    const body = (await res.clone().json()) as Record<string, unknown>;
    if (body?.kind !== 'Status') return status;
    return {
      metadata: {},
      ...(body.status !== undefined && { status: body.status as string }),
      ...(body.message !== undefined && { message: body.message as string }),
      ...(body.reason !== undefined && { reason: body.reason as string }),
      ...(body.details !== undefined && { details: body.details }),
      code: res.status,
    };
  } catch {
    return status;
  }
}

/** The objectRef kube's LogRequestMetadata starts from; every key present so the JSON keeps kube's order. */
function objectRefOf(info: RequestInfo): AuditObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  return {
    resource: info.resource || undefined,
    namespace: info.namespace || undefined,
    name: info.name || undefined,
    uid: undefined,
    apiGroup: info.apiGroup || undefined,
    apiVersion: info.apiVersion || undefined,
    resourceVersion: undefined,
    subresource: info.subresource || undefined,
  };
}

/** Audits a request that failed authentication, given when it arrived; resolves once written (blocking modes). */
export type FailedAuthenticationAudit = (c: KubeContext, received: number) => Promise<void>;

/** getAuthMethods of kube's WithFailedAuthenticationAudit: the credentials the request tried. */
function attemptedMethods(c: KubeContext): string {
  const methods: string[] = [];
  const authorization = c.req.header('authorization')?.trim() ?? '';
  if (isBasicAuth(authorization)) methods.push('basic');
  const parts = authorization.split(' ');
  if (parts.length > 1 && parts[0].toLowerCase() === 'bearer') methods.push('bearer');
  if (new URL(c.req.url).searchParams.get('access_token')?.trim()) methods.push('access_token');
  const socket = connectionSocket(c);
  if (socket && Object.keys(socket.getPeerCertificate() ?? {}).length > 0) methods.push('x509');
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/** Go's Request.BasicAuth: `Basic` (any case), then base64 of `user:password`. */
function isBasicAuth(authorization: string): boolean {
  if (authorization.slice(0, 6).toLowerCase() !== 'basic ') return false;
  const encoded = authorization.slice(6);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  return Buffer.from(encoded, 'base64').toString('latin1').includes(':');
}

/** What the audit policy matches a request by. */
function policyAttributes(info: RequestInfo, user: { username: string; groups: string[] }) {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

/**
 * kube's WithFailedAuthenticationAudit: a request that failed authentication is audited at the
 * level the policy gives a request without a user, in one event at ResponseStarted (its 401 is
 * written at once; WithAudit, behind authentication, never sees it) whose user is empty and whose
 * status says which credentials were tried. Called just before the 401 is answered.
 */
export function failedAuthenticationAudit(audit: AuditConfig): FailedAuthenticationAudit {
  const blocking = audit.sink.mode !== 'batch';
  return async (c, received) => {
    const info = c.get('requestInfo');
    // kube asks the policy about a request that has no user yet.
    const config = audit.evaluate(policyAttributes(info, { username: '', groups: [] }));
    if (config.level === 'None' || config.omitStages.has('ResponseStarted')) return;
    const objectRef = objectRefOf(info);
    const ua = userAgent(c);
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: config.level,
      auditID: c.get('auditID') ?? '',
      stage: 'ResponseStarted',
      requestURI: requestTarget(c),
      verb: info.verb,
      user: {},
      sourceIPs: sourceIPs(c),
      ...(ua !== undefined && { userAgent: ua }),
      ...(objectRef && { objectRef }),
      responseStatus: { metadata: {}, message: attemptedMethods(c), code: 401 },
      requestReceivedTimestamp: microTime(received),
      stageTimestamp: microTime(Date.now()),
    };
    const written = audit.sink.process(event);
    if (blocking) await written;
  };
}

/**
 * `writeStatus` answers the StatusErrors of the filters after this one (impersonation, max in-flight,
 * authorization): their refusals are responses the event records, not panics.
 */
export function withAudit(inner: KubeHandler, audit: AuditConfig, writeStatus: StatusWriter): KubeHandler {
  const blocking = audit.sink.mode !== 'batch';
  const strict = audit.sink.mode === 'blocking-strict';
  return async (c) => {
    const received = Date.now();
    const info = c.get('requestInfo');
    const user = c.get('user');
    const config = audit.evaluate(policyAttributes(info, { username: user.name, groups: user.groups }));
    if (config.level === 'None') return inner(c);

    const objectRef = objectRefOf(info);
    const ev = {
      auditID: c.get('auditID') ?? '',
      requestURI: requestTarget(c),
      verb: info.verb,
      user: auditUser(user),
      impersonatedUser: undefined as AuditUser | undefined,
      sourceIPs: sourceIPs(c),
      userAgent: userAgent(c),
      responseStatus: undefined as AuditResponseStatus | undefined,
      requestObject: undefined as unknown,
      responseObject: undefined as unknown,
      requestReceivedTimestamp: microTime(received),
    };

    const emit = (stage: Stage): Promise<boolean> | undefined => {
      if (config.omitStages.has(stage)) return undefined;
      const annotations = c.get('auditAnnotations');
      const event: AuditEvent = {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: config.level,
        auditID: ev.auditID,
        stage,
        requestURI: ev.requestURI,
        verb: ev.verb,
        user: ev.user,
        ...(ev.impersonatedUser && { impersonatedUser: ev.impersonatedUser }),
        sourceIPs: ev.sourceIPs,
        ...(ev.userAgent !== undefined && { userAgent: ev.userAgent }),
        ...(objectRef && { objectRef: { ...objectRef } }),
        ...(ev.responseStatus && { responseStatus: ev.responseStatus }),
        ...(ev.requestObject !== undefined && { requestObject: ev.requestObject }),
        ...(ev.responseObject !== undefined && { responseObject: ev.responseObject }),
        requestReceivedTimestamp: ev.requestReceivedTimestamp,
        stageTimestamp: microTime(Date.now()),
        ...(annotations && { annotations: { ...annotations } }),
      };
      return audit.sink.process(event);
    };
    const settle = async (written: Promise<boolean> | undefined) => (blocking && written ? written : true);

    // kube's LogRequestObject: the decoded object names what the URL did not (a create's name),
    // and is kept, as decoded, from Request on.
    let decoded: unknown;
    const keepsBodies = levelAtLeast(config.level, 'Request');
    const record = (obj: Record<string, unknown>) => {
      const metadata = obj.metadata as { name?: string; namespace?: string; uid?: string; resourceVersion?: string } | undefined;
      if (objectRef && metadata) {
        if (metadata.namespace) objectRef.namespace ??= metadata.namespace;
        if (metadata.name) objectRef.name ??= metadata.name;
        if (metadata.uid) objectRef.uid ??= metadata.uid;
        if (metadata.resourceVersion) objectRef.resourceVersion ??= metadata.resourceVersion;
      }
      if (keepsBodies) decoded = jsonCopy(obj);
    };
    // kube's LogRequestPatch: the patch as the client sent it, in JSON (an apply body's YAML or CBOR transcoded).
    const patch = (json: () => unknown) => {
      if (keepsBodies) decoded = jsonCopy(json());
    };

    c.set('auditRequestObject', Object.assign(record, { patch }));

    const received$ = emit('RequestReceived');
    if (!(await settle(received$)) && strict) throw internalError(new Error('failed to store audit event'));

    try {
      await inner(c);
    } catch (err) {
      if (!isStatusError(err)) {
        await panic(err);
        throw err;
      }
      c.res = await writeStatus(c, err);
    }

    const impersonated = c.get('user');
    if (impersonated !== user) ev.impersonatedUser = auditUser(impersonated);
    if (c.error && !isStatusError(c.error)) return panic(c.error);

    ev.responseStatus = await responseStatus(c.res);
    // Only what a handler decoded is logged, as kube logs it: a body nobody read (or could read) is not.
    if (decoded !== undefined) ev.requestObject = config.omitManagedFields ? withoutManagedFields(decoded) : decoded;

    if (isLongRunning(info)) {
      await settle(emit('ResponseStarted'));
      const outgoing = c.env?.outgoing;
      if (outgoing && !outgoing.writableFinished) {
        outgoing.once('close', () => void emit('ResponseComplete'));
        return;
      }
      await settle(emit('ResponseComplete'));
      return;
    }
    if (levelAtLeast(config.level, 'RequestResponse') && capturable(c.res.headers.get('content-type'), c.res.headers.get('content-length'))) {
      ev.responseObject = await readJSON(c.res.clone().text(), config);
    }
    await settle(emit('ResponseComplete'));

    async function panic(err: unknown): Promise<void> {
      ev.responseStatus = {
        metadata: {},
        status: 'Failure',
        message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}`,
        reason: 'InternalError',
        code: 500,
      };
      await settle(emit('Panic'));
    }
  };
}

// One HTTPS connection pool per client certificate, credentials asked for before every request,
// and client-go's retry rules (rest/with_retry.go, rest/request.go):
//  - a 429, or a 5xx carrying an integer Retry-After, is tried again after that many seconds, up
//    to 10 times. A 429 means the server turned the request away unread, so every verb is tried
//    again; a 5xx may come after the write happened, so POST and PATCH are not.
//  - a connection reset or early EOF is tried again (after a second) for GET only.
//  - a 401 makes the credential source forget what it gave (a plugin then runs again) and the
//    request is sent once more with fresh credentials.

import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { ClientConfig, Credentials } from '../config/types.js';
import type { ResponseCodec } from './codec.js';
import { statusErrorOf } from './status-error.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: string | Uint8Array;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface TransportOptions {
  /** Retries after a Retry-After answer or a dropped GET; client-go's default is 10. */
  maxRetries?: number;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** Responses in this format where the server has it (protobuf: see client/protobuf.ts); JSON otherwise. */
  codec?: ResponseCodec;
}

const MAX_RETRIES = 10;
const DEFAULT_USER_AGENT = 'kube-lite-client/v0.1.0';

/** Error codes of a connection that broke before or while the reply came (Go's IsProbableEOF, IsConnectionReset). */
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_SOCKET']);

export function isDroppedConnection(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return !!e && ((e.code !== undefined && DROPPED.has(e.code)) || e.message === 'socket hang up');
}

function retryAfterSeconds(headers: IncomingHttpHeaders): number | undefined {
  const h = headers['retry-after'];
  return typeof h === 'string' && /^\d+$/.test(h.trim()) ? Number(h) : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class Transport {
  readonly config: ClientConfig;
  private readonly maxRetries: number;
  private readonly userAgent: string;
  readonly codec?: ResponseCodec;
  /** The Accept header of reads: the codec's format first when there is one. */
  readonly accept: string;
  private agent?: Agent;
  /** The client certificate `agent` handshakes with ('' for none). */
  private agentIdentity = '';

  constructor(config: ClientConfig, options: TransportOptions = {}) {
    this.config = config;
    this.maxRetries = options.maxRetries ?? MAX_RETRIES;
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.codec = options.codec;
    this.accept = this.codec ? `${this.codec.mediaType}, application/json` : 'application/json';
  }

  /** Closes the pooled connections; the client stays usable (the next request opens new ones). */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  /** A request whose reply is read whole; a failure status throws a StatusError. */
  async request(spec: RequestSpec): Promise<Reply> {
    const reply = await this.send(spec, async (res) => ({ status: res.statusCode ?? 0, headers: res.headers, body: await readAll(res) }));
    if (reply.status >= 200 && reply.status < 300) return reply;
    throw failure(reply, this.codec);
  }

  /** The reply's body in its JSON form (decoded by the codec when the server answered in its format). */
  async json<T>(spec: RequestSpec): Promise<T> {
    const reply = await this.request({ accept: this.accept, ...spec });
    if (this.codec && isMedia(reply.headers, this.codec.mediaType)) return this.codec.decodeObject(reply.body) as T;
    return JSON.parse(reply.body.toString('utf8')) as T;
  }

  /** A streaming request (watch): the open response once the server answered 200. */
  async stream(spec: RequestSpec): Promise<IncomingMessage> {
    return this.send(spec, async (res) => {
      if (res.statusCode === 200) return res;
      throw failure({ status: res.statusCode ?? 0, headers: res.headers, body: await readAll(res) }, this.codec);
    });
  }

  /** Sends with retries; `take` turns a final response into the result. */
  private async send<R>(spec: RequestSpec, take: (res: IncomingMessage) => Promise<R>): Promise<R> {
    let reauthenticated = false;
    for (let attempt = 0; ; attempt++) {
      const credentials = await this.config.credentials.get(spec.signal);
      let res: IncomingMessage;
      try {
        res = await this.once(spec, credentials);
      } catch (err) {
        if (await this.retryDropped(spec, attempt, err)) continue;
        throw err;
      }
      const status = res.statusCode ?? 0;
      if (status === 401 && !reauthenticated) {
        res.resume();
        reauthenticated = true;
        this.config.credentials.invalidate(credentials);
        attempt--;
        continue;
      }
      const wait = status === 429 || status >= 500 ? retryAfterSeconds(res.headers) : undefined;
      const replayable = status === 429 || (spec.method !== 'POST' && spec.method !== 'PATCH');
      if (wait !== undefined && replayable && attempt < this.maxRetries) {
        res.resume();
        await sleep(wait * 1000, spec.signal);
        continue;
      }
      try {
        return await take(res);
      } catch (err) {
        if (await this.retryDropped(spec, attempt, err)) continue;
        throw err;
      }
    }
  }

  /**
   * A connection dropped before the whole answer came: client-go sends GETs again (after a
   * second), never writes, which may have taken effect. Throws the abort reason when aborted.
   */
  private async retryDropped(spec: RequestSpec, attempt: number, err: unknown): Promise<boolean> {
    if (spec.signal?.aborted) throw spec.signal.reason;
    if (spec.method !== 'GET' || attempt >= this.maxRetries || !isDroppedConnection(err)) return false;
    await sleep(1000, spec.signal);
    return true;
  }

  private agentFor(credentials: Credentials): Agent {
    const cert = credentials.clientCertificate;
    const identity = cert ? `${cert.cert}\n${cert.key}` : '';
    if (this.agent && identity === this.agentIdentity) return this.agent;
    // New certificate data: the old connections carry the old identity, so they go.
    this.agent?.destroy();
    const { tls } = this.config;
    this.agent = new Agent({
      keepAlive: true,
      ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
      rejectUnauthorized: !tls.insecureSkipTLSVerify,
      ...(tls.serverName !== undefined ? { servername: tls.serverName } : {}),
      ...(cert ? { cert: cert.cert, key: cert.key } : {}),
    });
    this.agentIdentity = identity;
    return this.agent;
  }

  private once(spec: RequestSpec, credentials: Credentials): Promise<IncomingMessage> {
    const url = new URL(this.config.server + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: spec.accept ?? 'application/json', 'user-agent': this.userAgent };
    if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
    if (spec.body !== undefined) {
      headers['content-type'] = spec.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(spec.body));
    }
    const { tls } = this.config;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, {
        method: spec.method,
        headers,
        agent: this.agentFor(credentials),
        ...(tls.serverName !== undefined ? { servername: tls.serverName } : {}),
        ...(spec.signal ? { signal: spec.signal } : {}),
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end(spec.body);
    });
  }
}

/** Whether a reply's Content-Type is `mediaType` (parameters such as `;stream=watch` aside). */
export function isMedia(headers: IncomingHttpHeaders, mediaType: string): boolean {
  return String(headers['content-type'] ?? '').split(';')[0].trim() === mediaType;
}

function failure(reply: Reply, codec?: ResponseCodec): Error {
  if (codec && isMedia(reply.headers, codec.mediaType)) {
    try {
      return statusErrorOf(reply.status, codec.decodeObject(reply.body));
    } catch {
      // Not a decodable Status: the code alone says what happened.
      return statusErrorOf(reply.status, '');
    }
  }
  const text = reply.body.toString('utf8');
  let body: unknown = text;
  if (/json/.test(String(reply.headers['content-type']))) {
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON after all: the text is the message.
    }
  }
  return statusErrorOf(reply.status, body);
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('aborted', () => reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
  });
}

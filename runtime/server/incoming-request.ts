// A request node has read, as the Fetch standard's Request the app is handed (Hono's `c.req.raw`).
// Nothing is copied until asked for: the URL is the scheme, Host and target joined; a header is
// looked up in what node parsed; the body is node's stream, read by the API's handlers straight
// from it (readBody in runtime/api/handlers/context.ts), and a web stream only when asked for.
// Node's own Request is undici's, which would load all of undici (runtime/machinery/http/headers.ts).

import { Http2ServerRequest } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Headers, normalizeHeaderValue, TOKEN } from '../machinery/http/headers.js';
import { readAll } from '../machinery/http/read-all.js';
import { joinHostPort } from '../machinery/join-host-port.js';

export type NodeIncoming = IncomingMessage | Http2ServerRequest;

/**
 * Why a request is refused before any handler sees it, as Go's server refuses it: answered 400,
 * with the reason after the status when Go gives one (`400 Bad Request: missing required Host
 * header`), plain when Go gives none (`public` false).
 */
export class RequestTargetError extends Error {
  constructor(
    message: string,
    readonly public_ = true,
  ) {
    super(message);
  }
}

/**
 * Headers a request has at most once (node keeps the first of them in `headers`, where Go's
 * Header.Get would read the first too); their repeats are joined as the Fetch standard joins
 * any repeated header, from the raw list, so that nothing the client sent is silently dropped.
 */
const SINGLE_VALUED = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent',
]);

/** The Headers of a node request: a lookup in what node parsed, until something changes them. */
class IncomingHeaders extends Headers {
  readonly #incoming: NodeIncoming;
  #filled = false;

  constructor(incoming: NodeIncoming) {
    super();
    this.#incoming = incoming;
  }

  /** Every header the client sent, as Headers, for iteration and changes. */
  #fill(): void {
    if (this.#filled) return;
    this.#filled = true;
    const raw = this.#incoming.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) if (raw[i][0] !== ':') super.append(raw[i], raw[i + 1]);
  }

  /** The value as the Fetch standard would have it, or undefined when only the full list can say. */
  #lookup(name: string): string | null | undefined {
    if (this.#filled || !TOKEN.test(name)) return undefined;
    const key = name.toLowerCase();
    const incoming = this.#incoming;
    if (!(incoming instanceof Http2ServerRequest) && !SINGLE_VALUED.has(key) && key !== 'set-cookie' && key !== 'cookie') {
      // node joins repeats of these with ", " as the standard does.
      if (!Object.hasOwn(incoming.headers, key)) return null;
      const value = incoming.headers[key];
      if (typeof value === 'string') return normalizeHeaderValue(value);
    }
    const raw = incoming.rawHeaders;
    const separator = key === 'cookie' ? '; ' : ', ';
    let found: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const rawName = raw[i];
      if (rawName.length !== key.length || rawName.toLowerCase() !== key) continue;
      const value = normalizeHeaderValue(raw[i + 1]);
      found = found === null ? value : found + separator + value;
    }
    return found;
  }

  override get(name: string): string | null {
    const value = this.#lookup(name);
    if (value !== undefined) return value;
    this.#fill();
    return super.get(name);
  }

  override has(name: string): boolean {
    const value = this.#lookup(name);
    if (value !== undefined) return value !== null;
    this.#fill();
    return super.has(name);
  }

  override append(name: string, value: string): void {
    this.#fill();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.#fill();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.#fill();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    this.#fill();
    return super.getSetCookie();
  }

  override entries(): ReturnType<Headers['entries']> {
    this.#fill();
    return super.entries();
  }

  override keys(): ReturnType<Headers['keys']> {
    this.#fill();
    return super.keys();
  }

  override values(): ReturnType<Headers['values']> {
    this.#fill();
    return super.values();
  }

  override forEach(callback: (value: string, key: string, parent: globalThis.Headers) => void, thisArg?: unknown): void {
    this.#fill();
    super.forEach(callback, thisArg);
  }

  override toNodeHeaders(): Record<string, string | string[]> {
    this.#fill();
    return super.toNodeHeaders();
  }
}

/** A Host (or :authority) with nothing in it that could change where the URL points. */
const SIMPLE_HOST = /^[a-z0-9._-]+(?::(?:[1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}))?$/;
/** A target of plain path and query characters, without dot segments. */
const SIMPLE_TARGET = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
/** The bytes Go accepts in a Host header (httpguts.ValidHostHeader): RFC 3986's host and port characters. */
const GO_VALID_HOST = /^[0-9A-Za-z!$%&'()*+,\-.:;=[\]_~]*$/;

/**
 * Go's server's checks of an HTTP/1.x request's Host, before any handler: one at most (two or
 * more are a plain 400), required from HTTP/1.1 on, and only of the characters a host and port
 * are written with. An empty Host is present, and passes.
 */
function checkHost(incoming: IncomingMessage): void {
  const raw = incoming.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') hosts++;
  if (hosts > 1) throw new RequestTargetError('too many Host headers', false);
  if (hosts === 0 && (incoming.httpVersionMajor > 1 || incoming.httpVersionMinor >= 1)) throw new RequestTargetError('missing required Host header');
  if (hosts === 1 && !GO_VALID_HOST.test(incoming.headers.host ?? '')) throw new RequestTargetError('malformed Host header');
}

/** `OPTIONS *`: a question about the server as a whole, which Go's server answers itself. */
export const isServerWideOptions = (incoming: NodeIncoming) => incoming.method === 'OPTIONS' && incoming.url === '*';

/** The host a request's URL names when its own Host cannot: the address it came to. */
function localHost(incoming: NodeIncoming): string {
  const socket = incoming.socket;
  return joinHostPort(socket?.localAddress ?? '127.0.0.1', socket?.localPort ?? 443);
}

/**
 * The request's URL: the scheme and Host before the target as sent. Only a target or Host that
 * could read differently once parsed goes through URL (kube routes on the target as sent: see
 * routingPath in app.ts; the URL serves the query and in-process requests). A Host Go serves but
 * URL cannot parse (empty, a port past 65535) gives way to the address the request came to.
 */
export function requestURL(incoming: NodeIncoming): string {
  const target = incoming.url ?? '';
  const http2 = incoming instanceof Http2ServerRequest;
  if (!http2) checkHost(incoming);
  if (target.startsWith('http://') || target.startsWith('https://')) {
    if (http2) throw new RequestTargetError('an absolute :path is not allowed in HTTP/2');
    return parsed(target).href;
  }
  const scheme = http2 ? incoming.scheme : (incoming.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
  if (http2 && scheme !== 'https' && scheme !== 'http') throw new RequestTargetError(`unsupported scheme ${JSON.stringify(scheme)}`);
  let host = (http2 ? incoming.authority : incoming.headers.host) || localHost(incoming);
  if (http2 && !GO_VALID_HOST.test(host)) throw new RequestTargetError('malformed Host header');
  // The server-wide OPTIONS, which the listener answers itself (see isServerWideOptions).
  if (isServerWideOptions(incoming)) return `${scheme}://${localHost(incoming)}/`;
  if (target[0] !== '/') throw new RequestTargetError('the request target must start with /');
  if (SIMPLE_HOST.test(host) && SIMPLE_TARGET.test(target) && !DOT_SEGMENT.test(target)) return `${scheme}://${host}${target}`;
  checkNoBackslash(target);
  if (!URL.canParse(`${scheme}://${host}/`)) host = localHost(incoming);
  return parsed(`${scheme}://${host}${target}`).href;
}

function parsed(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new RequestTargetError('malformed request target');
  }
}

/** URL would read a backslash in the path as a slash; the target as sent has none. */
function checkNoBackslash(target: string): void {
  const backslash = target.indexOf('\\');
  if (backslash < 0) return;
  const query = target.indexOf('?');
  if (query < 0 || backslash < query) throw new RequestTargetError('backslash in the request path');
}

/** The method as sent; node has checked that it is a token. */
const methodOf = (incoming: NodeIncoming) => incoming.method || 'GET';

/** A client gone before its answer aborts the request's signal. */
const CLIENT_GONE = 'Client connection prematurely closed.';

/** What the request reads of node's response to it: whether it closed, and whether finished first. */
export interface ResponseProgress {
  readonly writableFinished: boolean;
  /** HTTP/1.1's response. */
  readonly closed?: boolean;
  /** HTTP/2's, whose stream says whether it closed. */
  readonly stream?: { readonly closed: boolean };
  once(event: 'close', listener: () => void): unknown;
}

export class IncomingRequest implements globalThis.Request {
  readonly method: string;
  readonly url: string;
  readonly incoming: NodeIncoming;
  readonly cache = 'default' as const;
  readonly credentials = 'same-origin' as const;
  readonly destination = '' as const;
  readonly integrity = '';
  readonly keepalive = false;
  readonly mode = 'cors' as const;
  readonly redirect = 'follow' as const;
  readonly referrer = 'about:client';
  readonly referrerPolicy = '' as const;
  readonly duplex = 'half' as const;
  #headers: IncomingHeaders | undefined;
  readonly #response: ResponseProgress | undefined;
  #abort: AbortController | undefined;
  #body: ReadableStream<Uint8Array<ArrayBuffer>> | null | undefined;

  /** `response`: node's response to it, whose close unfinished aborts the signal (none in-process). */
  constructor(incoming: NodeIncoming, response?: ResponseProgress) {
    this.incoming = incoming;
    this.#response = response;
    this.method = methodOf(incoming);
    this.url = requestURL(incoming);
  }

  get headers(): Headers {
    return (this.#headers ??= new IncomingHeaders(this.incoming));
  }

  /**
   * Aborted when the client goes before its answer is written (its response closes unfinished).
   * Made when first asked for, and only then is the response watched: most requests never ask.
   */
  get signal(): AbortSignal {
    if (this.#abort) return this.#abort.signal;
    const abort = (this.#abort = new AbortController());
    const response = this.#response;
    if (!response) return abort.signal;
    const incoming = this.incoming;
    const gone = () => {
      if (!response.writableFinished || (incoming instanceof Http2ServerRequest && incoming.aborted)) {
        abort.abort(incoming.errored ? String(incoming.errored) : CLIENT_GONE);
      }
    };
    if (response.stream ? response.stream.closed : response.closed) gone();
    else response.once('close', gone);
    return abort.signal;
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#body !== undefined) return this.#body;
    if (this.method === 'GET' || this.method === 'HEAD') return (this.#body = null);
    // Both kinds of node request are Readables (HTTP/2's compatibility request too).
    return (this.#body = Readable.toWeb(this.incoming as Readable) as ReadableStream<Uint8Array<ArrayBuffer>>);
  }

  get bodyUsed(): boolean {
    return this.incoming.readableDidRead;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#body === undefined && this.bodyUsed) throw new TypeError('Request: body already used');
    const body = this.body;
    if (!body) return new Uint8Array(0);
    return new Uint8Array(await readAll(body)) as Uint8Array<ArrayBuffer>;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' });
  }

  /** Parsing forms is the standard's own work: handed to node's Request. */
  async formData(): Promise<FormData> {
    return new globalThis.Request(this.url, { method: 'POST', headers: this.headers, body: await this.bytes() }).formData();
  }

  textStream(): ReadableStream<string> {
    const body = this.body;
    if (!body) return new ReadableStream<string>({ start: (controller) => controller.close() });
    return body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array<ArrayBuffer>>);
  }

  /** A copy is node's Request, with the body split between the two. */
  clone(): Request {
    let body: ReadableStream<Uint8Array<ArrayBuffer>> | null = this.body;
    if (body) [this.#body, body] = body.tee();
    return new globalThis.Request(this.url, { method: this.method, headers: this.headers, body, signal: this.signal, duplex: 'half' } as RequestInit);
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }
}

// The Fetch standard's Response, for the answers the server makes: handlers return one, the
// filters read its status and headers, and the HTTPS server writes it (runtime/server/
// node-listener.ts). Node's own is undici's, which loads all of undici (headers.ts says what that
// costs). An answer keeps the body and headers it was made with, a string, bytes or a stream, and
// a plain object of headers as given, so that the server writes them as they are; `headers` and
// `body` make the standard's forms the first time they are asked for.

import { HttpHeaders, type Headers } from './headers.js';
import { readAll } from './read-all.js';


type BodyInit = ConstructorParameters<typeof globalThis.Response>[0];
type ResponseInit = ConstructorParameters<typeof globalThis.Response>[1];

/** What a Response holds as its body until read. */
export type ResponseContent = string | Uint8Array | ReadableStream<Uint8Array> | null;

/** Statuses whose answers carry no body (the Fetch standard's null body statuses). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An object literal of headers (not a Headers, a Map or a list of pairs): written as it is. */
function isRecord(value: object): value is Record<string, string> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function contentOf(body: BodyInit): ResponseContent {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) return body.toString();
  if (typeof (body as ReadableStream).getReader === 'function') return body as ReadableStream<Uint8Array>;
  // Blob and FormData answers are never made here; they would need the standard's encoders.
  throw new TypeError('Response: the body must be a string, bytes, URLSearchParams or a ReadableStream');
}

/** The body and headers a Response was made with, for the server to write (see node-listener.ts). */
export interface WrittenResponse {
  content: ResponseContent;
  /** A plain object as given, or the Headers once anything asked for them. */
  headers: Record<string, string> | HttpHeaders | undefined;
}

let written: (res: HttpResponse) => WrittenResponse;

class HttpResponse implements globalThis.Response {
  readonly status: number;
  readonly statusText: string;
  readonly type = 'default' as const;
  readonly url = '';
  readonly redirected = false;
  #content: ResponseContent;
  #plainHeaders: Record<string, string> | undefined;
  #headers: HttpHeaders | undefined;
  #used = false;

  constructor(body?: BodyInit, init?: ResponseInit) {
    const status = init?.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError(`Response: status ${status} is outside the range 200 to 599`);
    }
    this.status = status;
    this.statusText = init?.statusText ?? '';
    this.#content = contentOf(body);
    if (this.#content !== null && NULL_BODY_STATUS.has(status)) throw new TypeError(`Response: a ${status} answer has no body`);
    const given = init?.headers;
    if (body instanceof URLSearchParams) {
      // The standard gives a form its type when the headers give none.
      this.#headers = new HttpHeaders(given ?? undefined);
      if (!this.#headers.has('content-type')) this.#headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
      return;
    }
    if (given === undefined || given === null) return;
    if (isRecord(given)) this.#plainHeaders = given;
    else this.#headers = new HttpHeaders(given);
  }

  static {
    written = (res) => ({ content: res.#content, headers: res.#headers ?? res.#plainHeaders });
  }

  get headers(): Headers {
    if (!this.#headers) {
      this.#headers = new HttpHeaders(this.#plainHeaders);
      this.#plainHeaders = undefined;
    }
    return this.#headers;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The body as the standard gives it, a stream; a string or bytes become one the first time. */
  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    const content = this.#content;
    if (content === null || (typeof content === 'object' && !(content instanceof Uint8Array))) return content as ReadableStream<Uint8Array<ArrayBuffer>> | null;
    const bytes = typeof content === 'string' ? encoder.encode(content) : new Uint8Array(content.buffer as ArrayBuffer, content.byteOffset, content.byteLength);
    const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    this.#content = stream;
    return stream;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#used) throw new TypeError('Response: body already used');
    this.#used = true;
    const content = this.#content;
    const bytes = content === null ? new Uint8Array(0) : typeof content === 'string' ? encoder.encode(content) : content instanceof Uint8Array ? content : await readAll(content);
    return new Uint8Array(bytes) as Uint8Array<ArrayBuffer>;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async text(): Promise<string> {
    const content = this.#content;
    if (typeof content === 'string' && !this.#used) {
      this.#used = true;
      return content;
    }
    return decoder.decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get('content-type') ?? '';
    return new Blob([await this.bytes()], { type });
  }

  /** Parsing multipart and urlencoded forms is the standard's own work: handed to node's Response. */
  async formData(): Promise<FormData> {
    const bytes = await this.bytes();
    return new globalThis.Response(bytes, { headers: this.headers }).formData();
  }

  textStream(): ReadableStream<string> {
    const body = this.body;
    if (!body) return new ReadableStream<string>({ start: (controller) => controller.close() });
    this.#used = true;
    return body.pipeThrough(new TextDecoderStream());
  }

  clone(): HttpResponse {
    if (this.#used) throw new TypeError('Response: body already used');
    let content = this.#content;
    if (content !== null && typeof content === 'object' && !(content instanceof Uint8Array)) {
      const [mine, theirs] = content.tee();
      this.#content = mine;
      content = theirs;
    }
    return new HttpResponse(content as BodyInit, { status: this.status, statusText: this.statusText, headers: this.#headers ? new HttpHeaders(this.#headers) : this.#plainHeaders });
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }
}

/** The body and headers of one of our answers, as it was made; undefined for anyone else's. */
export function writtenResponse(res: globalThis.Response): WrittenResponse | undefined {
  return res instanceof HttpResponse ? written(res) : undefined;
}

/**
 * Made with `new Response(...)` where node's would be; typed as the standard's Response, which it
 * is, so that code handed one need not know whose it is.
 */
export const Response = HttpResponse;
export type Response = globalThis.Response;

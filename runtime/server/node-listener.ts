// Between node's HTTP servers and the app: each request node reads becomes an IncomingRequest
// (incoming-request.ts) handed to the app, and the Response it answers is written to node's
// response, HTTP/1.1's or an HTTP/2 stream's compatibility object. Ours (runtime/machinery/http)
// are written as they were made: a string or bytes with their length in the head, a stream as
// it yields (a watch), a plain object of headers as it is. Any other Response (Hono wraps a HEAD's
// answer in node's own) is written from its standard form.

import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { constants as http2, Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { HttpHeaders } from '../machinery/http/headers.js';
import { giveBackBody, LENT_BODY_MIN_BYTES } from '../machinery/http/lent-bodies.js';
import { writtenResponse, type ResponseContent } from '../machinery/http/response.js';
import type { Logger } from '../machinery/logger.js';
import { IncomingRequest, isServerWideOptions, RequestTargetError, type NodeIncoming } from './incoming-request.js';
import { withPresetHeaders } from './preset-headers.js';
import { whenResponseDone } from './response-done.js';

export type NodeOutgoing = ServerResponse | Http2ServerResponse;

/** What is written to both kinds of node response; their signatures differ only in overloads. */
type Written = Pick<ServerResponse, 'writeHead' | 'write' | 'end'>;
const out = (outgoing: NodeOutgoing) => outgoing as Written;

export interface NodeBindings {
  incoming: NodeIncoming;
  outgoing: NodeOutgoing;
}

export interface ListenerOptions {
  /** The app: a Response, or a promise of one. */
  fetch(request: IncomingRequest, env: NodeBindings): Response | Promise<Response>;
  /** The answer to a request the app failed to answer at all. */
  errorHandler(err: unknown): Response;
  logger: Logger;
}

/** The Fetch standard's type for a string body given no Content-Type. */
const DEFAULT_CONTENT_TYPE = 'text/plain; charset=UTF-8';

/**
 * A request body its handler left unread (a POST refused before reading it) is read and dropped
 * after the answer, for this long and up to this many bytes, so the connection can serve the next
 * request; a client that goes on sending past either has its connection closed.
 */
const DRAIN_MS = 500;
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

export function requestListener(options: ListenerOptions): (incoming: NodeIncoming, outgoing: NodeOutgoing) => void {
  const { logger } = options;
  const write = (res: Response, outgoing: NodeOutgoing) => writeResponse(res, outgoing, logger);
  return (incoming, outgoing) => {
    if (refusedConnection(incoming)) return;
    let request: IncomingRequest;
    try {
      request = new IncomingRequest(incoming, outgoing);
    } catch (err) {
      badRequest(incoming, outgoing, err instanceof RequestTargetError ? err : new RequestTargetError('malformed request'));
      return;
    }
    if (isServerWideOptions(incoming)) {
      // Go's globalOptionsHandler: no handler runs, an empty 200.
      dropUnreadBodyWhenDone(incoming, outgoing);
      out(outgoing).writeHead(200, { 'content-length': 0 });
      out(outgoing).end();
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') dropUnreadBodyWhenDone(incoming, outgoing);
    let res: Response | Promise<Response>;
    try {
      res = options.fetch(request, { incoming, outgoing });
    } catch (err) {
      res = options.errorHandler(err);
    }
    if (!(res instanceof Promise)) {
      write(res, outgoing);
      return;
    }
    res.then(
      (answer) => write(answer, outgoing),
      (err: unknown) => write(options.errorHandler(err), outgoing),
    );
  };
}

/** Marks an HTTP/1.1 connection whose request was answered 400 before any handler ran. */
const REFUSED = Symbol('refused');

/**
 * Whether the request came on a connection already refused: Go reads nothing after the 400 and
 * closes, but node has parsed what the client pipelined behind it, and no handler may run it
 * (a POST would be served while its answer goes nowhere). Its response is never written; the
 * connection closes after the 400.
 */
const refusedConnection = (incoming: NodeIncoming) => !(incoming instanceof Http2ServerRequest) && (incoming.socket as { [REFUSED]?: true } | null)?.[REFUSED] === true;

/**
 * Go's answer to a request it cannot make sense of before any handler runs: over HTTP/1.1 the
 * status line carries the reason as the body does (`400 Bad Request: missing required Host
 * header`), and the connection closes. HTTP/2 has no status text.
 */
function badRequest(incoming: NodeIncoming, outgoing: NodeOutgoing, err: RequestTargetError): void {
  const status = err.public_ ? `Bad Request: ${err.message}` : 'Bad Request';
  const text = `400 ${status}`;
  const head: OutgoingHttpHeaders = { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) };
  if (incoming instanceof Http2ServerRequest) {
    out(outgoing).writeHead(400, head);
  } else {
    head.connection = 'close';
    if (incoming.socket) (incoming.socket as { [REFUSED]?: true })[REFUSED] = true;
    out(outgoing).writeHead(400, status, head);
  }
  out(outgoing).end(text);
}

/** Whether node's response can no longer be written: its connection (HTTP/1.1) or stream (HTTP/2) is gone. */
const gone = (outgoing: NodeOutgoing) => ('stream' in outgoing ? outgoing.stream.destroyed : outgoing.destroyed);

function writeResponse(res: Response, outgoing: NodeOutgoing, logger: Logger): void {
  if (outgoing.headersSent || gone(outgoing)) {
    // A handler that wrote to node's response itself, or a client already gone.
    cancelBody(res);
    return;
  }
  try {
    const ours = writtenResponse(res);
    if (ours) writeOurs(res.status, ours.content, ours.headers, outgoing);
    else writeForeign(res, outgoing);
  } catch (err) {
    failed(outgoing, err, logger);
  }
}

function writeOurs(status: number, content: ResponseContent, given: Record<string, string> | HttpHeaders | undefined, outgoing: NodeOutgoing): void {
  let head: OutgoingHttpHeaders;
  // Whether the head is the handler's own object, which is never changed.
  let borrowed = false;
  if (given instanceof HttpHeaders) {
    head = given.toNodeHeaders();
    if (content !== null && !('content-type' in head)) head['content-type'] = DEFAULT_CONTENT_TYPE;
  } else if (given) {
    head = given;
    borrowed = true;
  } else {
    head = content === null ? {} : { 'content-type': DEFAULT_CONTENT_TYPE };
  }
  const withPreset = withPresetHeaders(outgoing, head);
  if (withPreset !== head) {
    head = withPreset;
    borrowed = false;
  }
  if (content === null) {
    out(outgoing).writeHead(status, head);
    out(outgoing).end();
    return;
  }
  if (typeof content === 'string' || content instanceof Uint8Array) {
    const length = typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
    const lengths = lengthHeaders(head);
    if (!lengths.contentLength && !lengths.framed && !takesLength(outgoing, status, length)) {
      head = borrowed ? { ...head, 'content-length': length } : Object.assign(head, { 'content-length': length });
    }
    out(outgoing).writeHead(status, head);
    out(outgoing).end(content);
    // A large body may be on a buffer lent for it: node is done with it once the response closes.
    if (typeof content !== 'string' && content.byteLength >= LENT_BODY_MIN_BYTES) whenResponseDone(outgoing, giveBackBody, content);
    return;
  }
  out(outgoing).writeHead(status, head);
  pipeStream(content, outgoing);
}

/** Whether a head already gives a length, or frames the body otherwise (chunked, with trailers). */
function lengthHeaders(head: OutgoingHttpHeaders): { contentLength: boolean; framed: boolean } {
  let contentLength = false;
  let framed = false;
  for (const name in head) {
    if (name.length === 14 && name.toLowerCase() === 'content-length') contentLength = true;
    else if ((name.length === 17 && name.toLowerCase() === 'transfer-encoding') || (name.length === 7 && name.toLowerCase() === 'trailer')) framed = true;
  }
  return { contentLength, framed };
}

/** node's HTTP/1.1 response, with the fields it decides its framing by when it writes the head. */
type FramedResponse = ServerResponse & {
  _contentLength: number | null;
  _hasBody: boolean;
  _removedContLen: boolean;
  useChunkedEncodingByDefault: boolean;
};

/**
 * Has node's HTTP/1.1 response write Content-Length itself when it writes the head, as it does for
 * a body given to end() without writeHead: the handler's headers object is then written as it
 * is, not copied to add one header. HTTP/2 responses and framed ones say no.
 */
function takesLength(outgoing: NodeOutgoing, status: number, length: number): boolean {
  const res = outgoing as FramedResponse;
  if (res._contentLength !== null || !res._hasBody || !res.useChunkedEncodingByDefault || res._removedContLen) return false;
  if (status < 200 || status === 204 || status === 304) return false;
  if (res.hasHeader('content-length') || res.hasHeader('transfer-encoding') || res.hasHeader('trailer')) return false;
  res._contentLength = length;
  return true;
}

/** Someone else's Response, from its standard form: the headers iterated, the body as a stream. */
function writeForeign(res: Response, outgoing: NodeOutgoing): void {
  const head: OutgoingHttpHeaders = {};
  const cookies: string[] = [];
  for (const [name, value] of res.headers) {
    if (name === 'set-cookie') cookies.push(value);
    else head[name] = value;
  }
  if (cookies.length > 0) head['set-cookie'] = cookies;
  out(outgoing).writeHead(res.status, withPresetHeaders(outgoing, head));
  if (res.body) pipeStream(res.body, outgoing);
  else out(outgoing).end();
}

/**
 * A stream body as it yields, each chunk written when node takes the one before; the stream is
 * cancelled when the response closes first (the client gone, or the connection reset), which is
 * how a watch learns its client went away.
 */
function pipeStream(stream: ReadableStream<Uint8Array>, outgoing: NodeOutgoing): void {
  const reader = stream.getReader();
  const cancel = () => {
    reader.cancel().catch(() => {});
  };
  outgoing.once('close', cancel);
  // The head goes at once: a watch's client learns the watch began before its first event.
  (outgoing as { flushHeaders?: () => void }).flushHeaders?.();
  const next = (): void => {
    reader.read().then(({ done, value }) => {
      if (done) {
        outgoing.off('close', cancel);
        if (!gone(outgoing)) out(outgoing).end();
        return;
      }
      if (gone(outgoing)) return;
      if (out(outgoing).write(value)) next();
      else outgoing.once('drain', next);
    }, (err: unknown) => {
      outgoing.off('close', cancel);
      outgoing.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  };
  next();
}

function cancelBody(res: Response): void {
  const ours = writtenResponse(res);
  const content = ours ? ours.content : res.body;
  if (content !== null && typeof content === 'object' && !(content instanceof Uint8Array)) content.cancel().catch(() => {});
}

/** The answer could not be written (a header node refuses): a 500 if the head has not gone yet. */
function failed(outgoing: NodeOutgoing, err: unknown, logger: Logger): void {
  logger.error('failed writing a response:', err);
  if (outgoing.headersSent) {
    outgoing.destroy(err instanceof Error ? err : undefined);
    return;
  }
  const res = outgoing as Partial<FramedResponse>;
  if (res._contentLength !== undefined) res._contentLength = null;
  const text = 'Internal Server Error';
  const head = { 'content-type': 'text/plain; charset=utf-8', 'content-length': text.length };
  try {
    out(outgoing).writeHead(500, withPresetHeaders(outgoing, head));
  } catch {
    // The preset headers are what node refused (none the app sets can be): the 500 goes without them.
    out(outgoing).writeHead(500, head);
  }
  out(outgoing).end(text);
}

/**
 * Once the answer is written, a body the handler left unread is dropped: over HTTP/1.1 read and
 * discarded (DRAIN_MS, DRAIN_MAX_BYTES) so the connection can carry the next request; over
 * HTTP/2 its stream is closed, which tells the client to stop sending.
 */
function dropUnreadBodyWhenDone(incoming: NodeIncoming, outgoing: NodeOutgoing): void {
  outgoing.once('finish', () => {
    if (incoming.readableEnded || incoming.destroyed) return;
    if (incoming instanceof Http2ServerRequest) {
      setImmediate(() => {
        if (!incoming.readableEnded) incoming.stream.close(http2.NGHTTP2_NO_ERROR);
      });
      return;
    }
    let read = 0;
    const stop = () => {
      clearTimeout(timer);
      incoming.off('data', count);
      incoming.off('end', stop);
      incoming.off('error', stop);
    };
    const giveUp = () => {
      stop();
      const socket = incoming.socket;
      if (socket && !socket.destroyed) socket.destroySoon();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_MAX_BYTES) giveUp();
    };
    const timer = setTimeout(giveUp, DRAIN_MS);
    timer.unref();
    incoming.on('data', count);
    incoming.on('end', stop);
    incoming.on('error', stop);
    incoming.resume();
  });
}

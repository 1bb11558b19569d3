// One TLS port serving the Hono app through our request listener (node-listener.ts) over HTTP/2
// (ALPN h2, which client-go and kubectl prefer: every request and watch of a process multiplexed
// on one connection) and HTTP/1.1 (ALPN http/1.1, or no ALPN at all). The TLS layer asks every
// client for a certificate but lets the handshake succeed without one (or with one we do not
// trust): authentication decides, so a bearer token still works and a bad certificate gets a 401
// Status rather than a TLS failure.

import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Hono } from 'hono';
import { internalError } from '../errors/status-error.js';
import type { KubeEnv, Logger } from './context.js';
import { statusResponse } from './status-response.js';
import { whenResponseDone } from './response-done.js';
import { answerBatch } from './answer-batch.js';
import { requestListener } from './node-listener.js';

export interface SecureServingOptions {
  app: Hono<KubeEnv>;
  certPem: string;
  keyPem: string;
  /** CA bundle sent to clients as acceptable issuers of their certificates. */
  clientCaPem: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** --http2-max-streams-per-connection; 0 (the default) advertises DEFAULT_HTTP2_MAX_STREAMS. */
  http2MaxStreamsPerConnection?: number;
  logger: Logger;
}

export interface SecureServer {
  server: Http2SecureServer;
  port: number;
  /**
   * The first step of a graceful shutdown: no new connections, and no new requests on open ones
   * (HTTP/2 sessions get GOAWAY; an HTTP/1.1 connection closes once its current response is sent).
   * Requests already being served go on.
   */
  stopAccepting(): void;
  /** Waits up to `graceMs` for the open connections to finish and close, then closes the rest. */
  closeConnections(graceMs: number): Promise<void>;
  /** Stops accepting, ends open connections (watches included) and resolves when all are gone. */
  close(): Promise<void>;
}

/** Go clients keep idle connections 90s; outlive that so they never reuse a connection we just closed. */
export const KEEP_ALIVE_TIMEOUT_MS = 120_000;
/** kube-apiserver's ReadHeaderTimeout: a client has this long to send its request line and headers. */
export const READ_HEADER_TIMEOUT_MS = 32_000;
/** kube-apiserver's MaxHeaderBytes (1 MiB): request line and headers together; node's default is 16 KiB. */
export const MAX_HEADER_BYTES = 1 << 20;
/** How often node looks for connections past READ_HEADER_TIMEOUT_MS (its default, 30s, would let them run to ~60s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * Go's rstAvoidanceDelay: a connection the server closes after a response (Connection: close, as
 * the 413 for a body past the limit sends) is half-closed first and destroyed this much later, so a
 * client still writing a body nobody reads gets to read the answer instead of a reset.
 */
const RST_AVOIDANCE_DELAY_MS = 500;

/** Node closes an HTTP/1.1 connection after its last response with destroySoon: end, then linger. */
function lingerBeforeClose(socket: Socket): void {
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), RST_AVOIDANCE_DELAY_MS);
    socket.once('close', () => clearTimeout(timer));
    // What the client still sends is read and dropped meanwhile, so it is not blocked writing.
    socket.resume();
  };
}

/**
 * Node's HTTP/1.1 parser reads a connection's bytes straight from its TLS stream, below
 * JavaScript, and pausing the socket (node does it when pipelined requests outrun their answers,
 * or when a request's body fills its buffer before the handler reads it) does not stop the TLS layer from handing the parser the rest of what it has already decrypted,
 * 16 KiB at a time: the paused parser refuses it with HPE_PAUSED, which the request's client gets
 * as a 400 and a closed connection, well-formed requests lost. A 'data' listener makes node feed
 * the parser through the socket's stream instead, which holds bytes back while paused, as Go's
 * server does by reading the next request only when it is ready for it. The stream costs every
 * request about 14% more instructions (README, "Reading HTTP/1.1 through the socket's stream"),
 * so a connection takes it only once node first pauses it: the listener added while node pauses
 * reroutes what TLS hands over next.
 */
function readThroughSocketStreamOncePaused(socket: TLSSocket): void {
  if (socket.alpnProtocol !== 'h2') socket.once('pause', () => readThroughStream(socket));
}

/**
 * Node, pausing, has just stopped the TLS stream's reading. A 'data' listener unhooks the parser
 * from the stream (the parser reads the data; the listener only has to exist), and an empty push
 * clears the stream's note of a read in progress, left from when the parser took the bytes: with
 * that note set, resuming the socket would never start reading again. The socket then reads
 * ahead up to its high-water mark and holds the bytes until node resumes it.
 */
function readThroughStream(socket: TLSSocket): void {
  socket.on('data', ignoreData);
  socket.push(EMPTY_CHUNK);
}

function ignoreData(): void {}

const EMPTY_CHUNK = Buffer.alloc(0);

/**
 * Streams a client may have open on one HTTP/2 connection when the flag is 0: kube-apiserver
 * advertises 100, what Go clients assume before the server's SETTINGS arrive, so a client racing
 * ahead of them is never refused.
 */
export const DEFAULT_HTTP2_MAX_STREAMS = 100;
/**
 * kube's frame size and per-stream receive window (down from Go's 1 MiB): most serialized objects
 * are smaller, so a typical POST fits one frame, and a connection's window (this times the
 * streams) stays bounded.
 */
const HTTP2_STREAM_BUFFER_BYTES = 256 * 1024;
/** Go's http2 server derives its header list limit from MaxHeaderBytes, padded for ten fields of 32 bytes' overhead. */
export const HTTP2_MAX_HEADER_LIST_SIZE = MAX_HEADER_BYTES + 10 * 32;
/** Each field costs 32 bytes of the list size, so no list within the size has more fields than this. */
const HTTP2_MAX_HEADER_PAIRS = Math.ceil(HTTP2_MAX_HEADER_LIST_SIZE / 32);
/** kube's http2 IdleTimeout: a connection with no open stream is closed after this long without traffic. */
const HTTP2_IDLE_TIMEOUT_MS = 90_000;

/**
 * What Go's HTTP server writes when it cannot read a request, before any handler runs: plain
 * text naming the status, then the connection closes. No Status object: kube-apiserver's
 * handlers never see these requests.
 */
function goConnectionError(status: string): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`;
}

/** Go's plain answer to bytes it could not read as a request, then the connection's end (lingering, as after any last response). */
function closeUnreadable(socket: Socket, answer: string): void {
  if (!socket.writable) return;
  socket.write(answer);
  socket.destroySoon();
}

/** HTTP/1.1 responses in progress on a connection. */
const HTTP1_BUSY = Symbol('http1Busy');
/** The last request read on an HTTP/1.1 connection. */
const HTTP1_LAST = Symbol('http1Last');
/** Go's answer to bytes that could not be read, waiting for the answers to the requests before them. */
const HTTP1_UNREADABLE = Symbol('http1Unreadable');
type BusySocket = Socket & {
  [HTTP1_BUSY]?: number;
  [HTTP1_LAST]?: IncomingMessage;
  /** The answer, and how many responses may still be in progress when it goes (the unreadable request's own). */
  [HTTP1_UNREADABLE]?: { answer: string; leave: number };
};

/** Read failures Go answers by closing without a word: timeouts and connections the client dropped. */
const SILENT_CLIENT_ERRORS = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ECONNRESET', 'EPIPE']);

export async function serveSecurely(options: SecureServingOptions): Promise<SecureServer> {
  const { logger } = options;
  const inBatch = answerBatch();
  const listener = requestListener({
    fetch: (request, env) => {
      const res = options.app.fetch(request, env);
      return res instanceof Promise || env.incoming.httpVersionMajor !== 1 ? res : inBatch(res);
    },
    // Reached only if the app itself fails to produce a Response.
    errorHandler: (err) => {
      logger.error('unhandled error serving request:', err);
      return statusResponse(internalError(err));
    },
    logger,
  });
  const maxStreams = options.http2MaxStreamsPerConnection || DEFAULT_HTTP2_MAX_STREAMS;
  const server = createSecureServer(
    {
      cert: options.certPem,
      key: options.keyPem,
      ca: options.clientCaPem,
      requestCert: true,
      rejectUnauthorized: false,
      // Go sets TCP_NODELAY on every connection, as node:http does (not node:http2): a response
      // or frame is sent as it is written, never held back for the peer's ACK of the one before.
      noDelay: true,
      allowHTTP1: true,
      ALPNProtocols: ['h2', 'http/1.1'],
      settings: {
        maxConcurrentStreams: maxStreams,
        initialWindowSize: HTTP2_STREAM_BUFFER_BYTES,
        maxFrameSize: HTTP2_STREAM_BUFFER_BYTES,
        maxHeaderListSize: HTTP2_MAX_HEADER_LIST_SIZE,
      },
      maxHeaderListPairs: HTTP2_MAX_HEADER_PAIRS,
      // In MiB; room for every stream's window and headers, past which node would reset the session.
      maxSessionMemory: Math.ceil((Math.min(maxStreams * HTTP2_STREAM_BUFFER_BYTES, 2 ** 31 - 1) + 2 * HTTP2_MAX_HEADER_LIST_SIZE) / (1 << 20)) + 10,
    },
    listener,
  );
  // The HTTP/1.1 side reads these from the server object, not from the options.
  Object.assign(server, {
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: READ_HEADER_TIMEOUT_MS,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  });
  const sessions = new Set<ServerHttp2Session>();
  let stopping = false;
  server.on('session', (session) => {
    configureSession(session, maxStreams, logger);
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    if (stopping) session.close();
  });
  server.on('secureConnection', lingerBeforeClose);
  server.on('secureConnection', readThroughSocketStreamOncePaused);
  const tlsConnections = new Set<TLSSocket>();
  server.on('secureConnection', (socket: TLSSocket) => {
    tlsConnections.add(socket);
    socket.once('close', () => tlsConnections.delete(socket));
  });
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  // HTTP/1.1 responses in progress per connection: a stopping server closes a connection as soon
  // as it has none, so a keep-alive client does not send its next request here.
  // The count lives on the socket: a map keyed by sockets cost a delete and an insert per request.
  const endIfIdle = (socket: BusySocket) => {
    if (!socket[HTTP1_BUSY]) socket.end();
  };
  const responseDone = (socket: BusySocket) => {
    const busy = (socket[HTTP1_BUSY] ?? 1) - 1;
    socket[HTTP1_BUSY] = busy;
    const unreadable = socket[HTTP1_UNREADABLE];
    if (unreadable && busy <= unreadable.leave) closeUnreadable(socket, unreadable.answer);
    else if (stopping) endIfIdle(socket);
  };
  server.on('request', (req, res) => {
    if (req.httpVersionMajor !== 1) return;
    const socket = req.socket as BusySocket;
    socket[HTTP1_BUSY] = (socket[HTTP1_BUSY] ?? 0) + 1;
    // Over HTTP/1.1 the request is node's IncomingMessage.
    socket[HTTP1_LAST] = req as unknown as IncomingMessage;
    if (stopping) res.setHeader('Connection', 'close');
    whenResponseDone(res, responseDone, socket);
  });
  // A broken client connection is that client's problem, never the process's.
  server.on('tlsClientError', (err) => logger.debug('TLS handshake error:', err.message));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: BusySocket) => {
    logger.debug('client connection error:', err.message);
    // Bytes after a request that said Connection: close. Go never reads them: it answers the
    // requests up to that one and closes, which that request's answer does here (node ends a
    // connection after its last response) once the answers before it are written. And what a
    // connection reads while it closes after its last answer is dropped: destroying it here, with
    // the client's bytes unread, would reset it and lose the answers the client has yet to read
    // (lingerBeforeClose closes it).
    if (err.code === 'HPE_CLOSED_CONNECTION' || (socket.writableEnded && !socket.destroyed)) return;
    if (!socket.writable || SILENT_CLIENT_ERRORS.has(err.code ?? '')) {
      socket.destroy();
      return;
    }
    // The parser stays failed: more bytes from the client fail again, and are not read.
    if (socket[HTTP1_UNREADABLE]) return;
    const answer = goConnectionError(err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request');
    const busy = socket[HTTP1_BUSY] ?? 0;
    if (busy === 0) {
      closeUnreadable(socket, answer);
      return;
    }
    // Requests read before the bad bytes (pipelined) are answered first, in order, as Go answers
    // each request before it reads the next: the answers of this turn are still in the answer
    // batch. A request whose chunked body broke is the last one read and not complete: the 400 is
    // its answer, so it goes when only that request's response is left.
    const last = socket[HTTP1_LAST];
    socket[HTTP1_UNREADABLE] = { answer, leave: last && !last.complete ? 1 : 0 };
    if (busy <= socket[HTTP1_UNREADABLE].leave) closeUnreadable(socket, answer);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.error('server error:', err));
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  const stopAccepting = () => {
    if (closed) return;
    stopping = true;
    closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const session of sessions) session.close();
    // The HTTP/2 ones end with their sessions; the others are HTTP/1.1, closed once idle.
    for (const socket of tlsConnections) if (socket.alpnProtocol !== 'h2') endIfIdle(socket);
  };
  const destroyAll = () => {
    // Both protocols' connections, idle or streaming, h2 sessions with them.
    for (const socket of connections) socket.destroy();
  };
  return {
    server,
    port,
    stopAccepting,
    async closeConnections(graceMs) {
      stopAccepting();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([closed, grace]);
      clearTimeout(timer);
      destroyAll();
      await closed;
    },
    close() {
      stopAccepting();
      destroyAll();
      return closed!;
    },
  };
}

/**
 * Per connection: the receive window for all its streams together (kube's
 * MaxUploadBufferPerConnection), and Go's idle close, which spares connections with open streams
 * (a quiet watch is not idle).
 */
function configureSession(session: ServerHttp2Session, maxStreams: number, logger: Logger): void {
  let openStreams = 0;
  session.on('stream', (stream) => {
    openStreams++;
    stream.once('close', () => openStreams--);
  });
  // A window cannot pass 2^31-1 (RFC 9113 6.9.1), which more than 8,191 streams of 256 KiB would.
  session.setLocalWindowSize(Math.min(maxStreams * HTTP2_STREAM_BUFFER_BYTES, 2 ** 31 - 1));
  session.setTimeout(HTTP2_IDLE_TIMEOUT_MS, () => {
    if (openStreams === 0) session.close();
  });
  session.on('error', (err) => logger.debug('HTTP/2 session error:', err.message));
}

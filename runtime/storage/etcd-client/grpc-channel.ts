// Unary gRPC calls to etcd over node:http2: one HTTP/2 connection at a time to one of the
// endpoints, every call a stream on it. This is gRPC's wire protocol (PROTOCOL-HTTP2.md: a POST
// with content-type application/grpc, each message behind a 5-byte length prefix, the status in
// the trailers), without the general machinery of a gRPC library (name resolution, load-balancing
// policies, interceptors, per-call credential and retry layers), which costs a create on etcd
// more CPU than etcd spends on it.
//
// What a failure means for a retry is kept exact: a call fails "not sent" only when no connection
// could be had before it was written (so etcd cannot have applied it); everything after the
// stream is opened leaves the outcome to etcd.

import { connect, constants } from 'node:http2';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import { ETCD_CLIENT_KEEPALIVE, SessionKeepalive, type KeepaliveOptions } from './keepalive.js';

/** gRPC status codes, by number, as the status names them (grpc/doc/statuscodes.md). */
const CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
export const GRPC_DEADLINE_EXCEEDED = 4;
export const GRPC_INTERNAL = 13;
export const GRPC_UNAVAILABLE = 14;

/** A failed call: the gRPC status code, etcd's (or the transport's) words, and whether it left this process. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
    /** False only when the request was never written to a connection. */
    readonly sent: boolean,
  ) {
    // The message reads as grpc-js words its errors ("14 UNAVAILABLE: ..."), which the log shows.
    super(`${code} ${CODE_NAMES[code] ?? 'UNKNOWN'}: ${details}`);
    this.name = 'GrpcCallError';
  }
}

/**
 * HTTP/2 flow-control window, per stream and for the connection: a list of many objects arrives
 * without waiting for window updates every 64 KiB (gRPC's own clients raise it as well).
 */
const WINDOW_BYTES = 16 * 1024 * 1024;

/** The HTTP status of a response that carries no gRPC status, as gRPC maps it (http-grpc-status-mapping.md). */
const fromHttpStatus = (status: number): number => {
  if (status === 400) return GRPC_INTERNAL;
  if (status === 401) return 16;
  if (status === 403) return 7;
  if (status === 404) return 12;
  if (status === 429 || status === 502 || status === 503 || status === 504) return GRPC_UNAVAILABLE;
  return 2;
};

export interface GrpcStreamHandlers {
  message(message: Buffer): void;
  /** The stream ended: undefined when etcd closed it with status OK. */
  end(error: GrpcCallError | undefined): void;
}

export interface GrpcStream {
  /** Ends the stream from this side; resolves once it is closed. No handler is called after. */
  cancel(): Promise<void>;
}

/** A message behind gRPC's 5-byte prefix: not compressed, then its length. */
const frame = (message: Buffer): Buffer => {
  const framed = Buffer.allocUnsafe(5 + message.length);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  return framed;
};

/** grpc-message is percent-encoded; a malformed escape is kept as sent rather than thrown from a stream event. */
const percentDecoded = (message: string): string => {
  try {
    return decodeURIComponent(message);
  } catch {
    return message;
  }
};

/** How long one endpoint may take to accept a connection before the next is tried (gRPC's minimum connect timeout). */
const CONNECT_TIMEOUT_MS = 20_000;

/**
 * Every stream's request options, the priority ones at node:http2's own defaults: request()
 * fills in whichever are absent on its copy of the options, and adding those properties to a
 * fresh object on every call cost more than checking given ones (client CPU per create Txn,
 * measured in one process alternating both: about a tenth less).
 */
const STREAM_OPTIONS = { endStream: false, weight: constants.NGHTTP2_DEFAULT_WEIGHT, parent: 0, exclusive: false, silent: false };

const parseEndpoint = (endpoint: string): string => (endpoint.includes('://') ? endpoint : `http://${endpoint}`);

export class GrpcChannel {
  private readonly endpoints: string[];
  /** The endpoint tried first for the next connection: the one that last worked. */
  private next = 0;
  private session?: ClientHttp2Session;
  private connecting?: Promise<ClientHttp2Session>;
  private closed = false;
  private readonly keepalives = new WeakMap<ClientHttp2Session, SessionKeepalive>();

  constructor(
    endpoints: string[],
    private readonly keepalive: KeepaliveOptions = ETCD_CLIENT_KEEPALIVE,
  ) {
    if (endpoints.length === 0) throw new Error('grpc channel: no endpoints given');
    this.endpoints = endpoints.map(parseEndpoint);
  }

  /** Calls `path` (`/package.Service/Method`) with one encoded request message; resolves to the encoded answer. */
  async unary(path: string, request: Buffer, deadline: number): Promise<Buffer> {
    const session = this.session ?? (await this.connectBefore(deadline));
    return new Promise((resolve, reject) => {
      let answer: Buffer | undefined;
      this.exchange(session, path, deadline, (message) => (answer ??= message), (error) => {
        if (error) reject(error);
        else if (answer) resolve(answer);
        else reject(new GrpcCallError(GRPC_INTERNAL, 'etcd answered without a message', true));
      })?.end(frame(request));
    });
  }

  /**
   * Opens a stream to `path` and writes `request` on it; each message etcd sends goes to
   * `handlers.message`, and `handlers.end` is told once how the stream ended (unless canceled).
   * A connection is sought until `connectDeadline`; the stream itself has no deadline.
   */
  stream(path: string, request: Buffer, connectDeadline: number, handlers: GrpcStreamHandlers): GrpcStream {
    let canceled = false;
    let stream: ClientHttp2Stream | undefined;
    let closed: Promise<void> | undefined;
    void (this.session ? Promise.resolve(this.session) : this.connectBefore(connectDeadline)).then(
      (session) => {
        if (canceled) return;
        // A message its handler cannot take ends the stream: what follows it would make no sense.
        let refused: GrpcCallError | undefined;
        const message = (body: Buffer): void => {
          if (refused) return;
          try {
            handlers.message(body);
          } catch (error) {
            refused = new GrpcCallError(GRPC_INTERNAL, `the answer could not be read: ${error instanceof Error ? error.message : String(error)}`, true);
            opened?.close(constants.NGHTTP2_INTERNAL_ERROR);
          }
        };
        const opened = this.exchange(session, path, undefined, message, (error) => canceled || handlers.end(refused ?? error));
        if (!opened) return;
        stream = opened;
        closed = new Promise((resolve) => opened.once('close', resolve));
        // The request stays open: etcd ends a watch stream when the client's side ends.
        opened.write(frame(request));
      },
      (error: GrpcCallError) => canceled || handlers.end(error),
    );
    return {
      cancel: async () => {
        if (canceled) return;
        canceled = true;
        // Not open yet: it never will be (the connection's outcome finds it canceled).
        if (!stream) return;
        if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
        await closed;
      },
    };
  }

  close(): void {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    session?.close();
  }

  /**
   * One gRPC exchange on `session`: the request headers now (the caller writes the messages),
   * each answer message to `onMessage`, and its outcome once to `onClose`. Undefined when the
   * session could not take the stream (onClose is told so).
   */
  private exchange(
    session: ClientHttp2Session,
    path: string,
    deadline: number | undefined,
    onMessage: (message: Buffer) => void,
    onClose: (error: GrpcCallError | undefined) => void,
  ): ClientHttp2Stream | undefined {
    const left = deadline === undefined ? undefined : deadline - Date.now();
    const headers: OutgoingHttpHeaders = {
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: path,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      [constants.HTTP2_HEADER_TE]: 'trailers',
    };
    if (left !== undefined) headers['grpc-timeout'] = `${Math.max(left, 1)}m`;
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(headers, STREAM_OPTIONS);
    } catch (error) {
      // The session went away between the check and the call (closing, or a GOAWAY).
      this.forget(session);
      const refused = new GrpcCallError(GRPC_UNAVAILABLE, `No connection established: ${String(error)}`, false);
      queueMicrotask(() => onClose(refused));
      return undefined;
    }
    this.keepalives.get(session)?.opened(stream);

    let httpStatus = 0;
    let grpcStatus: number | undefined;
    let grpcMessage = '';
    let failure: Error | undefined;
    let timedOut = false;
    let malformed = false;
    // Chunks of a message not yet whole: joined once when it is, not on every chunk (a 10 MB
    // range answer arrives in hundreds of chunks; joining each time would copy it hundreds of times).
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const timer =
      left === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stream.close(constants.NGHTTP2_CANCEL);
          }, Math.max(left, 0));
    const status = (headers: IncomingHttpHeaders): void => {
      const code = headers['grpc-status'];
      if (code === undefined) return;
      grpcStatus = Number(code);
      const message = headers['grpc-message'];
      if (typeof message === 'string') grpcMessage = percentDecoded(message);
    };
    stream.on('response', (headers) => {
      httpStatus = Number(headers[constants.HTTP2_HEADER_STATUS]);
      // A trailers-only answer (an error before any message) carries the status here.
      status(headers);
    });
    stream.on('trailers', status);
    stream.on('data', (chunk: Buffer) => {
      // Messages behind their 5-byte prefix (compressed flag, length), split across chunks at will.
      pending.push(chunk);
      pendingBytes += chunk.length;
      while (pendingBytes >= 5) {
        if (pending[0]!.length < 5) pending = [Buffer.concat(pending)];
        const head = pending[0]!;
        const length = head.readUInt32BE(1);
        if (pendingBytes < 5 + length) return;
        if (head[0] !== 0) {
          malformed = true;
          stream.close(constants.NGHTTP2_PROTOCOL_ERROR);
          return;
        }
        const buf = pending.length === 1 ? head : Buffer.concat(pending, pendingBytes);
        onMessage(buf.subarray(5, 5 + length));
        const rest = buf.subarray(5 + length);
        pending = rest.length > 0 ? [rest] : [];
        pendingBytes = rest.length;
      }
    });
    stream.on('error', (error) => (failure = error));
    stream.on('close', () => {
      clearTimeout(timer);
      if (timedOut) return onClose(new GrpcCallError(GRPC_DEADLINE_EXCEEDED, 'deadline exceeded', true));
      if (malformed) return onClose(new GrpcCallError(GRPC_INTERNAL, 'etcd sent a compressed gRPC message, which was not asked for', true));
      if (grpcStatus === undefined) {
        if (httpStatus !== 0 && httpStatus !== 200) return onClose(new GrpcCallError(fromHttpStatus(httpStatus), `HTTP status ${httpStatus}`, true));
        const why = failure ? failure.message : `stream closed (code ${stream.rstCode ?? 'none'})`;
        return onClose(new GrpcCallError(GRPC_UNAVAILABLE, `connection lost: ${why}`, true));
      }
      if (grpcStatus !== 0) return onClose(new GrpcCallError(grpcStatus, grpcMessage, true));
      onClose(undefined);
    });
    return stream;
  }

  /** The open session, or a new one to the first endpoint that accepts before the deadline. */
  private connectBefore(deadline: number): Promise<ClientHttp2Session> {
    if (this.closed) return Promise.reject(new GrpcCallError(GRPC_UNAVAILABLE, 'the client is closed', false));
    this.connecting ??= this.connectAny().finally(() => (this.connecting = undefined));
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new GrpcCallError(GRPC_DEADLINE_EXCEEDED, 'deadline passed while waiting for a connection', false)), Math.max(left, 0));
    });
    return Promise.race([this.connecting, late]).finally(() => clearTimeout(timer));
  }

  /** Tries each endpoint once, starting with the last that worked. */
  private async connectAny(): Promise<ClientHttp2Session> {
    const failures: string[] = [];
    for (let i = 0; i < this.endpoints.length; i++) {
      const index = (this.next + i) % this.endpoints.length;
      try {
        const session = await this.open(this.endpoints[index]!);
        if (this.closed) {
          session.close();
          break;
        }
        this.next = index;
        this.session = session;
        return session;
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (this.closed) throw new GrpcCallError(GRPC_UNAVAILABLE, 'the client is closed', false);
    this.next = (this.next + 1) % this.endpoints.length;
    throw new GrpcCallError(GRPC_UNAVAILABLE, `No connection established: ${failures.join('; ')}`, false);
  }

  private open(endpoint: string): Promise<ClientHttp2Session> {
    return new Promise((resolve, reject) => {
      const session = connect(endpoint, { settings: { initialWindowSize: WINDOW_BYTES } });
      // An endpoint that never answers (packets dropped) would hold every later call behind it
      // for the kernel's SYN retries, minutes: it is given up after gRPC's connect timeout.
      const timer = setTimeout(() => session.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS / 1000}s`)), CONNECT_TIMEOUT_MS);
      const failed = (error: Error): void => {
        clearTimeout(timer);
        reject(error);
      };
      session.on('error', failed);
      session.once('connect', () => {
        clearTimeout(timer);
        session.off('error', failed);
        session.setLocalWindowSize(WINDOW_BYTES);
        // From here on a failure ends the session; the calls on it fail by their streams, and the
        // next call connects anew.
        session.on('error', () => this.forget(session));
        session.once('goaway', () => this.forget(session));
        session.once('close', () => this.forget(session));
        // A connection that stops answering PINGs is destroyed: its streams fail as lost, and the
        // next call connects anew.
        this.keepalives.set(
          session,
          new SessionKeepalive(session, this.keepalive, (reason) => {
            session.destroy(new Error(reason));
            this.forget(session);
          }),
        );
        resolve(session);
      });
    });
  }

  private forget(session: ClientHttp2Session): void {
    if (this.session === session) this.session = undefined;
    if (!session.closed && !session.destroyed) session.close();
  }
}

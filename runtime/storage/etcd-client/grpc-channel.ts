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
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';

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

const parseEndpoint = (endpoint: string): string => (endpoint.includes('://') ? endpoint : `http://${endpoint}`);

export class GrpcChannel {
  private readonly endpoints: string[];
  /** The endpoint tried first for the next connection: the one that last worked. */
  private next = 0;
  private session?: ClientHttp2Session;
  private connecting?: Promise<ClientHttp2Session>;
  private closed = false;

  constructor(endpoints: string[]) {
    if (endpoints.length === 0) throw new Error('grpc channel: no endpoints given');
    this.endpoints = endpoints.map(parseEndpoint);
  }

  /** Calls `path` (`/package.Service/Method`) with one encoded request message; resolves to the encoded answer. */
  async unary(path: string, request: Buffer, deadline: number): Promise<Buffer> {
    const session = this.session ?? (await this.connectBefore(deadline));
    return this.call(session, path, request, deadline);
  }

  close(): void {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    session?.close();
  }

  private call(session: ClientHttp2Session, path: string, request: Buffer, deadline: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const left = deadline - Date.now();
      if (left <= 0) return reject(new GrpcCallError(GRPC_DEADLINE_EXCEEDED, 'deadline passed before the call was sent', false));
      let stream: ClientHttp2Stream;
      try {
        stream = session.request(
          {
            [constants.HTTP2_HEADER_METHOD]: 'POST',
            [constants.HTTP2_HEADER_PATH]: path,
            [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
            [constants.HTTP2_HEADER_TE]: 'trailers',
            'grpc-timeout': `${left}m`,
          },
          { endStream: false },
        );
      } catch (error) {
        // The session went away between the check and the call (closing, or a GOAWAY).
        this.forget(session);
        return reject(new GrpcCallError(GRPC_UNAVAILABLE, `No connection established: ${String(error)}`, false));
      }
      const frame = Buffer.allocUnsafe(5 + request.length);
      frame[0] = 0;
      frame.writeUInt32BE(request.length, 1);
      request.copy(frame, 5);
      stream.end(frame);

      const chunks: Buffer[] = [];
      let httpStatus = 0;
      let grpcStatus: number | undefined;
      let grpcMessage = '';
      let failure: Error | undefined;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        stream.close(constants.NGHTTP2_CANCEL);
      }, left);
      const status = (headers: IncomingHttpHeaders): void => {
        const code = headers['grpc-status'];
        if (code === undefined) return;
        grpcStatus = Number(code);
        const message = headers['grpc-message'];
        if (typeof message === 'string') grpcMessage = decodeURIComponent(message);
      };
      stream.on('response', (headers) => {
        httpStatus = Number(headers[constants.HTTP2_HEADER_STATUS]);
        // A trailers-only answer (an error before any message) carries the status here.
        status(headers);
      });
      stream.on('trailers', status);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => (failure = error));
      stream.on('close', () => {
        clearTimeout(timer);
        if (timedOut) return reject(new GrpcCallError(GRPC_DEADLINE_EXCEEDED, 'deadline exceeded', true));
        if (grpcStatus === undefined) {
          if (httpStatus !== 0 && httpStatus !== 200) return reject(new GrpcCallError(fromHttpStatus(httpStatus), `HTTP status ${httpStatus}`, true));
          const why = failure ? failure.message : `stream closed (code ${stream.rstCode ?? 'none'})`;
          return reject(new GrpcCallError(GRPC_UNAVAILABLE, `connection lost: ${why}`, true));
        }
        if (grpcStatus !== 0) return reject(new GrpcCallError(grpcStatus, grpcMessage, true));
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        if (body.length < 5 || body[0] !== 0 || body.readUInt32BE(1) !== body.length - 5) {
          return reject(new GrpcCallError(GRPC_INTERNAL, 'etcd answered with a malformed or compressed gRPC message', true));
        }
        resolve(body.subarray(5));
      });
    });
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
      const failed = (error: Error): void => reject(error);
      session.on('error', failed);
      session.once('connect', () => {
        session.off('error', failed);
        session.setLocalWindowSize(WINDOW_BYTES);
        // From here on a failure ends the session; the calls on it fail by their streams, and the
        // next call connects anew.
        session.on('error', () => this.forget(session));
        session.once('goaway', () => this.forget(session));
        session.once('close', () => this.forget(session));
        resolve(session);
      });
    });
  }

  private forget(session: ClientHttp2Session): void {
    if (this.session === session) this.session = undefined;
    if (!session.closed && !session.destroyed) session.close();
  }
}

// Unary gRPC calls and streams to etcd over one HTTP/2 connection at a time (to one of the
// endpoints), every call a stream on it. This is gRPC's wire protocol (PROTOCOL-HTTP2.md: a POST
// with content-type application/grpc, each message behind a 5-byte length prefix, the status in
// the trailers), without the general machinery of a gRPC library (name resolution, load-balancing
// policies, interceptors, per-call credential and retry layers), and over HTTP/2 framed by this
// client itself (http2-connection.ts), not node:http2, whose per-stream cost was most of what a
// create on etcd cost this server beyond SQLite's.
//
// What a failure means for a retry is kept exact: a call fails "not sent" only when no connection
// could be had before it was written (so etcd cannot have applied it), or etcd said it did not
// process it (a GOAWAY below its stream); everything else after the stream is opened leaves the
// outcome to etcd.

import { connect as connectTcp, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { connect as connectTls, type SecureContext } from 'node:tls';
import { H2_CANCEL, H2_PROTOCOL_ERROR, Http2Connection } from './http2-connection.js';
import type { Http2Stream, Http2StreamError, Http2StreamEvents } from './http2-connection.js';
import type { HeaderField } from './hpack.js';
import { encodeHeaders } from './hpack.js';
import { ConnectionKeepalive, ETCD_CLIENT_KEEPALIVE, type KeepaliveOptions } from './keepalive.js';
import { CallDeadlines, type Expirable } from './call-deadlines.js';
import type { ProtoWriter } from './wire.js';

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

/** A message behind gRPC's 5-byte prefix (not compressed, then its length), written once in place. */
export const grpcMessage = (message: ProtoWriter): Buffer => grpcFramed(message.finish(GRPC_PREFIX_BYTES));

/** gRPC's message prefix: the compressed flag, then the length (big-endian, 4 bytes). */
export const GRPC_PREFIX_BYTES = 5;

/** Fills in the prefix of a message written behind GRPC_PREFIX_BYTES reserved bytes. */
export const grpcFramed = (framed: Buffer): Buffer => {
  framed[0] = 0;
  framed.writeUInt32BE(framed.length - GRPC_PREFIX_BYTES, 1);
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

interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
  /** The :authority of its requests. */
  authority: string;
}

const parseEndpoint = (endpoint: string): Endpoint => {
  const url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
  const tls = url.protocol === 'https:';
  // An IPv6 literal comes bracketed in the URL and bare to the socket.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: Number(url.port || (tls ? 443 : 80)), tls, authority: url.host };
};

/**
 * A connection and the request header blocks made for it, one per method (the authority is the
 * connection's), each with the grpc-timeout it last carried: calls made with the client's one
 * timeout find their block made, rather than copy it with the timeout appended each time.
 */
interface Channel {
  connection: Http2Connection;
  endpoint: Endpoint;
  keepalive: ConnectionKeepalive;
  headerBlocks: Map<string, { plain: Buffer; timeout: string; timed: Buffer }>;
}

/** The HPACK literal of a grpc-timeout header (not indexed: its name as a string, then its value). */
const GRPC_TIMEOUT_NAME = Buffer.from([0x00, 12, ...Buffer.from('grpc-timeout', 'latin1')]);

export class GrpcChannel {
  private readonly endpoints: Endpoint[];
  /** The endpoint tried first for the next connection: the one that last worked. */
  private next = 0;
  private channel?: Channel;
  private connecting?: Promise<Channel>;
  private closed = false;
  private readonly deadlines = new CallDeadlines();

  constructor(
    endpoints: string[],
    private readonly keepalive: KeepaliveOptions = ETCD_CLIENT_KEEPALIVE,
    /** What https endpoints are connected with (--etcd-cafile and the client pair); the system's roots without it. */
    private readonly secureContext?: SecureContext,
  ) {
    if (endpoints.length === 0) throw new Error('grpc channel: no endpoints given');
    this.endpoints = endpoints.map(parseEndpoint);
  }

  /**
   * Calls `path` (`/package.Service/Method`) with one request message (framed by grpcMessage);
   * resolves to its answer as `decode` reads it.
   */
  unary<T>(path: string, request: Buffer, deadline: number, decode: (answer: Buffer) => T): Promise<T> {
    const channel = this.channel;
    if (!channel) return this.connectBefore(deadline).then((opened) => this.call(opened, path, request, deadline, decode));
    return this.call(channel, path, request, deadline, decode);
  }

  private call<T>(channel: Channel, path: string, request: Buffer, deadline: number, decode: (answer: Buffer) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const call = new GrpcCall(
        (message) => (call.answer ??= message),
        (error) => {
          if (error) return reject(error);
          if (!call.answer) return reject(new GrpcCallError(GRPC_INTERNAL, 'etcd answered without a message', true));
          try {
            resolve(decode(call.answer));
          } catch (cause) {
            reject(cause);
          }
        },
      );
      call.start(channel, path, deadline, this.deadlines);
      call.stream!.write(request, true);
    });
  }

  /**
   * Opens a stream to `path` and writes `request` on it; each message etcd sends goes to
   * `handlers.message`, and `handlers.end` is told once how the stream ended (unless canceled).
   * A connection is sought until `connectDeadline`; the stream itself has no deadline.
   */
  stream(path: string, request: Buffer, connectDeadline: number, handlers: GrpcStreamHandlers): GrpcStream {
    let canceled = false;
    let call: GrpcCall | undefined;
    void (this.channel ? Promise.resolve(this.channel) : this.connectBefore(connectDeadline)).then(
      (channel) => {
        if (canceled) return;
        // A message its handler cannot take ends the stream: what follows it would make no sense.
        const opened: GrpcCall = new GrpcCall(
          (body) => {
            try {
              handlers.message(body);
            } catch (error) {
              opened.fail(new GrpcCallError(GRPC_INTERNAL, `the answer could not be read: ${error instanceof Error ? error.message : String(error)}`, true));
            }
          },
          (error) => canceled || handlers.end(error),
        );
        call = opened;
        opened.start(channel, path);
        // The request stays open: etcd ends a watch stream when the client's side ends.
        opened.stream!.write(request, false);
      },
      (error: GrpcCallError) => canceled || handlers.end(error),
    );
    return {
      cancel: async () => {
        if (canceled) return;
        canceled = true;
        // Not open yet: it never will be (the connection's outcome finds it canceled).
        call?.stream?.reset(H2_CANCEL);
      },
    };
  }

  close(): void {
    this.closed = true;
    const channel = this.channel;
    this.channel = undefined;
    channel?.connection.close();
  }

  /** The open connection, or a new one to the first endpoint that accepts before the deadline. */
  private connectBefore(deadline: number): Promise<Channel> {
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
  private async connectAny(): Promise<Channel> {
    const failures: string[] = [];
    for (let i = 0; i < this.endpoints.length; i++) {
      const index = (this.next + i) % this.endpoints.length;
      try {
        const channel = await this.open(this.endpoints[index]!);
        if (this.closed) {
          channel.connection.close();
          break;
        }
        this.next = index;
        this.channel = channel;
        return channel;
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (this.closed) throw new GrpcCallError(GRPC_UNAVAILABLE, 'the client is closed', false);
    this.next = (this.next + 1) % this.endpoints.length;
    throw new GrpcCallError(GRPC_UNAVAILABLE, `No connection established: ${failures.join('; ')}`, false);
  }

  private open(endpoint: Endpoint): Promise<Channel> {
    return new Promise((resolve, reject) => {
      const socket: Socket = endpoint.tls
        ? connectTls({
            host: endpoint.host,
            port: endpoint.port,
            servername: isIP(endpoint.host) ? undefined : endpoint.host,
            ALPNProtocols: ['h2'],
            secureContext: this.secureContext,
          })
        : connectTcp({ host: endpoint.host, port: endpoint.port, noDelay: true });
      // An endpoint that never answers (packets dropped) would hold every later call behind it
      // for the kernel's SYN retries, minutes: it is given up after gRPC's connect timeout.
      const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS / 1000}s`)), CONNECT_TIMEOUT_MS);
      const failed = (error: Error): void => {
        clearTimeout(timer);
        reject(error);
      };
      socket.once('error', failed);
      socket.once(endpoint.tls ? 'secureConnect' : 'connect', () => {
        socket.off('error', failed);
        // From here on a failure ends the connection; the calls on it fail by their streams, and
        // the next call connects anew.
        const connection = new Http2Connection(socket, { windowBytes: WINDOW_BYTES }, () => this.forget(channel));
        // A connection that stops answering PINGs is destroyed: its streams fail as lost.
        const keepalive = new ConnectionKeepalive(connection, this.keepalive, (reason) => connection.destroy(new Error(reason)));
        const channel: Channel = { connection, endpoint, keepalive, headerBlocks: new Map() };
        // Usable once etcd's SETTINGS have come: an accepting socket alone may be a frozen etcd
        // or something that is not etcd at all.
        connection.ready.then(
          () => {
            clearTimeout(timer);
            resolve(channel);
          },
          (error: Error) => {
            clearTimeout(timer);
            reject(error);
          },
        );
      });
    });
  }

  /** The connection takes no new streams; once it is closed, its keepalive stops too. */
  private forget(channel: Channel): void {
    if (channel.connection.closedWith) channel.keepalive.stop();
    if (this.channel === channel) this.channel = undefined;
  }
}

/** One gRPC exchange: the request headers now (the caller writes the messages), each answer message to `onMessage`, its outcome once to `onClose`. */
class GrpcCall implements Http2StreamEvents, Expirable {
  stream?: Http2Stream;
  answer?: Buffer;
  private httpStatus = 0;
  private grpcStatus?: number;
  private grpcMessage = '';
  deadline = Infinity;
  /** Where the deadline is watched, while it is. */
  private deadlines?: CallDeadlines;
  /** Set once the outcome has been reported. */
  private done = false;
  // Chunks of a message not yet whole: joined once when it is, not on every chunk (a 10 MB
  // range answer arrives in hundreds of frames; joining each time would copy it hundreds of times).
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly onMessage: (message: Buffer) => void,
    private readonly onClose: (error: GrpcCallError | undefined) => void,
  ) {}

  start(channel: Channel, path: string, deadline?: number, deadlines?: CallDeadlines): void {
    let blocks = channel.headerBlocks.get(path);
    if (!blocks) {
      const plain = encodeHeaders(requestHeaders(channel.endpoint, path));
      blocks = { plain, timeout: '', timed: plain };
      channel.headerBlocks.set(path, blocks);
    }
    let block = blocks.plain;
    if (deadline !== undefined) {
      const left = deadline - Date.now();
      const timeout = `${Math.max(left, 1)}m`;
      if (timeout !== blocks.timeout) {
        blocks.timeout = timeout;
        blocks.timed = withTimeout(blocks.plain, timeout);
      }
      block = blocks.timed;
      if (deadlines) {
        this.deadline = deadline;
        this.deadlines = deadlines;
        deadlines.add(this);
      }
    }
    this.stream = channel.connection.open(block, this);
  }

  expire(): void {
    this.deadlines = undefined;
    this.end(new GrpcCallError(GRPC_DEADLINE_EXCEEDED, 'deadline exceeded', true));
  }

  /** Ends the exchange from this side with `error` (a message its handler could not take); nothing follows. */
  fail(error: GrpcCallError): void {
    this.end(error);
  }

  headers(fields: HeaderField[]): void {
    for (const [name, value] of fields) {
      if (name === ':status') this.httpStatus = Number(value);
      // A trailers-only answer (an error before any message) carries the status in its headers.
      else if (name === 'grpc-status') this.grpcStatus = Number(value);
      else if (name === 'grpc-message') this.grpcMessage = percentDecoded(value);
    }
  }

  data(chunk: Buffer): void {
    // Messages behind their 5-byte prefix (compressed flag, length), split across frames at will.
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes >= 5) {
      if (this.pending[0]!.length < 5) this.pending = [Buffer.concat(this.pending)];
      const head = this.pending[0]!;
      const length = head.readUInt32BE(1);
      if (this.pendingBytes < 5 + length) return;
      if (head[0] !== 0) {
        this.end(new GrpcCallError(GRPC_INTERNAL, 'etcd sent a compressed gRPC message, which was not asked for', true), H2_PROTOCOL_ERROR);
        return;
      }
      const buf = this.pending.length === 1 ? head : Buffer.concat(this.pending, this.pendingBytes);
      if (buf.length > 5 + length) {
        this.pending = [buf.subarray(5 + length)];
        this.pendingBytes = buf.length - 5 - length;
      } else {
        this.pending = [];
        this.pendingBytes = 0;
      }
      this.onMessage(buf.subarray(5, 5 + length));
      if (this.done) return;
    }
  }

  close(error: Http2StreamError | undefined): void {
    this.deadlines?.delete(this);
    if (this.done) return;
    this.done = true;
    this.onClose(this.outcome(error));
  }

  private outcome(error: Http2StreamError | undefined): GrpcCallError | undefined {
    if (this.grpcStatus === undefined) {
      if (this.httpStatus !== 0 && this.httpStatus !== 200) return new GrpcCallError(fromHttpStatus(this.httpStatus), `HTTP status ${this.httpStatus}`, true);
      if (error) return new GrpcCallError(GRPC_UNAVAILABLE, error.message, !error.unprocessed);
      return new GrpcCallError(GRPC_UNAVAILABLE, 'connection lost: the stream ended without a gRPC status', true);
    }
    if (this.grpcStatus !== 0) return new GrpcCallError(this.grpcStatus, this.grpcMessage, true);
    return undefined;
  }

  /** Resets the stream and reports `error` as the outcome. */
  private end(error: GrpcCallError, code = H2_CANCEL): void {
    if (this.done) return;
    this.deadlines?.delete(this);
    this.done = true;
    this.stream?.reset(code);
    this.onClose(error);
  }
}

const requestHeaders = (endpoint: Endpoint, path: string): HeaderField[] => [
  [':method', 'POST'],
  [':scheme', endpoint.tls ? 'https' : 'http'],
  [':path', path],
  [':authority', endpoint.authority],
  ['content-type', 'application/grpc'],
  ['te', 'trailers'],
];

const withTimeout = (block: Buffer, timeout: string): Buffer => {
  const out = Buffer.allocUnsafe(block.length + GRPC_TIMEOUT_NAME.length + 1 + timeout.length);
  block.copy(out, 0);
  GRPC_TIMEOUT_NAME.copy(out, block.length);
  out[block.length + GRPC_TIMEOUT_NAME.length] = timeout.length;
  out.write(timeout, block.length + GRPC_TIMEOUT_NAME.length + 1, 'latin1');
  return out;
};

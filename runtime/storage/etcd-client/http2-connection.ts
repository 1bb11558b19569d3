// The client side of one HTTP/2 connection (RFC 9113), framed by hand over a byte stream (a TCP
// socket to etcd; any Duplex, so TLS can be put beneath it). node:http2 would do the same, but
// its per-stream objects (a Duplex and an AsyncResource per call, and nghttp2's own bookkeeping
// behind them) cost more CPU than the rest of a create on etcd: a gRPC client needs requests
// out, responses and trailers in, flow control both ways, PING and GOAWAY, and nothing else
// (no server push, no priorities, no upgrade), which is what this is.
//
// Everything the peer sends that this side cannot make sense of is a connection error: a GOAWAY
// goes out, the socket is closed and every open stream ends with the reason, so no caller waits
// on a connection that has stopped meaning anything.

import type { Duplex } from 'node:stream';
import { HpackDecoder, HpackError } from './hpack.js';
import type { HeaderField } from './hpack.js';
import { HuffmanError } from './huffman.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

const DATA = 0x0;
const HEADERS = 0x1;
const PRIORITY = 0x2;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY_FLAG = 0x20;

const SETTINGS_HEADER_TABLE_SIZE = 0x1;
const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5;
const SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

/** HTTP/2 error codes (RFC 9113 §7). */
export const H2_NO_ERROR = 0x0;
export const H2_PROTOCOL_ERROR = 0x1;
export const H2_INTERNAL_ERROR = 0x2;
export const H2_FLOW_CONTROL_ERROR = 0x3;
export const H2_FRAME_SIZE_ERROR = 0x6;
export const H2_REFUSED_STREAM = 0x7;
export const H2_CANCEL = 0x8;
export const H2_COMPRESSION_ERROR = 0x9;

const FRAME_HEADER_BYTES = 9;
const DEFAULT_WINDOW = 65_535;
const MAX_WINDOW = 2 ** 31 - 1;
const MAX_STREAM_ID = 2 ** 31 - 1;
const MIN_FRAME_SIZE = 16_384;
const MAX_FRAME_SIZE = 16_777_215;
/** The largest frame this side takes: the protocol's default, which every peer must respect. */
const OWN_MAX_FRAME_SIZE = MIN_FRAME_SIZE;
/** The largest header block this side reads, as its SETTINGS_MAX_HEADER_LIST_SIZE says. */
const OWN_MAX_HEADER_LIST = 1 << 20;
/** The dynamic table the peer may use for what it sends (the protocol's default). */
const OWN_HEADER_TABLE_SIZE = 4096;
/** Until the peer's SETTINGS say otherwise, as Go's transport assumes. */
const INITIAL_MAX_CONCURRENT = 100;

export interface Http2ConnectionOptions {
  /**
   * The receive window, per stream and for the connection: a list of many objects arrives
   * without waiting for window updates every 64 KiB (gRPC's own clients raise it as well).
   */
  windowBytes: number;
}

/** How a stream ended other than cleanly. */
export class Http2StreamError extends Error {
  constructor(
    message: string,
    /** The HTTP/2 error code the stream was reset with, or the connection's. */
    readonly code: number,
    /** True when the peer said it did not process the stream (GOAWAY above it, REFUSED_STREAM): it may be sent again. */
    readonly unprocessed: boolean,
  ) {
    super(message);
    this.name = 'Http2StreamError';
  }
}

export interface Http2StreamEvents {
  /** A header block: the response headers, or trailers when it ends the stream. */
  headers(fields: HeaderField[], endStream: boolean): void;
  data(chunk: Buffer): void;
  /** Once, when the stream is over: undefined when the peer ended it cleanly. Not called after reset(). */
  close(error: Http2StreamError | undefined): void;
}

/** One request and its response. */
export class Http2Stream {
  /** 0 until the stream has been given an id and its HEADERS written. */
  id = 0;
  sendWindow = 0;
  /** Bytes received and handed on since the last WINDOW_UPDATE for this stream. */
  unacknowledged = 0;
  receiveWindow = 0;
  /** Data waiting for window or for the stream to open; `ending` sends END_STREAM after it. */
  pending: Buffer[] = [];
  ending = false;
  localEnded = false;
  closed = false;

  constructor(
    private readonly connection: Http2Connection,
    readonly headerBlock: Buffer,
    readonly events: Http2StreamEvents,
  ) {}

  /** Queues `data` (flow control permitting, it goes out this turn of the event loop), and END_STREAM after it when `end`. */
  write(data: Buffer | undefined, end: boolean): void {
    if (this.closed || this.ending) return;
    if (data && data.length > 0) this.pending.push(data);
    this.ending = end;
    if (this.id !== 0) this.connection.flushStream(this);
  }

  /** Ends the stream from this side (RST_STREAM with `code`); no event follows. */
  reset(code = H2_CANCEL): void {
    if (this.closed) return;
    this.connection.resetStream(this, code);
  }
}

export class Http2Connection {
  private readonly streams = new Map<number, Http2Stream>();
  /** Streams waiting for the peer's concurrency limit to let them open. */
  private readonly waiting: Http2Stream[] = [];
  /** Streams with data held back by flow control. */
  private readonly blocked = new Set<Http2Stream>();
  private nextStreamId = 1;
  private lastOpenedId = 0;

  // The peer's settings, as far as they concern this side.
  private maxConcurrent = INITIAL_MAX_CONCURRENT;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrameSize = MIN_FRAME_SIZE;
  private sawSettings = false;

  private sendWindow = DEFAULT_WINDOW;
  private receiveWindow: number;
  private unacknowledged = 0;

  private readonly decoder = new HpackDecoder(OWN_HEADER_TABLE_SIZE, OWN_MAX_HEADER_LIST);
  /** A header block not yet ended by END_HEADERS: the stream it is for and its pieces. */
  private continuing?: { streamId: number; endStream: boolean; fragments: Buffer[]; bytes: number };

  private readBuffer?: Buffer;
  private outgoing: Buffer[] = [];
  private flushQueued = false;
  private readonly pings: Array<() => void> = [];
  private pingCounter = 0;

  /** Bytes read from the peer so far: the keepalive's sign of life. */
  bytesRead = 0;
  /** Set once the peer sent GOAWAY or this side ran out of stream ids: no new streams. */
  draining = false;
  /** Set once the connection is over; why, for every stream still open. */
  closedWith?: Error;
  /**
   * Settles when the peer's first SETTINGS arrive (its connection preface), or the connection
   * fails before: as gRPC's own client, streams are opened only on a connection known to speak
   * HTTP/2, and only within its stream limit.
   */
  readonly ready: Promise<void>;
  private settled?: (error?: Error) => void;

  constructor(
    private readonly socket: Duplex,
    private readonly options: Http2ConnectionOptions,
    /** Told once when the connection stops taking new streams (GOAWAY, or closed). */
    private readonly unusable: (connection: Http2Connection) => void,
  ) {
    this.receiveWindow = options.windowBytes;
    this.ready = new Promise<void>((resolve, reject) => (this.settled = (error) => (error ? reject(error) : resolve())));
    // Whoever waits on it handles the failure; nobody waiting is no failure of the process.
    this.ready.catch(() => undefined);
    const settings = Buffer.alloc(18);
    settings.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(options.windowBytes, 8);
    settings.writeUInt16BE(SETTINGS_MAX_HEADER_LIST_SIZE, 12);
    settings.writeUInt32BE(OWN_MAX_HEADER_LIST, 14);
    this.send(PREFACE);
    this.sendFrame(SETTINGS, 0, 0, settings);
    if (options.windowBytes > DEFAULT_WINDOW) this.sendWindowUpdate(0, options.windowBytes - DEFAULT_WINDOW);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (error: Error) => this.destroy(error));
    socket.on('close', () => this.destroy(new Error('the connection was closed')));
    socket.on('end', () => this.destroy(new Error('etcd closed the connection')));
  }

  /** Streams open or waiting to open. */
  get openStreams(): number {
    return this.streams.size + this.waiting.length;
  }

  /** Opens a stream with the given HPACK header block; it waits while the peer's stream limit is reached. */
  open(headerBlock: Buffer, events: Http2StreamEvents): Http2Stream {
    const stream = new Http2Stream(this, headerBlock, events);
    if (this.closedWith || this.draining) {
      const reason = this.closedWith ? `connection lost: ${this.closedWith.message}` : 'the connection is going away';
      stream.closed = true;
      queueMicrotask(() => events.close(new Http2StreamError(reason, H2_REFUSED_STREAM, true)));
      return stream;
    }
    if (this.streams.size >= this.maxConcurrent) this.waiting.push(stream);
    else this.start(stream);
    return stream;
  }

  /** Sends a PING; `answered` is called when its ACK comes. */
  ping(answered: () => void): void {
    if (this.closedWith) return;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(++this.pingCounter, 4);
    this.pings.push(answered);
    this.sendFrame(PING, 0, 0, payload);
  }

  /** Closes the connection at once: every stream still open ends with `error`. */
  destroy(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    this.draining = true;
    this.settled?.(error);
    this.settled = undefined;
    this.flush();
    // What was written (a GOAWAY) goes out before the socket closes, unless the peer takes no
    // more (a frozen etcd): then the socket is destroyed a moment later.
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
    const lost = `connection lost: ${error.message}`;
    const open = [...this.streams.values(), ...this.waiting.splice(0)];
    this.streams.clear();
    this.blocked.clear();
    for (const stream of open) this.finish(stream, new Http2StreamError(lost, H2_INTERNAL_ERROR, false));
    this.unusable(this);
  }

  /**
   * Ends the connection politely: no new streams, a GOAWAY saying so, and the socket closed
   * once the streams open now have ended (as node:http2's session.close() did).
   */
  close(): void {
    if (this.closedWith) return;
    this.sendGoaway(H2_NO_ERROR, '');
    this.becomeUnusable('the client is closed');
    if (this.streams.size === 0) this.destroy(new Error('the client is closed'));
  }

  flushStream(stream: Http2Stream): void {
    while (stream.pending.length > 0) {
      const window = Math.min(stream.sendWindow, this.sendWindow);
      if (window <= 0) {
        this.blocked.add(stream);
        return;
      }
      const head = stream.pending[0]!;
      const size = Math.min(head.length, window, this.peerMaxFrameSize);
      const chunk = size === head.length ? head : head.subarray(0, size);
      if (size === head.length) stream.pending.shift();
      else stream.pending[0] = head.subarray(size);
      stream.sendWindow -= size;
      this.sendWindow -= size;
      const last = stream.ending && stream.pending.length === 0;
      this.sendFrame(DATA, last ? END_STREAM : 0, stream.id, chunk);
      if (last) stream.localEnded = true;
    }
    this.blocked.delete(stream);
    if (stream.ending && !stream.localEnded) {
      stream.localEnded = true;
      this.sendFrame(DATA, END_STREAM, stream.id, undefined);
    }
  }

  resetStream(stream: Http2Stream, code: number): void {
    stream.closed = true;
    if (stream.id === 0) {
      const at = this.waiting.indexOf(stream);
      if (at >= 0) this.waiting.splice(at, 1);
      return;
    }
    const rst = Buffer.allocUnsafe(4);
    rst.writeUInt32BE(code, 0);
    this.sendFrame(RST_STREAM, 0, stream.id, rst);
    this.forget(stream);
  }

  private start(stream: Http2Stream): void {
    if (this.nextStreamId > MAX_STREAM_ID) {
      // Out of ids: this connection is done taking streams; the owner makes another.
      const why = 'the connection ran out of stream ids';
      stream.closed = true;
      queueMicrotask(() => stream.events.close(new Http2StreamError(why, H2_REFUSED_STREAM, true)));
      this.becomeUnusable(why);
      return;
    }
    stream.id = this.nextStreamId;
    this.nextStreamId += 2;
    this.lastOpenedId = stream.id;
    stream.sendWindow = this.peerInitialWindow;
    stream.receiveWindow = this.options.windowBytes;
    this.streams.set(stream.id, stream);
    this.sendHeaderBlock(stream.id, stream.headerBlock, stream.ending && stream.pending.length === 0);
    if (stream.ending && stream.pending.length === 0) stream.localEnded = true;
    else if (stream.pending.length > 0 || stream.ending) this.flushStream(stream);
  }

  private sendHeaderBlock(streamId: number, block: Buffer, endStream: boolean): void {
    const flags = endStream ? END_STREAM : 0;
    if (block.length <= this.peerMaxFrameSize) {
      this.sendFrame(HEADERS, flags | END_HEADERS, streamId, block);
      return;
    }
    this.sendFrame(HEADERS, flags, streamId, block.subarray(0, this.peerMaxFrameSize));
    for (let at = this.peerMaxFrameSize; at < block.length; at += this.peerMaxFrameSize) {
      const end = Math.min(at + this.peerMaxFrameSize, block.length);
      this.sendFrame(CONTINUATION, end === block.length ? END_HEADERS : 0, streamId, block.subarray(at, end));
    }
  }

  /** A stream's end: it leaves the table, and a waiting stream may take its place. */
  private forget(stream: Http2Stream): void {
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    stream.pending = [];
    while (this.waiting.length > 0 && this.streams.size < this.maxConcurrent && !this.draining) this.start(this.waiting.shift()!);
    if (this.draining && this.streams.size === 0 && !this.closedWith) this.destroy(new Error('the connection went away'));
  }

  private finish(stream: Http2Stream, error: Http2StreamError | undefined): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.events.close(error);
  }

  /** No more streams here: those still waiting to open never will, and may go elsewhere. */
  private becomeUnusable(why: string): void {
    if (this.draining) return;
    this.draining = true;
    for (const stream of this.waiting.splice(0)) this.finish(stream, new Http2StreamError(why, H2_REFUSED_STREAM, true));
    this.unusable(this);
  }

  // Reading.

  private read(chunk: Buffer): void {
    this.bytesRead += chunk.length;
    const buffer = this.readBuffer ? Buffer.concat([this.readBuffer, chunk]) : chunk;
    this.readBuffer = undefined;
    let at = 0;
    while (!this.closedWith && buffer.length - at >= FRAME_HEADER_BYTES) {
      const length = buffer.readUIntBE(at, 3);
      if (length > OWN_MAX_FRAME_SIZE) return this.fail(H2_FRAME_SIZE_ERROR, `etcd sent a frame of ${length} bytes, more than the ${OWN_MAX_FRAME_SIZE} allowed`);
      if (buffer.length - at < FRAME_HEADER_BYTES + length) break;
      const type = buffer[at + 3]!;
      const flags = buffer[at + 4]!;
      const streamId = buffer.readUInt32BE(at + 5) & 0x7fffffff;
      const payload = buffer.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length);
      at += FRAME_HEADER_BYTES + length;
      try {
        this.frame(type, flags, streamId, payload);
      } catch (error) {
        // A caller's handler that throws must not take the process down from a socket event.
        return this.fail(H2_INTERNAL_ERROR, `a frame could not be handled: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (at < buffer.length && !this.closedWith) this.readBuffer = buffer.subarray(at);
  }

  private frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (!this.sawSettings && type !== SETTINGS) return this.fail(H2_PROTOCOL_ERROR, 'etcd did not open the connection with SETTINGS: it does not speak HTTP/2');
    if (this.continuing && type !== CONTINUATION) return this.fail(H2_PROTOCOL_ERROR, 'a header block was interrupted by another frame');
    switch (type) {
      case DATA:
        return this.onData(flags, streamId, payload);
      case HEADERS:
        return this.onHeaders(flags, streamId, payload);
      case CONTINUATION:
        return this.onContinuation(flags, streamId, payload);
      case RST_STREAM:
        return this.onReset(streamId, payload);
      case SETTINGS:
        return this.onSettings(flags, streamId, payload);
      case PING:
        return this.onPing(flags, streamId, payload);
      case GOAWAY:
        return this.onGoaway(streamId, payload);
      case WINDOW_UPDATE:
        return this.onWindowUpdate(streamId, payload);
      case PUSH_PROMISE:
        return this.fail(H2_PROTOCOL_ERROR, 'PUSH_PROMISE with push disabled');
      case PRIORITY:
        if (payload.length !== 5) return this.fail(H2_FRAME_SIZE_ERROR, 'PRIORITY frame of the wrong size');
        return;
      default:
        // Unknown frame types are ignored (RFC 9113 §4.1).
        return;
    }
  }

  /** The payload less its padding, or undefined after failing the connection on bad padding. */
  private unpadded(flags: number, payload: Buffer, what: string): Buffer | undefined {
    if ((flags & PADDED) === 0) return payload;
    if (payload.length < 1 || payload[0]! >= payload.length) {
      this.fail(H2_PROTOCOL_ERROR, `${what} frame with more padding than payload`);
      return undefined;
    }
    return payload.subarray(1, payload.length - payload[0]!);
  }

  /** A frame for a stream this side never opened is a protocol error; one for a stream since closed is ignored. */
  private idle(streamId: number): boolean {
    return streamId % 2 === 0 || streamId > this.lastOpenedId;
  }

  private onData(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0 || this.idle(streamId)) return this.fail(H2_PROTOCOL_ERROR, `DATA on stream ${streamId}, which was never opened`);
    // The whole frame counts against the windows, padding included.
    this.receiveWindow -= payload.length;
    if (this.receiveWindow < 0) return this.fail(H2_FLOW_CONTROL_ERROR, 'etcd sent more data than the connection window allows');
    this.unacknowledged += payload.length;
    if (this.unacknowledged >= this.options.windowBytes / 2) {
      this.sendWindowUpdate(0, this.unacknowledged);
      this.receiveWindow += this.unacknowledged;
      this.unacknowledged = 0;
    }
    const data = this.unpadded(flags, payload, 'DATA');
    if (!data) return;
    const stream = this.streams.get(streamId);
    if (!stream) return;
    stream.receiveWindow -= payload.length;
    if (stream.receiveWindow < 0) return this.streamError(stream, H2_FLOW_CONTROL_ERROR, 'etcd sent more data than the stream window allows');
    const end = (flags & END_STREAM) !== 0;
    if (data.length > 0) stream.events.data(data);
    if (stream.closed) return;
    if (end) return this.remoteEnded(stream);
    stream.unacknowledged += payload.length;
    if (stream.unacknowledged >= this.options.windowBytes / 2) {
      this.sendWindowUpdate(stream.id, stream.unacknowledged);
      stream.receiveWindow += stream.unacknowledged;
      stream.unacknowledged = 0;
    }
  }

  private onHeaders(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0 || this.idle(streamId)) return this.fail(H2_PROTOCOL_ERROR, `HEADERS on stream ${streamId}, which was never opened`);
    let fragment = this.unpadded(flags, payload, 'HEADERS');
    if (!fragment) return;
    if (flags & PRIORITY_FLAG) {
      if (fragment.length < 5) return this.fail(H2_FRAME_SIZE_ERROR, 'HEADERS frame too short for its priority fields');
      fragment = fragment.subarray(5);
    }
    const endStream = (flags & END_STREAM) !== 0;
    if (flags & END_HEADERS) return this.headerBlock(streamId, fragment, endStream);
    this.continuing = { streamId, endStream, fragments: [fragment], bytes: fragment.length };
  }

  private onContinuation(flags: number, streamId: number, payload: Buffer): void {
    const block = this.continuing;
    if (!block || block.streamId !== streamId) return this.fail(H2_PROTOCOL_ERROR, 'CONTINUATION without a header block to continue');
    block.fragments.push(payload);
    block.bytes += payload.length;
    if (block.bytes > OWN_MAX_HEADER_LIST) return this.fail(H2_PROTOCOL_ERROR, 'a header block larger than allowed');
    if ((flags & END_HEADERS) === 0) return;
    this.continuing = undefined;
    this.headerBlock(streamId, Buffer.concat(block.fragments, block.bytes), block.endStream);
  }

  private headerBlock(streamId: number, block: Buffer, endStream: boolean): void {
    let fields: HeaderField[];
    try {
      // Decoded even for a stream already gone: the peer's table moves on with every block.
      fields = this.decoder.decode(block);
    } catch (error) {
      if (error instanceof HpackError || error instanceof HuffmanError) return this.fail(H2_COMPRESSION_ERROR, error.message);
      throw error;
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    stream.events.headers(fields, endStream);
    if (endStream && !stream.closed) this.remoteEnded(stream);
  }

  /** The peer's side is done: so is the exchange (a gRPC response ends with its trailers). */
  private remoteEnded(stream: Http2Stream): void {
    if (!stream.localEnded) {
      // The answer came before the request was all sent (a refusal): the rest is not wanted.
      if (stream.pending.length > 0) {
        const rst = Buffer.allocUnsafe(4);
        rst.writeUInt32BE(H2_NO_ERROR, 0);
        this.sendFrame(RST_STREAM, 0, stream.id, rst);
      } else {
        this.sendFrame(DATA, END_STREAM, stream.id, undefined);
      }
      stream.localEnded = true;
    }
    this.forget(stream);
    this.finish(stream, undefined);
  }

  private onReset(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) return this.fail(H2_FRAME_SIZE_ERROR, 'RST_STREAM frame of the wrong size');
    if (streamId === 0 || this.idle(streamId)) return this.fail(H2_PROTOCOL_ERROR, `RST_STREAM on stream ${streamId}, which was never opened`);
    const stream = this.streams.get(streamId);
    if (!stream) return;
    const code = payload.readUInt32BE(0);
    this.forget(stream);
    this.finish(stream, new Http2StreamError(`stream reset by etcd (code ${code})`, code, code === H2_REFUSED_STREAM));
  }

  private onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.fail(H2_PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & ACK) {
      if (payload.length !== 0) return this.fail(H2_FRAME_SIZE_ERROR, 'SETTINGS acknowledgement with a payload');
      return;
    }
    if (payload.length % 6 !== 0) return this.fail(H2_FRAME_SIZE_ERROR, 'SETTINGS frame of the wrong size');
    this.sawSettings = true;
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      switch (id) {
        case SETTINGS_MAX_CONCURRENT_STREAMS:
          this.maxConcurrent = value;
          break;
        case SETTINGS_INITIAL_WINDOW_SIZE: {
          if (value > MAX_WINDOW) return this.fail(H2_FLOW_CONTROL_ERROR, `SETTINGS_INITIAL_WINDOW_SIZE ${value} is above 2^31-1`);
          // A change moves every open stream's window by the difference (RFC 9113 §6.9.2).
          const delta = value - this.peerInitialWindow;
          this.peerInitialWindow = value;
          for (const stream of this.streams.values()) {
            stream.sendWindow += delta;
            if (stream.sendWindow > MAX_WINDOW) return this.fail(H2_FLOW_CONTROL_ERROR, 'a stream window went above 2^31-1');
          }
          break;
        }
        case SETTINGS_MAX_FRAME_SIZE:
          if (value < MIN_FRAME_SIZE || value > MAX_FRAME_SIZE) return this.fail(H2_PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value} is out of range`);
          this.peerMaxFrameSize = value;
          break;
        case SETTINGS_ENABLE_PUSH:
          if (value > 1) return this.fail(H2_PROTOCOL_ERROR, `SETTINGS_ENABLE_PUSH ${value}`);
          break;
        case SETTINGS_HEADER_TABLE_SIZE:
        case SETTINGS_MAX_HEADER_LIST_SIZE:
        default:
          // This side's encoder keeps no dynamic table, and its header lists are a few fields.
          break;
      }
    }
    this.sendFrame(SETTINGS, ACK, 0, undefined);
    this.settled?.();
    this.settled = undefined;
    while (this.waiting.length > 0 && this.streams.size < this.maxConcurrent && !this.draining) this.start(this.waiting.shift()!);
    this.unblock();
  }

  private onPing(flags: number, streamId: number, payload: Buffer): void {
    if (payload.length !== 8) return this.fail(H2_FRAME_SIZE_ERROR, 'PING frame of the wrong size');
    if (streamId !== 0) return this.fail(H2_PROTOCOL_ERROR, 'PING on a stream');
    if (flags & ACK) {
      this.pings.shift()?.();
      return;
    }
    // sendFrame copies a payload this small behind the frame header at once, so the read
    // buffer's bytes need no copy of their own.
    this.sendFrame(PING, ACK, 0, payload);
  }

  private onGoaway(streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.fail(H2_PROTOCOL_ERROR, 'GOAWAY on a stream');
    if (payload.length < 8) return this.fail(H2_FRAME_SIZE_ERROR, 'GOAWAY frame too short');
    const lastStreamId = payload.readUInt32BE(0) & 0x7fffffff;
    const code = payload.readUInt32BE(4);
    const debug = payload.subarray(8).toString('latin1');
    // Streams above the last one the peer processed were never acted on: they may be sent again.
    const why = `etcd is going away (code ${code}${debug ? `, ${debug}` : ''})`;
    this.becomeUnusable(why);
    for (const stream of [...this.streams.values()]) {
      if (stream.id <= lastStreamId) continue;
      this.streams.delete(stream.id);
      this.blocked.delete(stream);
      this.finish(stream, new Http2StreamError(why, H2_REFUSED_STREAM, true));
    }
    if (this.streams.size === 0) this.destroy(new Error(why));
  }

  private onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) return this.fail(H2_FRAME_SIZE_ERROR, 'WINDOW_UPDATE frame of the wrong size');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (streamId === 0) {
      if (increment === 0) return this.fail(H2_PROTOCOL_ERROR, 'WINDOW_UPDATE of 0 for the connection');
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW) return this.fail(H2_FLOW_CONTROL_ERROR, 'the connection window went above 2^31-1');
      this.unblock();
      return;
    }
    if (this.idle(streamId)) return this.fail(H2_PROTOCOL_ERROR, `WINDOW_UPDATE on stream ${streamId}, which was never opened`);
    const stream = this.streams.get(streamId);
    if (!stream) return;
    if (increment === 0) return this.streamError(stream, H2_PROTOCOL_ERROR, 'WINDOW_UPDATE of 0 for a stream');
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) return this.streamError(stream, H2_FLOW_CONTROL_ERROR, 'a stream window went above 2^31-1');
    if (this.blocked.has(stream)) this.flushStream(stream);
  }

  private unblock(): void {
    for (const stream of [...this.blocked]) {
      if (this.sendWindow <= 0) return;
      this.flushStream(stream);
    }
  }

  /** A stream error: that stream is reset and told why; the connection goes on. */
  private streamError(stream: Http2Stream, code: number, message: string): void {
    const rst = Buffer.allocUnsafe(4);
    rst.writeUInt32BE(code, 0);
    this.sendFrame(RST_STREAM, 0, stream.id, rst);
    this.forget(stream);
    this.finish(stream, new Http2StreamError(message, code, false));
  }

  /** A connection error: GOAWAY with `code`, and every stream ends with `message`. */
  private fail(code: number, message: string): void {
    if (this.closedWith) return;
    this.sendGoaway(code, message);
    this.destroy(new Error(message));
  }

  // Writing: frames of one turn of the event loop go out in one socket write.

  private sendGoaway(code: number, message: string): void {
    const debug = Buffer.from(message, 'utf8');
    const payload = Buffer.allocUnsafe(8 + debug.length);
    // No stream is ever opened by the peer (push is off), so the last one processed is 0.
    payload.writeUInt32BE(0, 0);
    payload.writeUInt32BE(code, 4);
    debug.copy(payload, 8);
    this.sendFrame(GOAWAY, 0, 0, payload);
  }

  private sendWindowUpdate(streamId: number, increment: number): void {
    const payload = Buffer.allocUnsafe(4);
    payload.writeUInt32BE(increment, 0);
    this.sendFrame(WINDOW_UPDATE, 0, streamId, payload);
  }

  private sendFrame(type: number, flags: number, streamId: number, payload: Buffer | undefined): void {
    const length = payload?.length ?? 0;
    // Small payloads are copied behind their header; large ones go out as they are.
    const inline = length <= 1024;
    const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + (inline ? length : 0));
    frame.writeUIntBE(length, 0, 3);
    frame[3] = type;
    frame[4] = flags;
    frame.writeUInt32BE(streamId, 5);
    if (inline) {
      payload?.copy(frame, FRAME_HEADER_BYTES);
      this.send(frame);
    } else {
      this.send(frame);
      this.send(payload!);
    }
  }

  private send(bytes: Buffer): void {
    if (this.closedWith) return;
    this.outgoing.push(bytes);
    if (this.flushQueued) return;
    this.flushQueued = true;
    // After every I/O callback of this turn of the event loop (as nghttp2 under node:http2
    // sends): the calls that many requests of one turn make leave in one write, and etcd wakes
    // once to read them, not once each.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    const out = this.outgoing;
    if (out.length === 0 || this.socket.destroyed) return;
    this.outgoing = [];
    if (out.length === 1) {
      this.socket.write(out[0]!);
      return;
    }
    let bytes = 0;
    for (const buffer of out) bytes += buffer.length;
    // Small frames are joined into one write; a large request's frames go out as a vector
    // rather than copied once more.
    if (bytes <= 65_536) {
      this.socket.write(Buffer.concat(out, bytes));
      return;
    }
    this.socket.cork();
    for (const buffer of out) this.socket.write(buffer);
    this.socket.uncork();
  }
}

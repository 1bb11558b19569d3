// The body of a watch response. Served over node's HTTP stack, events go from the watcher's queue
// straight to the connection, after kube's cacheWatcher, whose goroutine writes each event it is
// handed: no web stream, promise or read per event and watcher, and on HTTP/1.1 one write (one
// TLS record, one syscall) per watcher for all the events it has waiting. With 1,000 watchers of
// one resource the web stream's per-event promises and reads cost as much again as the socket
// writes, and no watcher's write began before every watcher's share of that work was done.
//
// The writes of every watcher with events waiting are made together, once the turn that queued
// them is over (setImmediate): the write that caused the events has its answer sent first, as
// kube answers a write once etcd has it, apart from the cacher's fan-out; and the watchers are
// written in the order the cacher handed them the events, each completely before the next.
//
// The ReadableStream stays the body the HTTP adapter sees: it writes the status and headers, then
// reads the stream, and that first read starts the direct writes; the stream closes when the watch
// ends, and the adapter ends the response. Without a node response (in-process requests) or one
// whose head is not written yet, events are enqueued on the stream one by one instead.

import type { WatchEvent, WatchStream } from '../../registry/watch-stream.js';

/**
 * How many more events a watch may have waiting than when its connection stopped taking data;
 * one more and the watch ends, its events dropped. kube-apiserver's cacheWatcher holds a
 * watcher's events in two channels (the cacher's input, then the result the watch server
 * serializes from) of suggestedWatchChannelSize events each: for a watch cache at full capacity
 * (ours always is: 100 * 1024 events) and without an index (ours has none) that is 100, and a
 * watcher whose input stays full is closed ("watcher close due to unresponsiveness").
 */
export const UNRESPONSIVE_WATCH_EVENTS = 200;

/** What the watch writer uses of node's ServerResponse and Http2ServerResponse. */
export interface WatchResponseSink {
  readonly headersSent: boolean;
  write(chunk: Uint8Array | string): boolean;
  cork(): void;
  uncork(): void;
  once(event: 'drain', listener: () => void): unknown;
  destroy(error?: Error): unknown;
  /**
   * node's HTTP/1.1 response: true while node frames each write as a chunk, as it does for an
   * answer without a length. The watch writer turns it off and writes the same chunks itself.
   */
  chunkedEncoding?: boolean;
}

export interface WatchBodyOptions {
  stream: WatchStream;
  /** One event's frame in the negotiated form. */
  encode(event: WatchEvent): string | Uint8Array;
  /** The node response the body goes to, when there is one. */
  sink?: WatchResponseSink;
  /** Called for each event sent. */
  sent?(): void;
  /** Called once when the watch ends, whichever way. */
  ended(): void;
}

const text = new TextEncoder();

export function watchBody(options: WatchBodyOptions): ReadableStream<Uint8Array> {
  const { stream, encode, sink, sent } = options;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    options.ended();
  };
  let direct = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (direct) return;
        if (sink?.headersSent) {
          direct = true;
          const chunked = sink.chunkedEncoding === true;
          if (chunked) sink.chunkedEncoding = false;
          const writer = new DirectWriter(sink, stream, chunked ? (event) => chunk(encode(event)) : encode, sent, () => {
            // Not after cancel(): a cancelled stream is closed already.
            if (ended) return;
            // The last chunk, which node's end() writes for a chunked answer.
            if (chunked) sink.write(LAST_CHUNK);
            end();
            controller.close();
          });
          stream.consume(() => writer.readable());
          return;
        }
        const next = await stream.next();
        if (next.done) {
          end();
          controller.close();
          return;
        }
        const frame = encode(next.value);
        sent?.();
        controller.enqueue(typeof frame === 'string' ? text.encode(frame) : frame);
      },
      cancel() {
        end();
        stream.stop();
      },
    },
    // No read ahead: the adapter's first read comes after the head is written, which is when
    // direct writing may start.
    { highWaterMark: 0 },
  );
}

/**
 * An HTTP/1.1 chunk of one event's frame: its length in hex, CRLF, the frame, CRLF, as node
 * frames a write. Every watcher of a change is sent the same frame, so the chunk is made once
 * and each watcher's write is one buffer. (node's own framing makes four writes of each, which
 * its socket then gathers into one TLS record, copying them, for every watcher.)
 */
function chunk(frame: string | Uint8Array): Uint8Array {
  if (frame === lastFrame) return lastChunk;
  const bytes = typeof frame === 'string' ? Buffer.from(frame) : frame;
  // No chunk for nothing: an empty one would end the answer (node writes none either).
  if (bytes.length === 0) return bytes;
  const head = `${bytes.length.toString(16)}\r\n`;
  const out = Buffer.allocUnsafeSlow(head.length + bytes.length + 2);
  out.write(head, 'latin1');
  out.set(bytes, head.length);
  out.write('\r\n', head.length + bytes.length, 'latin1');
  // Only kept frames come again; a string (a bookmark, an ERROR) is made for one watcher.
  if (typeof frame !== 'string') {
    lastFrame = frame;
    lastChunk = out;
  }
  return out;
}

let lastFrame: Uint8Array | undefined;
let lastChunk: Uint8Array = new Uint8Array(0);

/** The chunk that ends a chunked answer, without trailers. */
const LAST_CHUNK = '0\r\n\r\n';

/** Writers with events waiting, in the order their events came; written at the next setImmediate. */
let due: DirectWriter[] = [];

function writeDue(): void {
  const writers = due;
  due = [];
  for (const writer of writers) writer.flush();
}

/** Writes one watch's waiting events to its response. */
class DirectWriter {
  private scheduled = false;
  private draining = false;
  private finished = false;

  constructor(
    private readonly sink: WatchResponseSink,
    private readonly stream: WatchStream,
    private readonly encode: (event: WatchEvent) => string | Uint8Array,
    private readonly sent: (() => void) | undefined,
    private readonly end: () => void,
  ) {}

  /** Events wait, or the stream stopped. */
  readable(): void {
    if (this.finished) return;
    if (this.draining) {
      // Ended as unresponsive: the end of the response goes behind what the connection holds,
      // now. Any other end (a deadline, shutdown) waits for the socket to drain as before, so that
      // shutdown without a grace period cuts the stream rather than queueing an end the client
      // would take for a complete one (over HTTP/2 a stream reset after its end reads as NO_ERROR).
      if (this.stream.drained && this.stream.unresponsive > 0) this.finish();
      return;
    }
    // An ending watch (timeout, shutdown) writes what it has and ends now, in the turn that
    // ended it, as the adapter's reads did: shutdown's grace period counts from here.
    if (this.stream.stopped) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    due.push(this);
    if (due.length === 1) setImmediate(writeDue);
  }

  /**
   * Every waiting event, corked together: HTTP/1.1's chunk framing and the events leave in one
   * write. A full socket stops it until the socket drains, as the adapter's reads waited before;
   * the events keep queueing meanwhile, up to UNRESPONSIVE_WATCH_EVENTS more.
   */
  flush(): void {
    this.scheduled = false;
    if (this.finished) return;
    const { sink, stream } = this;
    sink.cork();
    try {
      for (let event = stream.take(); event !== undefined; event = stream.take()) {
        const more = sink.write(this.encode(event));
        this.sent?.();
        if (!more) {
          this.draining = true;
          // The client is not reading: what may pile up meanwhile is bounded from here.
          stream.limitQueue(UNRESPONSIVE_WATCH_EVENTS);
          sink.once('drain', () => {
            this.draining = false;
            this.readable();
          });
          break;
        }
      }
    } catch (err) {
      // As the adapter does with a body stream that fails: the connection goes, and this writer
      // writes nothing more (the adapter's cancel, on close, ends the watch).
      this.finished = true;
      sink.destroy(err instanceof Error ? err : new Error(String(err)));
      stream.stop();
      return;
    } finally {
      sink.uncork();
    }
    if (!this.draining) stream.unlimitQueue();
    if (stream.drained) this.finish();
  }

  private finish(): void {
    this.finished = true;
    this.end();
  }
}

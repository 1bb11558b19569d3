// Answers still not written out when their request's deadline passes are cut, whoever asked:
// kube's timeout filter wraps every request that is not long-running, system:masters' too, and
// when the deadline comes after the handler has begun its response (a 504 can no longer be sent)
// it aborts the handler, and Go's server closes the HTTP/1.1 connection or resets the HTTP/2
// stream with INTERNAL_ERROR. So a client that asks for a large list and never reads it holds
// neither the answer's memory nor a max-in-flight seat past --request-timeout. So is an HTTP/1.1
// answer made but still waiting behind an earlier one on its connection (pipelined behind a
// watch, say), a request Go would not even have read yet. A request whose handler has not
// answered is left to the request-deadline filter, which answers it 504.
//
// A request hands its response over once its answer is made, and nothing is linked, listened to
// or written on the response: a look in the event loop's next turn, after the answer has been
// written, forgets the answers written out (nearly all) and keeps the few still being written,
// which the deadline sweeper then looks at on each tick until they are done or cut. Linking every
// response into a list and unlinking it when it closed cost a GET several microseconds of server
// CPU, and so did keeping every response until the sweeper's next tick.

import type { ServerResponse } from 'node:http';
import { constants, type Http2ServerResponse } from 'node:http2';

type Outgoing = ServerResponse | Http2ServerResponse;

/** Not yet written out, nor gone with its connection or stream. */
function beingWritten(outgoing: Outgoing): boolean {
  if (outgoing.writableFinished) return false;
  if ('stream' in outgoing) return !outgoing.stream.destroyed;
  // A pipelined answer waiting behind another has no socket of its own yet, and node never tells
  // it when the connection closes: the connection it waits on says whether it is gone.
  return !outgoing.destroyed && !(outgoing.socket ?? outgoing.req.socket)?.destroyed;
}

function cut(outgoing: Outgoing): void {
  if ('stream' in outgoing) outgoing.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  // A pipelined answer waiting behind another (a watch, say) has no socket of its own yet, and
  // destroying it would wait for one: the connection goes.
  else (outgoing.socket ?? outgoing.req.socket).destroy();
}

type Entries = Array<Outgoing | number>;

export class UnwrittenAnswers {
  /** Responses handed over since the last hop, and their deadlines (epoch ms), in turn. */
  private handed: Entries = [];
  /** Responses still being written at a look, and their deadlines, in turn. */
  private writing: Entries = [];
  /** The array the next sweep fills, kept so that sweeps allocate nothing. */
  private spare: Entries = [];

  constructor(
    /** Told when a look finds answers still being written, for sweep() to be called. */
    private readonly onWriting: () => void,
  ) {}

  /**
   * `outgoing`, whose answer is made (given to the server to write, not yet written), is cut if it
   * is still being written at `expiresAt`.
   */
  add(outgoing: Outgoing, expiresAt: number): void {
    if (this.handed.length === 0) setImmediate(this.hop);
    this.handed.push(outgoing, expiresAt);
  }

  /**
   * Runs in the check phase of the turn the answers were handed over in; the HTTPS server writes
   * the answers of that turn in the same phase (answer-batch.ts), after this. So these are looked
   * at in the next turn's check phase, when all are written or waiting on their client.
   */
  private readonly hop = (): void => {
    const batch = this.handed;
    this.handed = [];
    setImmediate(this.look, batch);
  };

  private readonly look = (batch: Entries): void => {
    const before = this.writing.length;
    this.keepUnwritten(batch, this.writing, Date.now());
    if (before === 0 && this.writing.length > 0) this.onWriting();
  };

  /** Whether any answer is still being written. */
  get empty(): boolean {
    return this.writing.length === 0;
  }

  /** Forgets the answers written out since, cuts those past their deadline, and keeps the others. */
  sweep(now: number): void {
    const kept = this.spare;
    this.keepUnwritten(this.writing, kept, now);
    this.spare = this.writing;
    this.writing = kept;
  }

  /** Moves the entries of `from` still being written and not cut onto `to`, and empties `from`. */
  private keepUnwritten(from: Entries, to: Entries, now: number): void {
    for (let i = 0; i < from.length; i += 2) {
      const outgoing = from[i] as Outgoing;
      const expiresAt = from[i + 1] as number;
      if (!beingWritten(outgoing)) continue;
      if (expiresAt <= now) cut(outgoing);
      else to.push(outgoing, expiresAt);
    }
    from.length = 0;
  }
}

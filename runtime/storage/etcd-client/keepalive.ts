// HTTP/2 PING keepalive of a connection to etcd, as gRPC's client keepalive works with the values
// kube-apiserver gives its etcd client (storagebackend/factory/etcd3.go: DialKeepAliveTime 30 s,
// DialKeepAliveTimeout 10 s): when nothing has been read for an interval while calls or watches
// are open, a PING goes out, and a connection whose PING is not answered in time is torn down, so
// that its calls and watches fail at once and the next ones connect anew. Without it a half-open
// connection (etcd frozen, a peer gone without a FIN) is only noticed when a call's deadline
// passes, and a watch on it never is.
//
// As gRPC's default (PermitWithoutStream false), an idle connection is not pinged: etcd's server
// counts pings without streams as abuse and answers with GOAWAY "too_many_pings".

export interface KeepaliveOptions {
  /** How long the connection may be quiet, with streams open, before it is pinged. */
  timeMs: number;
  /** How long a PING may go unanswered before the connection is closed. */
  timeoutMs: number;
}

/** kube-apiserver's keepalive of its etcd client. */
export const ETCD_CLIENT_KEEPALIVE: KeepaliveOptions = { timeMs: 30_000, timeoutMs: 10_000 };

/** What the keepalive watches and pings: an HTTP/2 connection. */
export interface KeepaliveTarget {
  /** Bytes read so far: any read since the last check counts as life, at no cost per message. */
  readonly bytesRead: number;
  /** Calls and watches open on the connection. */
  readonly openStreams: number;
  /** Sends a PING; `answered` is called on its acknowledgement. */
  ping(answered: () => void): void;
}

export class ConnectionKeepalive {
  private bytesRead = 0;
  private pinging = false;
  private timer?: NodeJS.Timeout;
  private pingTimer?: NodeJS.Timeout;

  constructor(
    private readonly target: KeepaliveTarget,
    private readonly options: KeepaliveOptions,
    /** Called once when a PING went unanswered; the caller tears the connection down. */
    private readonly dead: (reason: string) => void,
  ) {
    this.schedule();
  }

  /** The connection is gone: no more checks. */
  stop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.pingTimer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer = setTimeout(() => this.check(), this.options.timeMs);
    this.timer.unref();
  }

  private check(): void {
    const read = this.target.bytesRead;
    const quiet = read === this.bytesRead;
    this.bytesRead = read;
    if (quiet && this.target.openStreams > 0 && !this.pinging) this.ping();
    this.schedule();
  }

  private ping(): void {
    this.pinging = true;
    this.pingTimer = setTimeout(() => {
      this.stop();
      this.dead(`keepalive ping not acknowledged within ${this.options.timeoutMs} ms`);
    }, this.options.timeoutMs);
    this.pingTimer.unref();
    this.target.ping(() => {
      clearTimeout(this.pingTimer);
      this.pinging = false;
    });
  }
}

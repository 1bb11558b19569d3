// etcd's KV service (Range, Txn, Compact) and Watch as this server calls them: each KV request
// encoded, sent as one unary gRPC call with a deadline, and its answer decoded; each watch a
// Watch stream of its own holding one watcher.

import { GrpcChannel } from './grpc-channel.js';
import type { GrpcCallError, GrpcStream } from './grpc-channel.js';
import type { KeepaliveOptions } from './keepalive.js';
import {
  decodeCompactionResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  decodeWatchResponse,
  encodeWatchCreateRequest,
} from './messages.js';
import type { CompactionResponse, RangeRequest, RangeResponse, TxnRequest, TxnResponse, WatchCreateRequest, WatchResponse } from './messages.js';

export type * from './messages.js';
export { GRPC_UNAVAILABLE, GrpcCallError } from './grpc-channel.js';
export type { GrpcStream } from './grpc-channel.js';

export class EtcdClient {
  private readonly channel: GrpcChannel;

  constructor(
    endpoints: string[],
    /** Each call's deadline, unless the call gives its own. */
    private readonly timeoutMs: number,
    /** The connection's PING keepalive; kube-apiserver's (30 s, 10 s) by default. */
    keepalive?: KeepaliveOptions,
  ) {
    this.channel = new GrpcChannel(endpoints, keepalive);
  }

  async range(request: RangeRequest, timeoutMs = this.timeoutMs): Promise<RangeResponse> {
    return decodeRangeResponse(await this.channel.unary('/etcdserverpb.KV/Range', encodeRangeRequest(request), Date.now() + timeoutMs));
  }

  async txn(request: TxnRequest): Promise<TxnResponse> {
    return decodeTxnResponse(await this.channel.unary('/etcdserverpb.KV/Txn', encodeTxnRequest(request), Date.now() + this.timeoutMs));
  }

  async compact(revision: number): Promise<CompactionResponse> {
    return decodeCompactionResponse(await this.channel.unary('/etcdserverpb.KV/Compact', encodeCompactionRequest(revision), Date.now() + this.timeoutMs));
  }

  /**
   * Opens a Watch stream with one watcher. Every response goes to `onResponse`; `onEnd` is told
   * once when the stream ends (the connection lost, or etcd ending it), never after cancel().
   */
  watch(request: WatchCreateRequest, onResponse: (res: WatchResponse) => void, onEnd: (error: GrpcCallError | undefined) => void): GrpcStream {
    return this.channel.stream('/etcdserverpb.Watch/Watch', encodeWatchCreateRequest(request), Date.now() + this.timeoutMs, {
      message: (message) => onResponse(decodeWatchResponse(message)),
      end: onEnd,
    });
  }

  close(): void {
    this.channel.close();
  }
}

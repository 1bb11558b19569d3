// etcd's KV service (Range, Txn, Compact) and Watch as this server calls them: each KV request
// encoded, sent as one unary gRPC call with a deadline, and its answer decoded; each watch a
// Watch stream of its own holding one watcher.

import type { SecureContext } from 'node:tls';
import { GRPC_PREFIX_BYTES, GrpcChannel, grpcFramed, grpcMessage } from './grpc-channel.js';
import type { GrpcCallError, GrpcStream } from './grpc-channel.js';
import type { KeepaliveOptions } from './keepalive.js';
import {
  compactionRequest,
  createTxnRequest,
  decodeCompactionResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  decodeWatchResponse,
  rangeRequest,
  txnRequest,
  watchCreateRequest,
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
    /** The TLS of https endpoints (see etcd-tls.ts). */
    secureContext?: SecureContext,
  ) {
    this.channel = new GrpcChannel(endpoints, keepalive, secureContext);
  }

  // Each call's answer is decoded where it settles, so a call is one promise from the request
  // to its decoded answer.

  range(request: RangeRequest, timeoutMs = this.timeoutMs): Promise<RangeResponse> {
    return this.channel.unary('/etcdserverpb.KV/Range', grpcMessage(rangeRequest(request)), Date.now() + timeoutMs, decodeRangeResponse);
  }

  txn(request: TxnRequest): Promise<TxnResponse> {
    return this.channel.unary('/etcdserverpb.KV/Txn', grpcMessage(txnRequest(request)), Date.now() + this.timeoutMs, decodeTxnResponse);
  }

  /** The Txn a create sends (compare create_revision = 0, put, else range), written in one piece. */
  createTxn(key: Buffer, value: string): Promise<TxnResponse> {
    return this.channel.unary('/etcdserverpb.KV/Txn', grpcFramed(createTxnRequest(key, value, GRPC_PREFIX_BYTES)), Date.now() + this.timeoutMs, decodeTxnResponse);
  }

  compact(revision: number): Promise<CompactionResponse> {
    return this.channel.unary('/etcdserverpb.KV/Compact', grpcMessage(compactionRequest(revision)), Date.now() + this.timeoutMs, decodeCompactionResponse);
  }

  /**
   * Opens a Watch stream with one watcher. Every response goes to `onResponse`; `onEnd` is told
   * once when the stream ends (the connection lost, or etcd ending it), never after cancel().
   */
  watch(request: WatchCreateRequest, onResponse: (res: WatchResponse) => void, onEnd: (error: GrpcCallError | undefined) => void): GrpcStream {
    return this.channel.stream('/etcdserverpb.Watch/Watch', grpcMessage(watchCreateRequest(request)), Date.now() + this.timeoutMs, {
      message: (message) => onResponse(decodeWatchResponse(message)),
      end: onEnd,
    });
  }

  close(): void {
    this.channel.close();
  }
}

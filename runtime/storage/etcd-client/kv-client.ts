// etcd's KV service (Range, Txn, Compact) as this server calls it: each request encoded, sent as
// one unary gRPC call with a deadline, and its answer decoded.

import { GrpcChannel } from './grpc-channel.js';
import {
  decodeCompactionResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodeRangeRequest,
  encodeTxnRequest,
} from './kv-messages.js';
import type { CompactionResponse, RangeRequest, RangeResponse, TxnRequest, TxnResponse } from './kv-messages.js';

export type * from './kv-messages.js';
export { GrpcCallError } from './grpc-channel.js';

export class EtcdKvClient {
  private readonly channel: GrpcChannel;

  constructor(
    endpoints: string[],
    /** Each call's deadline, unless the call gives its own. */
    private readonly timeoutMs: number,
  ) {
    this.channel = new GrpcChannel(endpoints);
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

  close(): void {
    this.channel.close();
  }
}

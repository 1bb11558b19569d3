// What the transport needs from a binary response format (protobuf), so that the core itself
// never imports one: createClient(config, { codec: await protobufCodec() }) opts in.

export interface ResponseCodec {
  /** Asked for first in Accept; JSON stays second, for kinds the server has no message for. */
  readonly mediaType: string;
  /** A whole response body in this format: the object in its JSON form. */
  decodeObject(body: Uint8Array): unknown;
  /** One watch event message (its length prefix removed). */
  decodeWatchEvent(message: Uint8Array): { type: string; object: unknown };
}

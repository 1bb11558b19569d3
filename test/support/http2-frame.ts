// One HTTP/2 frame as raw bytes (RFC 9113 §4.1: 24-bit length, type, flags, 31-bit stream id,
// payload), for tests that play an HTTP/2 peer by hand over a plain socket.

export function http2Frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

// A web stream of bytes read to its end, as one buffer: the body of a Response or Request read whole.

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

// A watch as an async iterator of events. The stream is newline-delimited JSON (one WatchEvent
// per line). When the connection drops, or the server ends the watch on its own timeout, the
// watch is opened again from the last resourceVersion seen (bookmarks included), as client-go's
// RetryWatcher does. An ERROR event becomes a thrown StatusError; 410 is an ExpiredError.
// A watch begun without a resourceVersion (or at "0") starts with the current objects as ADDED
// events, in no order of version: no version among them is a safe place to resume from, so such
// a watch resumes only once a BOOKMARK has given one; until then a drop ends it (an error) and an
// end by the server ends the iteration, as RetryWatcher refuses those versions.

import type { IncomingMessage } from 'node:http';
import type { WatchEvent, WatchOptions } from './options.js';
import { statusErrorOf, StatusError, type Status } from './status-error.js';
import { isDroppedConnection, isMedia, sleep, type Transport } from './transport.js';
import type { ResponseCodec } from './codec.js';

/** Pause before opening a dropped watch again, so a server that is down is not spun on. */
const RESUME_DELAY_MS = 200;

interface RawEvent {
  type: string;
  object: unknown;
}

/** The lines of a response, as they arrive. */
async function* lines(res: IncomingMessage): AsyncGenerator<string> {
  let pending = '';
  res.setEncoding('utf8');
  for await (const chunk of res as AsyncIterable<string>) {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line) yield line;
    }
  }
  if (pending.trim()) yield pending.trim();
}

/** The events of a binary stream: each message behind a 4-byte big-endian length. */
async function* frames(res: IncomingMessage, codec: ResponseCodec): AsyncGenerator<RawEvent> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of res as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const size = pending.readUInt32BE(0);
      if (pending.length < 4 + size) break;
      yield codec.decodeWatchEvent(pending.subarray(4, 4 + size));
      pending = pending.subarray(4 + size);
    }
  }
}

/** The events of a JSON stream. */
async function* jsonEvents(res: IncomingMessage): AsyncGenerator<RawEvent> {
  for await (const line of lines(res)) yield JSON.parse(line) as RawEvent;
}

export async function* watchEvents<T>(transport: Transport, path: string, options: WatchOptions): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const { signal, ...params } = options;
  let resourceVersion = params.resourceVersion;
  let resumable = resourceVersion !== undefined && resourceVersion !== '' && resourceVersion !== '0';
  for (;;) {
    let res: IncomingMessage | undefined;
    try {
      res = await transport.stream({ method: 'GET', path, query: { ...params, resourceVersion, watch: true }, accept: transport.accept, signal });
      const codec = transport.codec;
      for await (const event of codec && isMedia(res.headers, codec.mediaType) ? frames(res, codec) : jsonEvents(res)) {
        if (event.type === 'ERROR') throw statusErrorOf((event.object as Status).code ?? 500, event.object);
        const version = (event.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
        if (version) resourceVersion = version;
        if (event.type === 'BOOKMARK') resumable = true;
        yield event as WatchEvent<T>;
      }
      // The server ended the watch: the caller asked for that with timeoutSeconds; otherwise resume.
      if (params.timeoutSeconds !== undefined || !resumable) return;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof StatusError || !isDroppedConnection(err) || !resumable) throw err;
    } finally {
      res?.destroy();
    }
    await sleep(RESUME_DELAY_MS, signal);
  }
}

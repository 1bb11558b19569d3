// The answer to a HEAD request. Hono serves HEAD as GET and drops the body, Content-Length with it
// (our GETs get theirs from node-listener.ts, computed from the body as it is written). Go's
// net/http keeps it: a handler that writes a body to a HEAD has the bytes counted and discarded,
// and the count sent as Content-Length (RFC 9110 9.3.2: the length the GET would have had).
// Go counts only while the body fits its write buffer and sends a larger GET chunked; ours sends
// every GET with its length, and its HEAD with the same, so that the two always agree.
import type { KubeContext } from './context.js';
import { Headers } from '../machinery/http/headers.js';
import { Response } from '../machinery/http/response.js';

/** Statuses whose answers have no body (Go's bodyAllowedForStatus), hence no length to give. */
const bodyless = (status: number) => status < 200 || status === 204 || status === 304;

/** Gives the HEAD's answer (the GET's, body still on it) the Content-Length of that body. */
export async function headAnswer(c: KubeContext): Promise<void> {
  const res = c.res;
  if (c.get('requestInfo')?.verb === 'watch') {
    // A watch's body never ends; Go sends its headers without a length, eats the events, and
    // ends the watch when the client goes. Here nothing would read the stream once the body is
    // dropped, nor see the client go: the watch is ended now, its watcher released.
    await res.body?.cancel();
    c.res = new Response(null, { status: res.status, headers: res.headers });
    return;
  }
  if (bodyless(res.status) || res.headers.has('content-length')) return;
  const length = (await res.arrayBuffer()).byteLength;
  // Go gives a HEAD whose handler wrote nothing no Content-Length.
  if (length === 0) return;
  const headers = new Headers(res.headers);
  headers.set('content-length', String(length));
  c.res = new Response(null, { status: res.status, headers });
}

// V8 watches each allocation site (an object or array literal in the source) and, once nearly
// every object made there outlives a young collection, allocates that site's objects straight in
// the old generation. A serving process then pretenures some of its request path's short-lived
// objects too (a queued SQLite write, which holds its request's resolve and reject): they die in
// the old generation, where only a full collection frees them, and until then each young
// collection treats what they reach (the request, its body, its answer's headers) as alive and
// moves it to the old generation as well. Under wrk CREATE of custom resources that moved 0.8 to
// 1.4 MB per young collection, against 0.29 to 0.46 MB with V8's pretenuring off, and the
// server's CPU per create was about 10 to 18% lower without it (README, "Session 19"). So the
// server turns it off for its process, as early as it can: launch.cjs before the bundle is
// compiled, startServer for a library user's process. A node command line that names the flag is
// left alone.

import { setFlagsFromString } from 'node:v8';

const NAMED = /(^|\s)--(no-)?allocation-site-pretenuring\b/;

/** Turns V8's allocation-site pretenuring off for this process, unless node's command line decides it. */
export function stopPretenuring(): void {
  if (NAMED.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}

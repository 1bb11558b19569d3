// HTTP/1.1 answers ready at once (a GET the watch cache serves) are written together, once the
// event loop has run every request it read in this turn, instead of each as soon as it is made.
//
// Each write to a socket is a system call that wakes the client waiting on it. Written one by
// one, with the next request's work between them, every response found its client asleep again,
// and the wake-up (a context switch, often the server's own CPU given up to the client) cost more
// CPU than serving the request. Written back to back, the first write wakes the client and the
// others find it awake. HTTP/2 needs none of this: nghttp2 already sends all of a connection's
// frames of a turn in one write.

/** Resolves each Response given to it at the event loop's next check phase, all in one go. */
export function answerBatch(): (res: Response) => Promise<Response> {
  let waiting: Array<((res: Response) => void) | Response> = [];
  const release = () => {
    const list = waiting;
    waiting = [];
    for (let i = 0; i < list.length; i += 2) (list[i] as (res: Response) => void)(list[i + 1] as Response);
  };
  return (res) =>
    new Promise<Response>((resolve) => {
      if (waiting.length === 0) setImmediate(release);
      waiting.push(resolve, res);
    });
}

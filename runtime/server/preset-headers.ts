// Headers every answer carries under the handler's own: kube's filters put Audit-Id and
// Cache-Control on the response writer before the handler runs, and a handler's own header of the
// same name replaces them. They are kept beside node's response and written with its head.
// Node's setHeader would do the same, but a response given a header that way takes node's slower
// path when its head is written, each header of the head set one by one through setHeader first:
// about 6 µs of CPU an answer on a bare node:https server under wrk (83 against 77 µs, medians of
// eight runs each). In this server that is a few percent of a GET, below what the development
// machine could show (README, "Session 24").

import type { OutgoingHttpHeaders } from 'node:http';

const PRESET = Symbol('presetHeaders');

type Carrier = { [PRESET]?: Readonly<Record<string, string>> };

/** The headers every answer written to `outgoing` carries unless its head names them itself. */
export function presetHeaders(outgoing: object, headers: Readonly<Record<string, string>>): void {
  (outgoing as Carrier)[PRESET] = headers;
}

/** Whether a head names a header, in any case (node's heads are plain objects, their names as given). */
function names(head: OutgoingHttpHeaders, lowerName: string): boolean {
  for (const name in head) {
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) return true;
  }
  return false;
}

/**
 * The head to write: the preset headers the head does not name, then the head's own. The head is
 * never changed (it may be the handler's); without preset headers it is returned as it is.
 */
export function withPresetHeaders(outgoing: object, head: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const preset = (outgoing as Carrier)[PRESET];
  if (!preset) return head;
  const merged: OutgoingHttpHeaders = {};
  for (const name in preset) {
    if (!names(head, name.toLowerCase())) merged[name] = preset[name];
  }
  for (const name in head) merged[name] = head[name];
  return merged;
}

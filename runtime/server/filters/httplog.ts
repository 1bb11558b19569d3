// kube-apiserver's httplog at -v=3: one structured "HTTP" line per request once its response is
// done (for a watch: when the stream ends), with the keys kube writes: verb (as its metrics report
// it), URI, latency, userAgent, audit-ID, srcIP, resp. Only the request line is logged: no headers, no body, so no
// credential can reach the log this way. Installed only when -v is 3 or more, so a quieter
// server pays nothing for it.

import type { RequestInfo } from '../../machinery/request-info.js';
import { formatGoDuration } from '../../machinery/duration.js';
import { joinHostPort } from '../../machinery/join-host-port.js';
import { logAt, type Logger } from '../../machinery/logger.js';
import { connectionSocket, type KubeContext, type KubeHandler } from '../context.js';
import { reportedVerb } from './metrics.js';

export const HTTPLOG_LEVEL = 3;

function sourceAddress(c: KubeContext): string {
  // HTTP/2's compatibility request has a socket too: a proxy to its session's.
  const socket = c.env?.incoming?.socket ?? connectionSocket(c);
  if (!socket?.remoteAddress) return '';
  return joinHostPort(socket.remoteAddress, socket.remotePort ?? '');
}

function requestUri(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

export function withHttpLog(inner: KubeHandler, logger: Logger): KubeHandler {
  return async (c) => {
    const started = process.hrtime.bigint();
    const outgoing = c.env?.outgoing;
    // Read now: the line is written when the response is done, and by then a client that hung up
    // has taken its socket's address with it.
    const srcIP = sourceAddress(c);
    const line = () => {
      const info = c.get('requestInfo') as RequestInfo | undefined;
      // Set by the app before its chain, which this filter is part of.
      const auditId = c.get('auditID') ?? '';
      logAt(logger, HTTPLOG_LEVEL, 'HTTP', {
        // kube's form (LIST, WATCH, APPLY, ...) once the request is known; the method before that.
        verb: info ? reportedVerb(c, info) : c.req.method,
        URI: c.env?.incoming?.url ?? requestUri(c.req.url),
        latency: formatGoDuration(process.hrtime.bigint() - started),
        userAgent: c.req.header('user-agent') ?? '',
        'audit-ID': String(auditId),
        srcIP,
        resp: outgoing && outgoing.headersSent ? outgoing.statusCode : c.res.status,
      });
    };
    try {
      await inner(c);
    } finally {
      if (outgoing && !outgoing.writableFinished) outgoing.once('close', line);
      else line();
    }
  };
}

// node:https serving the Hono app through @hono/node-server's request listener. The TLS layer asks
// every client for a certificate but lets the handshake succeed without one (or with one we do
// not trust): authentication decides, so a bearer token still works and a bad certificate gets
// a 401 Status rather than a TLS failure.

import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { internalError } from '../errors/status-error.js';
import type { KubeEnv, Logger } from './context.js';
import { statusResponse } from './status-response.js';

export interface SecureServingOptions {
  app: Hono<KubeEnv>;
  certPem: string;
  keyPem: string;
  /** CA bundle sent to clients as acceptable issuers of their certificates. */
  clientCaPem: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  logger: Logger;
}

export interface SecureServer {
  server: Server;
  port: number;
  /** Stops accepting, ends open connections (watches included) and resolves when all are gone. */
  close(): Promise<void>;
}

/** Go clients keep idle connections 90s; outlive that so they never reuse a connection we just closed. */
const KEEP_ALIVE_TIMEOUT_MS = 120_000;
/** kube-apiserver's ReadHeaderTimeout: a client has this long to send its request line and headers. */
export const READ_HEADER_TIMEOUT_MS = 32_000;
/** kube-apiserver's MaxHeaderBytes (1 MiB): request line and headers together; node's default is 16 KiB. */
export const MAX_HEADER_BYTES = 1 << 20;
/** How often node looks for connections past READ_HEADER_TIMEOUT_MS (its default, 30s, would let them run to ~60s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * What Go's HTTP server writes when it cannot read a request, before any handler runs: plain
 * text naming the status, then the connection closes. No Status object: kube-apiserver's
 * handlers never see these requests.
 */
function goConnectionError(status: string): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`;
}

/** Read failures Go answers by closing without a word: timeouts and connections the client dropped. */
const SILENT_CLIENT_ERRORS = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ECONNRESET', 'EPIPE', 'HPE_CLOSED_CONNECTION']);

export async function serveSecurely(options: SecureServingOptions): Promise<SecureServer> {
  const { logger } = options;
  const listener = getRequestListener((request, env) => options.app.fetch(request, env), {
    // Reached only if the app itself fails to produce a Response.
    errorHandler: (err) => {
      logger.error('unhandled error serving request:', err);
      return statusResponse(internalError(err));
    },
  });
  const server = createServer(
    {
      cert: options.certPem,
      key: options.keyPem,
      ca: options.clientCaPem,
      requestCert: true,
      rejectUnauthorized: false,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: READ_HEADER_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    listener,
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // A broken client connection is that client's problem, never the process's.
  server.on('tlsClientError', (err) => logger.debug('TLS handshake error:', err.message));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    logger.debug('client connection error:', err.message);
    if (!socket.writable || SILENT_CLIENT_ERRORS.has(err.code ?? '')) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(goConnectionError(status));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.error('server error:', err));
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

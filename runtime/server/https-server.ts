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
    },
    listener,
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // A broken client connection is that client's problem, never the process's.
  server.on('tlsClientError', (err) => logger.debug('TLS handshake error:', err.message));
  server.on('clientError', (err: Error, socket: Socket) => {
    logger.debug('client connection error:', err.message);
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
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

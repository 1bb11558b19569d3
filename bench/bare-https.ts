// The bare HTTPS server under the bench's ceiling and etcd floor: node:https on the server's own
// certificates, asking for (not requiring) a client certificate as the server does, with its
// keep-alive timeout, so TLS and connections cost the same on both sides of a ratio.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { KEEP_ALIVE_TIMEOUT_MS } from '../runtime/server/https-server.js';

export function bareHttpsServer(dataDir: string, listener: (req: IncomingMessage, res: ServerResponse) => void): Server {
  return createServer(
    {
      cert: readFileSync(join(dataDir, 'apiserver.crt')),
      key: readFileSync(join(dataDir, 'apiserver.key')),
      ca: readFileSync(join(dataDir, 'ca.crt')),
      requestCert: true,
      rejectUnauthorized: false,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    },
    listener,
  );
}

// Free loopback ports for the processes tests start (etcd, server replicas).
import { createServer } from 'node:net';

/** A port nobody listens on right now: bind port 0, read what the kernel chose, release it. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });

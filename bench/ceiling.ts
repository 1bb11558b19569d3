// The ceiling for the benchmark: a bare node:https server with a Hono handler returning a fixed
// body, on the same TLS material as the real server. Nothing we add can be faster than this.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';

const [dataDir, port] = process.argv.slice(2);
const body = JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'fixed', namespace: 'default' }, data: { a: 'b' } });
const app = new Hono();
app.get('*', (c) => c.body(body, 200, { 'content-type': 'application/json' }));
const server = createServer(
  {
    cert: readFileSync(join(dataDir, 'apiserver.crt')),
    key: readFileSync(join(dataDir, 'apiserver.key')),
    ca: readFileSync(join(dataDir, 'ca.crt')),
    requestCert: true,
    rejectUnauthorized: false,
  },
  getRequestListener(app.fetch),
);
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));

// The ceiling of `npm run bench`: a bare node:https server with a Hono handler, on the server's
// own TLS material and socket options, answering GET with a fixed body as large as the server's
// GET of the bench ConfigMap, and POST (after reading the whole request body) with a fixed 201
// body as large as the server's CREATE answer. Nothing the server adds can be faster than this.
// Usage: ceiling.ts <data-dir> <port> <GET body bytes> <POST body bytes>
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { bareHttpsServer } from './bare-https.js';

const [dataDir, port, getBytes, postBytes] = process.argv.slice(2);
const fixed = (bytes: number) => JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'x'.repeat(Math.max(0, bytes - 54)) } });
const getBody = fixed(Number(getBytes));
const postBody = fixed(Number(postBytes));
const app = new Hono();
app.get('*', (c) => c.body(getBody, 200, { 'content-type': 'application/json' }));
app.post('*', async (c) => {
  await c.req.arrayBuffer();
  return c.body(postBody, 201, { 'content-type': 'application/json' });
});
const server = bareHttpsServer(dataDir, getRequestListener(app.fetch));
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));

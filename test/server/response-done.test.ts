// One close listener per response for everything that waits on its end: each finisher runs once,
// in the order registered, with its value; one registered after the close runs at once; and the
// server's filters still release what they hold when a client goes away mid-response.
import { EventEmitter } from 'node:events';
import { request as httpsRequest } from 'node:https';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../runtime/index.js';
import { whenResponseDone } from '../../runtime/server/response-done.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

describe('whenResponseDone', () => {
  it('runs each finisher once, in order, from a single listener', () => {
    const response = new EventEmitter();
    const seen: string[] = [];
    const note = (value: string) => seen.push(value);
    whenResponseDone(response, note, 'a');
    whenResponseDone(response, note, 'b');
    expect(response.listenerCount('close')).toBe(1);
    response.emit('close');
    response.emit('close');
    expect(seen).toEqual(['a', 'b']);
    whenResponseDone(response, note, 'late');
    expect(seen).toEqual(['a', 'b', 'late']);
  });
});

describe('a client gone mid-response', () => {
  it('leaves no request counted: the drain lets shutdown through and the metrics record the request', async () => {
    const server = await startServer({ storage: 'memory' });
    const creds = kubeconfigCredentials(server.kubeconfig);
    try {
      // Large enough that the response is still being written when the client resets.
      const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { blob: 'x'.repeat(900 * 1024) } });
      expect((await call(server.url, '/api/v1/namespaces/default/configmaps', creds, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big })).status).toBe(201);
      for (let i = 0; i < 5; i++) {
        await new Promise<void>((resolve) => {
          const req = httpsRequest(new URL('/api/v1/namespaces/default/configmaps/big', server.url), { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          });
          req.on('error', () => resolve());
          req.end();
        });
      }
      // The server serves on, and every aborted GET was recorded when its response ended.
      const after = await call(server.url, '/api/v1/namespaces/default/configmaps/big', creds);
      expect(after.status).toBe(200);
      const metrics = await call(server.url, '/metrics', creds);
      expect(metrics.body).toMatch(/apiserver_request_total\{[^}]*verb="GET"[^}]*resource="configmaps"[^}]*code="200"[^}]*\} [6-9]/);
    } finally {
      // Resolves only if the drain saw every counted request end.
      await server.close();
    }
  }, 60_000);
});

// The server over HTTPS while its etcd is down: clients get kube-apiserver's Status for storage
// it cannot reach (500 ServerTimeout naming the operation, Retry-After: 2), never the storage
// client's own words (addresses, ports, client classes), which go to the server log instead; a
// create refused then is not applied behind the client's back when etcd returns.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';

const binary = etcdBinary();
const INTERNALS = /ECONNREFUSED|127\.0\.0\.1|BrokenCircuit|circuit breaker|GRPC|UNAVAILABLE|etcd3|No connection/;
const cms = '/api/v1/namespaces/default/configmaps';

describe.runIf(binary)('the server while etcd is down', () => {
  let etcd: EtcdProcess;
  let server: RunningServer;
  let creds: Credentials;
  const logged: string[] = [];

  const send = async (method: string, path: string, body?: unknown) => {
    const res = await call(server.url, path, creds, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, retryAfter: res.headers['retry-after'], text: res.body, body: res.json() };
  };

  beforeAll(async () => {
    etcd = await startEtcd(binary!);
    const remember = (message: string, ...args: unknown[]) => void logged.push([message, ...args].join(' '));
    server = await startServer({ storage: 'etcd', etcdServers: etcd.endpoints, logger: { debug: () => {}, info: () => {}, error: remember } });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(async () => {
    await server?.close();
    await etcd?.stop();
  });

  it('answers GET, LIST and CREATE with a ServerTimeout Status, and applies nothing later', async () => {
    expect((await send('POST', cms, { metadata: { name: 'before' } })).status).toBe(201);
    await etcd.stop({ keepData: true });

    const get = await send('GET', `${cms}/before`);
    const list = await send('GET', cms);
    const create = await send('POST', cms, { metadata: { name: 'during' }, data: { k: 'v' } });
    for (const [op, res] of [['get', get], ['list', list], ['create', create]] as const) {
      expect(res.status).toBe(500);
      expect(res.retryAfter).toBe('2');
      expect(res.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `The ${op} operation against configmaps could not be completed at this time, please try again.`,
        reason: 'ServerTimeout',
        details: { name: op, kind: 'configmaps', retryAfterSeconds: 2 },
        code: 500,
      });
      expect(res.text).not.toMatch(INTERNALS);
    }
    // The operator still learns what happened.
    expect(logged.join('\n')).toMatch(/ECONNREFUSED 127\.0\.0\.1|circuit breaker is open/);

    await etcd.restart();
    let back = await send('GET', `${cms}/before`);
    for (let i = 0; back.status !== 200 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await send('GET', `${cms}/before`);
    }
    expect(back.status).toBe(200);
    expect((await send('GET', `${cms}/during`)).status).toBe(404);
    const again = await send('POST', cms, { metadata: { name: 'during' }, data: { k: 'v' } });
    expect(again.status).toBe(201);
  });
});

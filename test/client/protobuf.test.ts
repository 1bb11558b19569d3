// Protobuf responses on request: the same objects, lists, watch events and failures as the JSON
// client sees, decoded from kube's protobuf envelope by client/protobuf.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, StatusError, type Client, type WatchEvent } from '../../client/index.js';
import { protobufCodec } from '../../client/protobuf.js';
import type { ConfigMap } from '../../generated/types/core.v1.js';
import { adminConfig, useClientServer } from './support.js';

const env = useClientServer();
let pb: Client;

beforeAll(async () => {
  pb = createClient(adminConfig(env.server), { codec: await protobufCodec() });
});
afterAll(() => pb?.close());

describe('protobuf responses', () => {
  it('are what the server answers when asked for them', async () => {
    const reply = await pb.transport.request({ method: 'GET', path: '/api/v1/namespaces/default', accept: pb.transport.accept });
    expect(reply.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
  });

  it('decode to the JSON form: ConfigMap, Secret bytes, Namespace status, managed fields', async () => {
    const json = env.client;
    await json.coreV1.configMaps('default').apply({ metadata: { name: 'pb', labels: { a: 'b' } }, data: { k: 'v', empty: '' } }, { fieldManager: 'tester' });
    await json.coreV1.secrets('default').create({ metadata: { name: 'pb' }, data: { key: Buffer.from('\u0000binary\u00ff').toString('base64') }, type: 'Opaque' });
    expect(await pb.coreV1.configMaps('default').get('pb')).toEqual(await json.coreV1.configMaps('default').get('pb'));
    expect(await pb.coreV1.secrets('default').get('pb')).toEqual(await json.coreV1.secrets('default').get('pb'));
    expect(await pb.coreV1.namespaces().get('default')).toEqual(await json.coreV1.namespaces().get('default'));
  });

  it('decode a Pod: quantities, int-or-string ports, pointers, nested lists', async () => {
    const json = env.client;
    await json.coreV1.pods('default').create({
      metadata: { name: 'pb-pod' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox',
            resources: { limits: { cpu: '500m', memory: '1Gi' } },
            ports: [{ containerPort: 8080, name: 'http' }],
            readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
            livenessProbe: { tcpSocket: { port: 8080 } },
          },
        ],
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
      },
    });
    expect(await pb.coreV1.pods('default').get('pb-pod')).toEqual(await json.coreV1.pods('default').get('pb-pod'));
  });

  it('decode lists and cluster-scoped RBAC objects', async () => {
    expect(await pb.rbacV1.clusterRoles().list({ limit: 20 })).toEqual(await env.client.rbacV1.clusterRoles().list({ limit: 20 }));
    expect(await pb.coreV1.configMaps('default').list()).toEqual(await env.client.coreV1.configMaps('default').list());
  });

  it('decode watch events', async () => {
    const cms = pb.coreV1.configMaps('default');
    const from = (await cms.list()).metadata?.resourceVersion;
    const seen: WatchEvent<ConfigMap>[] = [];
    const watching = (async () => {
      for await (const e of cms.watch({ resourceVersion: from })) {
        seen.push(e);
        if (e.type === 'DELETED') return;
      }
    })();
    const created = await env.client.coreV1.configMaps('default').create({ metadata: { name: 'pb-watch' }, data: { x: '1' } });
    await env.client.coreV1.configMaps('default').delete('pb-watch');
    await watching;
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    const { apiVersion: _a, kind: _k, ...withoutType } = created;
    expect(seen[0].object).toMatchObject({ ...withoutType, kind: 'ConfigMap', apiVersion: 'v1' });
  });

  it('decode a failure into a StatusError', async () => {
    const err = await pb.coreV1.configMaps('default').get('absent').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(err).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "absent" not found', details: { name: 'absent', kind: 'configmaps' } });
  });
});

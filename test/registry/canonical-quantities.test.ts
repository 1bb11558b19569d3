// kube-apiserver writes every resource.Quantity of a created object back in canonical form; the
// walk that does it skips schemas with no quantity below them (a ConfigMap's), so a text that
// only looks like a quantity there is kept, while quantities deep in a Pod or a LimitRange are
// rewritten. Sent over HTTPS to a real server; what is stored is read back.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const server = useMemoryServer();

describe('quantities on create', () => {
  it('rewrites a Pod container’s and overhead’s quantities, nothing else', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'q', namespace: 'default', annotations: { size: '0.5' } },
      spec: {
        containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '0.5', memory: '1024Mi' }, requests: { cpu: 0.25 } }, env: [{ name: 'N', value: '1024Mi' }] }],
        overhead: { cpu: '1000m' },
      },
    };
    const created = await server.send<{ spec: { containers: Array<{ resources: unknown; env: unknown }>; overhead: unknown }; metadata: { annotations: unknown } }>('POST', '/api/v1/namespaces/default/pods', pod);
    expect(created.status).toBe(201);
    // The memory request is defaulted from the limit, as kube's defaulting does.
    expect(created.body.spec.containers[0]!.resources).toEqual({ limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '250m', memory: '1Gi' } });
    expect(created.body.spec.containers[0]!.env).toEqual([{ name: 'N', value: '1024Mi' }]);
    expect(created.body.spec.overhead).toEqual({ cpu: '1' });
    expect(created.body.metadata.annotations).toEqual({ size: '0.5' });
    const read = await server.send<{ spec: { containers: Array<{ resources: unknown }> } }>('GET', '/api/v1/namespaces/default/pods/q');
    expect(read.body.spec.containers[0]!.resources).toEqual({ limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '250m', memory: '1Gi' } });
  });

  it('rewrites a LimitRange’s quantities inside its list of limits', async () => {
    const created = await server.send<{ spec: unknown }>('POST', '/api/v1/namespaces/default/limitranges', {
      metadata: { name: 'l' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2000m', memory: '2048Mi' }, default: { cpu: '0.1' } }] },
    });
    expect(created.status).toBe(201);
    // default takes max's memory and defaultRequest takes default's, as kube's defaulting does.
    expect(created.body.spec).toEqual({ limits: [{ type: 'Container', max: { cpu: '2', memory: '2Gi' }, default: { cpu: '100m', memory: '2Gi' }, defaultRequest: { cpu: '100m', memory: '2Gi' } }] });
  });

  it('keeps a ConfigMap’s texts that look like quantities', async () => {
    const created = await server.send<{ data: unknown }>('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' }, data: { cpu: '0.5', memory: '1024Mi' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ cpu: '0.5', memory: '1024Mi' });
  });
});

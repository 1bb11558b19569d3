// `kubectl get --raw /metrics` with kubectl 1.33: the admin (system:masters) gets the text
// exposition with the request kubectl itself just made counted; a user without
// system:monitoring gets kube's 403 text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKubectl, kubectlVersions, startKubectlServer, writeKubeconfig, runKubectl, type KubectlServer } from '../support/kubectl.js';
import { sample } from '../support/metrics-text.js';

kubectlVersions();
const kubectl = findKubectl('1.33');

describe.skipIf(!kubectl)('kubectl 1.33 get --raw /metrics', () => {
  let ctx: KubectlServer;
  beforeAll(async () => {
    ctx = await startKubectlServer('e2e-metrics-', { storage: 'memory' });
  });
  afterAll(() => ctx?.close());

  it('prints the metrics, counting kubectl own requests', async () => {
    expect((await ctx.kubectl(kubectl!, ['get', 'configmaps', '-n', 'default'])).code).toBe(0);
    const res = await ctx.kubectl(kubectl!, ['get', '--raw', '/metrics']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^# HELP apiserver_request_total \[STABLE\] /m);
    const list = { verb: 'LIST', dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver', code: '200' };
    expect(sample(res.stdout, 'apiserver_request_total', list)).toBe(1);
  });

  it('refuses a user without system:monitoring', async () => {
    const config = writeKubeconfig(ctx.dir, await ctx.server.addUser({ name: 'viewer', groups: [] }), 'viewer.kubeconfig');
    const res = await runKubectl(kubectl!, ['get', '--raw', '/metrics'], { kubeconfig: config, home: ctx.dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Error from server (Forbidden): forbidden: User "viewer" cannot get path "/metrics"');
  });
});

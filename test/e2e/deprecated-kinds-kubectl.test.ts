// kubectl 1.33 against the server for a deprecated kind: the Warning header reaches kubectl,
// which prints it on stderr exactly as against kube-apiserver 1.33 ("Warning: v1 Endpoints is
// deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"), once per request, on get,
// create and delete alike; the table shows kube's ENDPOINTS column. A kind that is not
// deprecated prints no warning.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKubectl, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

const kubectl = findKubectl('1.33');
const WARNING = 'Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice';

const manifest = (name: string, subsets: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace: 'default' }, subsets });

describe.skipIf(!kubectl)('kubectl 1.33 and deprecated kinds', () => {
  let env: KubectlServer;
  beforeAll(async () => {
    env = await startKubectlServer('kl-deprecated-', { storage: 'memory' });
  });
  afterAll(() => env?.close());

  it('warns on create, get and delete of endpoints, and prints kube\'s columns', async () => {
    const created = await env.kubectl(kubectl!, ['create', '-f', '-'], manifest('web', [
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'fd00::5' }], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] },
    ]));
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toBe('endpoints/web created');
    expect(created.stderr.trim()).toBe(WARNING);
    const empty = await env.kubectl(kubectl!, ['create', '-f', '-'], manifest('none', []));
    expect(empty.code, empty.stderr).toBe(0);

    const got = await env.kubectl(kubectl!, ['get', 'endpoints', '-n', 'default']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stderr.trim()).toBe(WARNING);
    const rows = got.stdout.trim().split('\n').map((line) => line.split(/\s{2,}/));
    expect(rows[0]).toEqual(['NAME', 'ENDPOINTS', 'AGE']);
    expect(rows.slice(1).map((r) => r.slice(0, 2))).toEqual([
      ['none', '<none>'],
      ['web', '10.0.0.1:80,10.0.0.2:80,[fd00::5]:80 + 3 more...'],
    ]);

    const short = await env.kubectl(kubectl!, ['get', 'ep', 'web', '-n', 'default', '-o', 'jsonpath={.subsets[0].ports[0].protocol}']);
    expect(short.stdout).toBe('TCP');
    expect(short.stderr.trim()).toBe(WARNING);

    const deleted = await env.kubectl(kubectl!, ['delete', 'endpoints', 'web', '-n', 'default']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr.trim()).toBe(WARNING);
    const after = await env.kubectl(kubectl!, ['get', 'endpoints', '-n', 'default', '-o', 'name']);
    expect(after.stdout.trim()).toBe('endpoints/none');
  });

  it('refuses an invalid object with the warning still shown', async () => {
    const res = await env.kubectl(kubectl!, ['create', '-f', '-'], manifest('bad', [{ ports: [{ port: 80 }] }]));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(WARNING);
    expect(res.stderr).toContain('The Endpoints "bad" is invalid: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`');
  });

  it('prints no warning for a kind that is not deprecated', async () => {
    const res = await env.kubectl(kubectl!, ['get', 'configmaps', '-n', 'default']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
  });
});

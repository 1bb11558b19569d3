// ComponentStatus (core/v1, deprecated in 1.19) as kube-apiserver serves it: a read-only view
// (get, list; no watch, no writes) computed on each read by probing the store, never stored.
// kubectl 1.33 prints kube's warning and table (NAME, STATUS, MESSAGE, ERROR); the store is
// `sqlite-0` or `memory-0` in this process and `etcd-0` on etcd, where stopping etcd turns it
// Unhealthy with the probe's error and starting it again turns it Healthy, while the server
// keeps answering throughout.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';
import { findKubectl, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

const kubectl = findKubectl('1.33');
const etcd = etcdBinary();
const WARNING = 'Warning: v1 ComponentStatus is deprecated in v1.19+';

/** kubectl's table, split into cells on runs of two or more spaces. */
const rows = (stdout: string) => stdout.trimEnd().split('\n').map((line) => line.trimEnd().split(/\s{2,}/));

describe.skipIf(!kubectl)('kubectl 1.33 and componentstatuses on SQLite', () => {
  let env: KubectlServer;
  beforeAll(async () => {
    env = await startKubectlServer('kl-cs-');
  });
  afterAll(() => env?.close());

  it('lists the store with kube\'s warning and columns, by name and short name', async () => {
    for (const resource of ['componentstatuses', 'cs']) {
      const got = await env.kubectl(kubectl!, ['get', resource]);
      expect(got.code, got.stderr).toBe(0);
      expect(got.stderr.trim()).toBe(WARNING);
      expect(rows(got.stdout)).toEqual([
        ['NAME', 'STATUS', 'MESSAGE', 'ERROR'],
        ['sqlite-0', 'Healthy', 'ok'],
      ]);
    }
    const one = await env.kubectl(kubectl!, ['get', 'cs', 'sqlite-0', '-o', 'json']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr.trim()).toBe(WARNING);
    expect(JSON.parse(one.stdout)).toEqual({
      apiVersion: 'v1',
      kind: 'ComponentStatus',
      metadata: { name: 'sqlite-0', creationTimestamp: null },
      conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
    });
  });

  it('answers a list as kube: empty list metadata, items without type fields, selectors applied', async () => {
    const raw = await env.kubectl(kubectl!, ['get', '--raw', '/api/v1/componentstatuses']);
    expect(raw.code, raw.stderr).toBe(0);
    expect(JSON.parse(raw.stdout)).toEqual({
      kind: 'ComponentStatusList',
      apiVersion: 'v1',
      metadata: {},
      items: [{ metadata: { name: 'sqlite-0', creationTimestamp: null }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] }],
    });
    const byName = await env.kubectl(kubectl!, ['get', 'cs', '--field-selector', 'metadata.name=sqlite-0', '-o', 'name']);
    expect(byName.stdout.trim()).toBe('componentstatus/sqlite-0');
    // No ComponentStatus has labels, so any label requirement filters everything out.
    const labelled = await env.kubectl(kubectl!, ['get', 'cs', '-l', 'tier=db']);
    expect([labelled.code, labelled.stdout, labelled.stderr.trim()]).toEqual([0, '', `${WARNING}\nNo resources found`]);
    const unsupported = await env.kubectl(kubectl!, ['get', 'cs', '--field-selector', 'status=x']);
    expect(unsupported.code).not.toBe(0);
    expect(unsupported.stderr).toContain('field label not supported: status');
  });

  it('answers an unknown component as kube\'s REST does (a 500 without a reason) and serves no watch or write', async () => {
    const missing = await env.kubectl(kubectl!, ['get', 'cs', 'scheduler']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Error from server: Component not found: scheduler');
    const watch = await env.kubectl(kubectl!, ['get', '--raw', '/api/v1/componentstatuses?watch=true']);
    expect(watch.code).not.toBe(0);
    expect(watch.stderr).toContain('(MethodNotAllowed): watch is not supported on resources of kind "componentstatuses"');
    const deleted = await env.kubectl(kubectl!, ['delete', 'cs', 'sqlite-0']);
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain('(MethodNotAllowed): the server does not allow this method on the requested resource');
    const created = await env.kubectl(kubectl!, ['create', '--validate=false', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'mine' } }));
    expect(created.code).not.toBe(0);
    expect(created.stderr).toContain('(MethodNotAllowed)');
    // Nothing was stored: the list still holds the store alone.
    const after = await env.kubectl(kubectl!, ['get', 'cs', '-o', 'name']);
    expect(after.stdout.trim()).toBe('componentstatus/sqlite-0');
  });

  it('sets apiserver_requested_deprecated_apis for it, with no removal release', async () => {
    const res = await env.kubectl(kubectl!, ['get', '--raw', '/metrics']);
    expect(res.code, res.stderr).toBe(0);
    const line = res.stdout.split('\n').find((l) => l.startsWith('apiserver_requested_deprecated_apis{') && l.includes('resource="componentstatuses"'));
    expect(line).toBe('apiserver_requested_deprecated_apis{group="",version="v1",resource="componentstatuses",subresource="",removed_release=""} 1');
  });

  it('is in discovery with kube\'s verbs and short name', async () => {
    const res = await env.kubectl(kubectl!, ['get', '--raw', '/api/v1']);
    const resources = (JSON.parse(res.stdout) as { resources: Array<Record<string, unknown>> }).resources;
    expect(resources.find((r) => r.name === 'componentstatuses')).toEqual({
      name: 'componentstatuses',
      singularName: 'componentstatus',
      namespaced: false,
      kind: 'ComponentStatus',
      verbs: ['get', 'list'],
      shortNames: ['cs'],
    });
  });
});

describe.skipIf(!kubectl)('kubectl 1.33 and componentstatuses on memory', () => {
  it('names the store memory-0', async () => {
    const env = await startKubectlServer('kl-cs-mem-', { storage: 'memory' });
    try {
      const got = await env.kubectl(kubectl!, ['get', 'cs', '-o', 'name']);
      expect(got.stdout.trim()).toBe('componentstatus/memory-0');
    } finally {
      await env.close();
    }
  });
});

describe.skipIf(!kubectl || !etcd)('kubectl 1.33 and componentstatuses on etcd', () => {
  let etcdProcess: EtcdProcess;
  let env: KubectlServer;
  beforeAll(async () => {
    etcdProcess = await startEtcd(etcd!);
    env = await startKubectlServer('kl-cs-etcd-', { storage: 'etcd', etcdServers: etcdProcess.endpoints });
  });
  afterAll(async () => {
    await env?.close();
    await etcdProcess?.stop();
  });

  it('reports etcd-0 Healthy, Unhealthy with the probe\'s error while etcd is down, and Healthy once it is back', async () => {
    const up = await env.kubectl(kubectl!, ['get', 'cs']);
    expect(up.code, up.stderr).toBe(0);
    expect(rows(up.stdout)).toEqual([
      ['NAME', 'STATUS', 'MESSAGE', 'ERROR'],
      ['etcd-0', 'Healthy', 'ok'],
    ]);

    await etcdProcess.stop({ keepData: true });
    const down = await env.kubectl(kubectl!, ['get', 'cs', 'etcd-0', '-o', 'json']);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr.trim()).toBe(WARNING);
    const conditions = (JSON.parse(down.stdout) as { conditions: Array<Record<string, string>> }).conditions;
    expect(conditions).toHaveLength(1);
    expect(conditions[0]).toMatchObject({ type: 'Healthy', status: 'False' });
    expect(conditions[0].message).toBeUndefined();
    expect(conditions[0].error).toMatch(/^error getting data from etcd: ./);
    const table = await env.kubectl(kubectl!, ['get', 'cs']);
    expect(rows(table.stdout)[1].slice(0, 2)).toEqual(['etcd-0', 'Unhealthy']);
    expect(rows(table.stdout)[1][2]).toMatch(/^error getting data from etcd: /);

    await etcdProcess.restart();
    let again = await env.kubectl(kubectl!, ['get', 'cs', '-o', 'jsonpath={.items[0].conditions[0].status}']);
    for (let i = 0; again.stdout !== 'True' && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await env.kubectl(kubectl!, ['get', 'cs', '-o', 'jsonpath={.items[0].conditions[0].status}']);
    }
    expect(again.stdout).toBe('True');
  }, 120_000);
});

// kubectl 1.33 against custom resources, each kubectl with a fresh HOME (so a fresh discovery
// and OpenAPI cache): once the CRD is Established, `get`, `api-resources`, `explain`, `apply`
// (client-side, which sends a JSON merge patch because the OpenAPI offers no strategic merge
// patch for the kind) and `apply --server-side` work without a restart, and after the CRD is
// deleted the type is gone.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

const kubectl133 = kubectlVersions().find((v) => v.version === '1.33')?.path;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: The schedule and what to run.
            properties:
              cronSpec: {type: string, description: When to run, in cron syntax.}
              image: {type: string}
              replicas: {type: integer, default: 1}
`;

const cronTab = (image: string) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: nightly, namespace: default}
spec: {cronSpec: "0 0 * * *", image: ${image}}
`;

describe.runIf(kubectl133)('kubectl with custom resources (kubectl 1.33)', () => {
  let k: KubectlServer;
  let homes = 0;
  // A HOME of its own per call: kubectl's discovery and OpenAPI caches start empty, as for a new user.
  const run = async (args: string[], input?: string) => {
    const home = `${k.dir}/home-${homes++}`;
    return (await import('../support/kubectl.js')).runKubectl(kubectl133!, args, { kubeconfig: k.kubeconfig, home, timeout: 60_000 }, input);
  };

  beforeAll(async () => {
    k = await startKubectlServer('crd-serving-', { storage: 'memory' }, 60_000);
  });
  afterAll(() => k?.close());

  it('serves the new type to get, api-resources, explain and both applies, and forgets it when the CRD goes', async () => {
    const created = await run(['apply', '-f', '-'], CRD);
    expect(created.stderr).toBe('');
    const established = await run(['wait', '--for=condition=Established', '--timeout=20s', 'crd/crontabs.stable.example.com']);
    expect(established.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met');
    let empty = await run(['get', 'crontabs']);
    for (let i = 0; i < 40 && empty.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      empty = await run(['get', 'crontabs']);
    }
    expect(empty.stderr.trim()).toBe('No resources found in default namespace.');

    const resources = await run(['api-resources', '--api-group=stable.example.com', '--no-headers']);
    expect(resources.stdout.trim().split(/\s+/)).toEqual(['crontabs', 'ct', 'stable.example.com/v1', 'true', 'CronTab']);

    const explained = await run(['explain', 'crontab.spec']);
    expect(explained.stderr).toBe('');
    expect(explained.stdout).toContain('The schedule and what to run.');
    expect(explained.stdout).toContain('cronSpec');

    const applied = await run(['apply', '-f', '-'], cronTab('a'));
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('crontab.stable.example.com/nightly created');
    const changed = await run(['apply', '-f', '-'], cronTab('b'));
    expect(changed.stderr).toBe('');
    expect(changed.stdout.trim()).toBe('crontab.stable.example.com/nightly configured');
    const got = JSON.parse((await run(['get', 'ct', 'nightly', '-o', 'json'])).stdout);
    expect(got.spec).toEqual({ cronSpec: '0 0 * * *', image: 'b', replicas: 1 });

    const serverSide = await run(['apply', '--server-side', '--field-manager=ssa-test', '--force-conflicts', '-f', '-'], cronTab('c'));
    expect(serverSide.stderr).toBe('');
    expect(serverSide.stdout.trim()).toBe('crontab.stable.example.com/nightly serverside-applied');
    const table = await run(['get', 'crontabs']);
    expect(table.stderr).toBe("");
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+AGE$/);
    expect(table.stdout).toContain('nightly');

    const deleted = await run(['delete', 'crd', 'crontabs.stable.example.com']);
    expect(deleted.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted');
    const gone = await run(['get', 'crontabs']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain(`the server doesn't have a resource type "crontabs"`);
  });
  it('lets the server validate fields (the OpenAPI offers fieldValidation) and lists items whole', async () => {
    expect((await run(['apply', '-f', '-'], CRD)).stderr).toBe('');
    await run(['wait', '--for=condition=Established', '--timeout=20s', 'crd/crontabs.stable.example.com']);
    const openapi = JSON.parse((await run(['get', '--raw', '/openapi/v3/apis/stable.example.com/v1'])).stdout);
    const item = openapi.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'];
    expect(item.patch.parameters.map((p: { name: string }) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(item.parameters.map((p: { name: string }) => p.name)).toEqual(['name', 'namespace', 'pretty']);

    // kubectl sends fieldValidation=Strict and leaves the judgement to the server, which names the field.
    const withBogus = cronTab('a').replace('image: a}', 'image: a, bogus: 1}');
    let bogus = await run(['apply', '-f', '-'], withBogus);
    for (let i = 0; i < 40 && bogus.stderr.includes("doesn't have a resource type"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      bogus = await run(['apply', '-f', '-'], withBogus);
    }
    expect(bogus.code).not.toBe(0);
    expect(bogus.stderr).toContain('unknown field "spec.bogus"');
    expect(bogus.stderr).toContain('Error from server');
    expect((await run(['get', 'crontabs', '-o', 'name'])).stdout.trim()).toBe('');

    expect((await run(['apply', '-f', '-'], cronTab('a'))).stderr).toBe('');
    const list = JSON.parse((await run(['get', '--raw', '/apis/stable.example.com/v1/namespaces/default/crontabs'])).stdout);
    expect(list.kind).toBe('CronTabList');
    expect(list.items.map((i: { apiVersion: string; kind: string }) => [i.apiVersion, i.kind])).toEqual([['stable.example.com/v1', 'CronTab']]);
    await run(['delete', 'crd', 'crontabs.stable.example.com']);
  });
});

// kubectl (a Go client: `__proto__` is just a map key to it) applying a ConfigMap whose data has a
// key `__proto__`, client-side (last-applied annotation and a three-way strategic merge patch) and
// server-side, against the server on sqlite: the key is stored, changed and removed like any other.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKubectl, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

const kubectl = findKubectl('1.33');
let cluster: KubectlServer;

beforeAll(async () => {
  if (kubectl) cluster = await startKubectlServer('e2e-proto-member-');
});
afterAll(async () => {
  await cluster?.close();
});

describe.skipIf(!kubectl)('kubectl 1.33 and a data key named __proto__', () => {
  const k = (args: string[]) => cluster.kubectl(kubectl!, args);
  const manifest = (name: string, data: string) => {
    const file = join(cluster.dir, `${name}-${data.replace(/\W/g, '')}.yaml`);
    writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n${data}`);
    return file;
  };
  const data = async (name: string): Promise<string> => {
    const got = await k(['get', 'cm', name, '-n', 'default', '-o', 'jsonpath={.data}']);
    expect(got.code, got.stderr).toBe(0);
    return got.stdout;
  };

  it('client-side apply creates, changes and removes the key', async () => {
    let run = await k(['apply', '-f', manifest('csa', '  __proto__: "a"\n  b: "c"\n')]);
    expect(run.code, run.stderr).toBe(0);
    expect(await data('csa')).toBe('{"__proto__":"a","b":"c"}');
    run = await k(['apply', '-f', manifest('csa', '  __proto__: "z"\n  b: "c"\n')]);
    expect(run.code, run.stderr).toBe(0);
    expect(await data('csa')).toBe('{"__proto__":"z","b":"c"}');
    run = await k(['apply', '-f', manifest('csa', '  b: "c"\n')]);
    expect(run.code, run.stderr).toBe(0);
    expect(await data('csa')).toBe('{"b":"c"}');
  });

  it('server-side apply owns the key and removes it when the manager stops applying it', async () => {
    let run = await k(['apply', '--server-side', '-f', manifest('ssa', '  __proto__: "a"\n  b: "c"\n')]);
    expect(run.code, run.stderr).toBe(0);
    expect(await data('ssa')).toBe('{"__proto__":"a","b":"c"}');
    const yaml = await k(['get', 'cm', 'ssa', '-n', 'default', '-o', 'yaml', '--show-managed-fields']);
    expect(yaml.stdout).toContain('f:__proto__: {}');
    run = await k(['apply', '--server-side', '-f', manifest('ssa', '  b: "c"\n')]);
    expect(run.code, run.stderr).toBe(0);
    expect(await data('ssa')).toBe('{"b":"c"}');
  });
});

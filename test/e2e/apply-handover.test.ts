// kubectl 1.27 and 1.33 moving one ConfigMap between client-side apply (three-way strategic merge
// driven by the last-applied-configuration annotation) and server-side apply, both ways, with no
// conflicts, as against kube-apiserver. Real kubectl binaries, the real server.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

let cluster: KubectlServer;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

beforeAll(async () => {
  cluster = await startKubectlServer('e2e-handover-', { storage: 'memory' });
});
afterAll(async () => {
  await cluster?.close();
});

interface ConfigMap {
  metadata: { annotations?: Record<string, string>; managedFields?: { manager: string; operation: string }[] };
  data?: Record<string, string>;
}

for (const { version, path } of kubectlVersions()) {
  describe.skipIf(!path)(`kubectl ${version} apply handover`, () => {
    const k = (args: string[]) => cluster.kubectl(path!, args);
    const tag = version.replace('.', '-');
    const manifest = (name: string, data: Record<string, string>) => {
      const file = join(cluster.dir, `${name}-${Object.keys(data).join('')}-${Object.values(data).join('')}.yaml`);
      const lines = Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`);
      writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n${lines.join('\n')}\n`);
      return file;
    };
    const get = async (name: string): Promise<ConfigMap> => JSON.parse((await k(['get', 'cm', name, '-n', 'default', '-o', 'json', '--show-managed-fields'])).stdout);
    const lastAppliedData = (cm: ConfigMap) => (JSON.parse(cm.metadata.annotations?.[LAST_APPLIED] ?? '{}') as ConfigMap).data;

    describe('client-side first', () => {
      const name = `csa-first-${tag}`;

      it('creates with client-side apply', async () => {
        const r = await k(['apply', '-f', manifest(name, { a: '1', b: '2', c: '3' })]);
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe(`configmap/${name} created`);
        expect(lastAppliedData(await get(name))).toEqual({ a: '1', b: '2', c: '3' });
      });

      it('server-side apply takes the fields over without conflicts', async () => {
        const r = await k(['apply', '--server-side', '-f', manifest(name, { a: 'one', b: '2', c: '3' })]);
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe(`configmap/${name} serverside-applied`);
        const cm = await get(name);
        expect(cm.data).toEqual({ a: 'one', b: '2', c: '3' });
        expect(cm.metadata.managedFields?.some((e) => e.manager === 'kubectl' && e.operation === 'Apply')).toBe(true);
        // The annotation follows the server-side apply, so the next client-side apply diffs right.
        expect(lastAppliedData(cm)).toEqual({ a: 'one', b: '2', c: '3' });
      });

      it('a later client-side apply removes what the manifest drops, without conflicts', async () => {
        const r = await k(['apply', '-f', manifest(name, { a: 'one', b: 'two' })]);
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe(`configmap/${name} configured`);
        const cm = await get(name);
        expect(cm.data).toEqual({ a: 'one', b: 'two' });
        expect(lastAppliedData(cm)).toEqual({ a: 'one', b: 'two' });
      });

      it('and server-side apply again changes those fields without conflicts', async () => {
        const r = await k(['apply', '--server-side', '-f', manifest(name, { a: 'uno', b: 'two' })]);
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe(`configmap/${name} serverside-applied`);
        const cm = await get(name);
        expect(cm.data).toEqual({ a: 'uno', b: 'two' });
        expect(lastAppliedData(cm)).toEqual({ a: 'uno', b: 'two' });
      });

      it('another field manager still conflicts', async () => {
        const r = await k(['apply', '--server-side', '--field-manager=other', '-f', manifest(name, { a: 'mine' })]);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain('conflict with "kubectl"');
        expect(r.stderr).toContain('.data.a');
      });
    });

    describe('server-side first', () => {
      const name = `ssa-first-${tag}`;

      it('creates with server-side apply, without the annotation', async () => {
        const r = await k(['apply', '--server-side', '-f', manifest(name, { a: '1', b: '2' })]);
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe(`configmap/${name} serverside-applied`);
        expect((await get(name)).metadata.annotations?.[LAST_APPLIED]).toBeUndefined();
      });

      it('client-side apply then patches without conflicts', async () => {
        const r = await k(['apply', '-f', manifest(name, { a: 'one', b: '2' })]);
        expect(r.code).toBe(0);
        expect(r.stdout.trim()).toBe(`configmap/${name} configured`);
        expect(r.stderr).toContain(`is missing the ${LAST_APPLIED} annotation`);
        const cm = await get(name);
        expect(cm.data).toEqual({ a: 'one', b: '2' });
        expect(lastAppliedData(cm)).toEqual({ a: 'one', b: '2' });
      });

      it('and a server-side apply after that keeps the annotation current', async () => {
        const r = await k(['apply', '--server-side', '-f', manifest(name, { a: 'uno' })]);
        expect(r.stderr).toBe('');
        const cm = await get(name);
        expect(cm.data).toEqual({ a: 'uno' });
        expect(lastAppliedData(cm)).toEqual({ a: 'uno' });
      });
    });
  });
}

// kubectl end to end: the real server over HTTPS (in-process, SQLite store), driven by real kubectl
// binaries of the oldest and newest supported minor versions. kubectl 1.33 sends create bodies as
// protobuf and reads Tables, aggregated discovery and OpenAPI v3, so this covers every layer.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlEnv, kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

let cluster: KubectlServer;

beforeAll(async () => {
  cluster = await startKubectlServer('e2e-kubectl-');
});

afterAll(async () => {
  await cluster?.close();
});

const manifest = (name: string, ns: string, data: Record<string, string>, extra = '') =>
  [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${ns}`,
    'data:',
    ...Object.entries(data).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`),
    extra,
  ].join('\n');

for (const { version, path } of kubectlVersions()) {
  describe.skipIf(!path)(`kubectl ${version}`, () => {
    const bin = path!;
    const ns = `e2e-${version.replace('.', '-')}`;
    const k = (args: string[], input?: string) => cluster.kubectl(bin, args, input);

    it('creates a namespace', async () => {
      const r = await k(['create', 'namespace', ns]);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe(`namespace/${ns} created`);
      const get = await k(['get', 'namespace', ns]);
      expect(get.stdout).toMatch(new RegExp(`^NAME\\s+STATUS\\s+AGE\\n${ns}\\s+Active\\s+\\d+s`, 'm'));
    });

    it('creates a configmap from literals and gets it as a table, JSON and YAML', async () => {
      const r = await k(['create', 'configmap', 'cm1', '--from-literal=a=1', '--from-literal=b=2', '-n', ns]);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('configmap/cm1 created');

      const table = await k(['get', 'configmap', 'cm1', '-n', ns]);
      expect(table.stdout).toMatch(/^NAME\s+DATA\s+AGE\ncm1\s+2\s+\d+s/m);

      const json = JSON.parse((await k(['get', 'cm', 'cm1', '-n', ns, '-o', 'json'])).stdout);
      expect(json).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: ns }, data: { a: '1', b: '2' } });
      expect(json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(json.metadata.resourceVersion)).toBeGreaterThan(0);

      const yaml = await k(['get', 'cm', 'cm1', '-n', ns, '-o', 'yaml']);
      expect(yaml.stdout).toContain('kind: ConfigMap');
      expect(yaml.stdout).toMatch(/^ {2}a: "1"$/m);
    });

    it('creates a generic secret whose data is base64 and whose type is Opaque', async () => {
      const r = await k(['create', 'secret', 'generic', 's1', '--from-literal=password=hunter2', '-n', ns]);
      expect(r.stdout.trim()).toBe('secret/s1 created');
      const secret = JSON.parse((await k(['get', 'secret', 's1', '-n', ns, '-o', 'json'])).stdout);
      expect(secret.type).toBe('Opaque');
      expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('hunter2');
      const table = await k(['get', 'secrets', '-n', ns]);
      expect(table.stdout).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE\ns1\s+Opaque\s+1\s+\d+s/m);
    });

    it('applies a manifest client-side, then applies a changed one', async () => {
      const first = await k(['apply', '-f', '-'], manifest('applied', ns, { keep: 'x', drop: 'y' }));
      expect(first.stderr).toBe('');
      expect(first.stdout.trim()).toBe('configmap/applied created');
      const second = await k(['apply', '-f', '-'], manifest('applied', ns, { keep: 'x2', added: 'z' }));
      expect(second.stderr).toBe('');
      expect(second.stdout.trim()).toBe('configmap/applied configured');
      const got = JSON.parse((await k(['get', 'cm', 'applied', '-n', ns, '-o', 'json'])).stdout);
      expect(got.data).toEqual({ keep: 'x2', added: 'z' });
      expect(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"added":"z"');
      const again = await k(['apply', '-f', '-'], manifest('applied', ns, { keep: 'x2', added: 'z' }));
      expect(again.stdout.trim()).toBe('configmap/applied unchanged');
    });

    // kubectl 1.33 sends the bodies of create configmap|secret|namespace as protobuf.
    if (version === '1.33') {
      it('sends and receives create bodies as protobuf', async () => {
        const r = await k(['create', 'configmap', 'proto', '-n', ns, '--from-literal=p=1', '-v=8']);
        expect(r.stdout.trim()).toBe('configmap/proto created');
        expect(r.stderr).toMatch(/verb="POST"[\s\S]*Content-Type: application\/vnd\.kubernetes\.protobuf/);
        expect(r.stderr).toMatch(/"Response" status="201 Created"[\s\S]*Content-Type: application\/vnd\.kubernetes\.protobuf/);
        const got = JSON.parse((await k(['get', 'cm', 'proto', '-n', ns, '-o', 'json'])).stdout);
        expect(got.data).toEqual({ p: '1' });
      });
    }

    it('applies server-side with two field managers, a conflict, and --force-conflicts', async () => {
      const first = await k(['apply', '--server-side', '-f', '-'], manifest('ssa', ns, { a: '1', b: '2' }));
      expect(first.stdout.trim()).toBe('configmap/ssa serverside-applied');
      const conflict = await k(['apply', '--server-side', '--field-manager=other', '-f', '-'], manifest('ssa', ns, { a: 'changed' }));
      expect(conflict.code).not.toBe(0);
      expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
      const forced = await k(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], manifest('ssa', ns, { a: 'changed' }));
      expect(forced.stdout.trim()).toBe('configmap/ssa serverside-applied');
      const got = JSON.parse((await k(['get', 'cm', 'ssa', '-n', ns, '-o', 'json', '--show-managed-fields'])).stdout);
      expect(got.data).toEqual({ a: 'changed', b: '2' });
      const managers = Object.fromEntries(got.metadata.managedFields.map((m: { manager: string; fieldsV1: unknown }) => [m.manager, m.fieldsV1]));
      expect(managers).toEqual({ kubectl: { 'f:data': { 'f:b': {} } }, other: { 'f:data': { 'f:a': {} } } });
    });

    it('dry-runs a create on the server and diffs a manifest against the live object', async () => {
      const dry = await k(['create', 'configmap', 'dry', '-n', ns, '--from-literal=a=b', '--dry-run=server']);
      expect(dry.stdout.trim()).toBe('configmap/dry created (server dry run)');
      expect((await k(['get', 'cm', 'dry', '-n', ns])).stderr).toContain('not found');
      const same = await k(['diff', '-f', '-'], manifest('ssa', ns, { a: 'changed', b: '2' }));
      expect(same.code).toBe(0);
      const changed = await k(['diff', '-f', '-'], manifest('ssa', ns, { a: 'other', b: '2' }));
      expect(changed.code).toBe(1);
      expect(changed.stdout).toMatch(/^-\s+a: changed$/m);
      expect(changed.stdout).toMatch(/^\+\s+a: other$/m);
    });

    it('replaces an object', async () => {
      const current = JSON.parse((await k(['get', 'cm', 'cm1', '-n', ns, '-o', 'json'])).stdout);
      current.data = { replaced: 'yes' };
      const r = await k(['replace', '-f', '-'], JSON.stringify(current));
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('configmap/cm1 replaced');
      const got = JSON.parse((await k(['get', 'cm', 'cm1', '-n', ns, '-o', 'json'])).stdout);
      expect(got.data).toEqual({ replaced: 'yes' });
    });

    it('refuses a replace with a stale resourceVersion', async () => {
      const current = JSON.parse((await k(['get', 'cm', 'cm1', '-n', ns, '-o', 'json'])).stdout);
      await k(['label', 'cm', 'cm1', '-n', ns, 'bump=1']);
      current.data = { stale: 'write' };
      const r = await k(['replace', '-f', '-'], JSON.stringify(current));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('Operation cannot be fulfilled on configmaps "cm1": the object has been modified');
    });

    it('labels and annotates, and selects by label', async () => {
      expect((await k(['label', 'cm', 'cm1', '-n', ns, 'env=prod'])).stdout.trim()).toBe('configmap/cm1 labeled');
      // kubectl 1.27 prints the bare verb ("annotate"); later versions print "annotated". Client-side text.
      expect((await k(['annotate', 'cm', 'cm1', '-n', ns, 'note=hello'])).stdout.trim()).toMatch(/^configmap\/cm1 annotated?$/);
      const selected = await k(['get', 'cm', '-n', ns, '-l', 'env=prod', '-o', 'name']);
      expect(selected.stdout.trim()).toBe('configmap/cm1');
      const notSelected = await k(['get', 'cm', '-n', ns, '-l', 'env!=prod', '-o', 'name']);
      expect(notSelected.stdout).not.toContain('configmap/cm1');
      const got = JSON.parse((await k(['get', 'cm', 'cm1', '-n', ns, '-o', 'json'])).stdout);
      expect(got.metadata.labels.env).toBe('prod');
      expect(got.metadata.annotations.note).toBe('hello');
    });

    it('watches with get -w and sees a new object', async () => {
      const watcher = spawn(bin, ['get', 'configmaps', '-n', ns, '-w', '-o', 'name'], {
        env: kubectlEnv(cluster),
      });
      let out = '';
      watcher.stdout.on('data', (d: Buffer) => (out += d.toString()));
      try {
        await expect.poll(() => out, { timeout: 10_000 }).toContain('configmap/cm1');
        await k(['create', 'configmap', 'watched', '-n', ns, '--from-literal=x=y']);
        await expect.poll(() => out, { timeout: 10_000 }).toContain('configmap/watched');
      } finally {
        watcher.kill();
      }
    });

    it('deletes, and then reports NotFound', async () => {
      const r = await k(['delete', 'cm', 'watched', '-n', ns]);
      expect(r.stdout.trim()).toBe('configmap "watched" deleted');
      const get = await k(['get', 'cm', 'watched', '-n', ns]);
      expect(get.code).not.toBe(0);
      expect(get.stderr).toContain('Error from server (NotFound): configmaps "watched" not found');
    });

    it('refuses objects in a namespace that does not exist', async () => {
      const r = await k(['create', 'configmap', 'orphan', '-n', `${ns}-missing`, '--from-literal=a=b']);
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim()).toBe(`error: failed to create configmap: namespaces "${ns}-missing" not found`);
    });

    it('lists the served resources with api-resources', async () => {
      const r = await k(['api-resources']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
      expect(r.stdout).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
      expect(r.stdout).toMatch(/^secrets\s+v1\s+true\s+Secret$/m);
    });

    it('explains a configmap from the OpenAPI documents', async () => {
      const r = await k(['explain', 'configmap']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/KIND:\s+ConfigMap/);
      expect(r.stdout).toMatch(/VERSION:\s+v1/);
      expect(r.stdout).toMatch(/binaryData\s+<map\[string\]string>/);
      const field = await k(['explain', 'configmap.immutable']);
      expect(field.stdout).toMatch(/FIELD:\s+immutable\s+<boolean>/);
    });

    it('rejects an unknown field under --validate=strict, naming it', async () => {
      const r = await k(['create', '--validate=strict', '-f', '-'], manifest('strict', ns, { a: 'b' }, 'bogus: 1'));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('unknown field "bogus"');
      const absent = await k(['get', 'cm', 'strict', '-n', ns]);
      expect(absent.stderr).toContain('not found');
    });

    it('shows the field error of an invalid object', async () => {
      const r = await k(['create', '-f', '-'], manifest('bad', ns, { 'a b': '1' }));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('The ConfigMap "bad" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters');
    });
  });
}

// kubectl end to end for the wire formats: every patch type on a ConfigMap, and the protobuf
// reads of kubectl's typed clients. Real kubectl binaries, the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

let cluster: KubectlServer;

beforeAll(async () => {
  cluster = await startKubectlServer('wire-kubectl-', { storage: 'memory' });
});
afterAll(async () => {
  await cluster?.close();
});

for (const { version, path } of kubectlVersions()) {
  describe.skipIf(!path)(`kubectl ${version}`, () => {
    const k = (args: string[]) => cluster.kubectl(path!, args);
    const ns = 'default';
    const name = `patched-${version.replace('.', '-')}`;
    const data = async () => JSON.parse((await k(['get', 'cm', name, '-n', ns, '-o', 'json'])).stdout).data as Record<string, string>;

    it('creates the ConfigMap to patch', async () => {
      const r = await k(['create', 'configmap', name, '-n', ns, '--from-literal=a=1', '--from-literal=b=2']);
      expect(r.stderr).toBe('');
    });

    it('patches with --type=json, including a test operation', async () => {
      const ops = [
        { op: 'test', path: '/data/a', value: '1' },
        { op: 'replace', path: '/data/a', value: 'one' },
        { op: 'add', path: '/data/c', value: '3' },
        { op: 'remove', path: '/data/b' },
      ];
      const r = await k(['patch', 'configmap', name, '-n', ns, '--type=json', '-p', JSON.stringify(ops)]);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe(`configmap/${name} patched`);
      expect(await data()).toEqual({ a: 'one', c: '3' });
    });

    it('reports a failed test operation as the server words it', async () => {
      const r = await k(['patch', 'configmap', name, '-n', ns, '--type=json', '-p', '[{"op":"test","path":"/data/a","value":"nope"}]']);
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim()).toBe('The request is invalid: : testing value /data/a failed: test failed');
      expect(await data()).toEqual({ a: 'one', c: '3' });
    });

    it('patches with --type=merge', async () => {
      const r = await k(['patch', 'configmap', name, '-n', ns, '--type=merge', '-p', '{"data":{"c":null,"d":"4"}}']);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe(`configmap/${name} patched`);
      expect(await data()).toEqual({ a: 'one', d: '4' });
    });

    it('patches with --type=strategic', async () => {
      const r = await k(['patch', 'configmap', name, '-n', ns, '--type=strategic', '-p', '{"metadata":{"labels":{"via":"smp"}},"data":{"e":"5"}}']);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe(`configmap/${name} patched`);
      const got = JSON.parse((await k(['get', 'cm', name, '-n', ns, '-o', 'json'])).stdout);
      expect(got.metadata.labels).toEqual({ via: 'smp' });
      expect(got.data).toEqual({ a: 'one', d: '4', e: '5' });
    });

    // kubectl 1.33's typed clients (describe) ask for protobuf first (1.27's ask for JSON); neither
    // has a flag that makes get do so.
    if (version === '1.33') {
      it('reads the object as protobuf when describing it', async () => {
        // Events are not served, so describe is asked not to look for them.
        const r = await k(['describe', 'configmap', name, '-n', ns, '--show-events=false', '-v=8']);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^Name:\\s+${name}$`, 'm'));
        expect(r.stdout).toMatch(/^e:\n----\n5$/m);
        expect(r.stderr).toMatch(/Accept: application\/vnd\.kubernetes\.protobuf, ?application\/json/);
        expect(r.stderr).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf/);
      });
    }
  });
}

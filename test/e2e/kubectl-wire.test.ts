// kubectl end to end, on the wire: which media types kubectl 1.27 and 1.33 really ask for and get
// (read from their -v=8 logs), and that their output is right. kubectl has no flag or kubeconfig
// setting for the content type (no --kube-api-content-type); what decides is the client a command
// uses. Found by trying commands:
// - 1.33's typed clientset asks for `application/vnd.kubernetes.protobuf,application/json`: the
//   Event list of `kubectl describe`, and the Event watch of `kubectl events --watch`.
// - `kubectl get -w` and `kubectl wait` go through the dynamic client and ask for JSON in both.
// - 1.27 never asks for protobuf, neither for lists nor for watches (describe, events --watch,
//   get -w, wait, delete --wait, rollout status all send JSON Accept headers).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { kubectlEnv, kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';
import { exchangesOf } from '../support/kubectl-log.js';

let cluster: KubectlServer;

beforeAll(async () => {
  cluster = await startKubectlServer('e2e-kubectl-wire-');
});

afterAll(async () => {
  await cluster?.close();
});

const PROTOBUF_ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';

/** A kubectl that keeps running (a watch): its output so far, and a way to wait for a line of it. */
function startKubectl(bin: string, args: string[]) {
  const child = spawn(bin, args, { env: kubectlEnv(cluster), stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  async function until(stream: 'stdout' | 'stderr', pattern: RegExp, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pattern.test(out[stream])) {
      if (Date.now() > deadline) throw new Error(`kubectl ${args.join(' ')}: no ${pattern} in ${stream}:\n${out.stdout}\n${out.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { out, until, exited, stop: () => child.kill() };
}

/** A core/v1 Event about `object`, as a manifest for kubectl apply. */
function eventManifest(ns: string, name: string, object: { kind: string; name: string; uid: string }, message: string): string {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns },
    involvedObject: { apiVersion: 'v1', kind: object.kind, name: object.name, namespace: ns, uid: object.uid },
    reason: 'Probed',
    message,
    type: 'Normal',
    count: 1,
    firstTimestamp: now,
    lastTimestamp: now,
    source: { component: 'wire-test' },
  });
}

for (const { version, path } of kubectlVersions()) {
  describe.skipIf(!path)(`kubectl ${version} on the wire`, () => {
    const bin = path!;
    const ns = `wire-${version.replace('.', '-')}`;
    const k = (args: string[], input?: string) => cluster.kubectl(bin, args, input);
    const protobufClient = version !== '1.27';
    // What the typed clientset of this version asks for, and what it is answered with.
    const typedAccept = protobufClient ? PROTOBUF_ACCEPT : 'application/json, */*';
    const typedAnswer = protobufClient ? 'application/vnd.kubernetes.protobuf' : 'application/json';

    beforeAll(async () => {
      expect((await k(['create', 'namespace', ns])).code).toBe(0);
      expect((await k(['create', 'configmap', 'subject', '-n', ns, '--from-literal=x=1'])).code).toBe(0);
    });

    const uidOf = async (name: string) => JSON.parse((await k(['get', 'cm', name, '-n', ns, '-o', 'json'])).stdout).metadata.uid as string;

    it('gets an object as YAML with and without its managed fields', async () => {
      const yaml = await k(['get', 'cm', 'subject', '-n', ns, '-o', 'yaml', '--show-managed-fields']);
      expect(yaml.stderr).toBe('');
      expect(yaml.stdout).toMatch(/^ {2}managedFields:\n {2}- apiVersion: v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n {6}f:data:\n {8}\.: \{\}\n {8}f:x: \{\}\n {4}manager: kubectl-create\n {4}operation: Update\n {4}time: "?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"?$/m);
      const json = JSON.parse((await k(['get', 'cm', 'subject', '-n', ns, '-o', 'json', '--show-managed-fields'])).stdout);
      expect(parseYaml(yaml.stdout)).toEqual(json);
      expect(json.metadata.managedFields).toHaveLength(1);

      const hidden = await k(['get', 'cm', 'subject', '-n', ns, '-o', 'yaml']);
      expect(hidden.stdout).not.toContain('managedFields');
      const { managedFields: _, ...rest } = json.metadata;
      expect(parseYaml(hidden.stdout)).toEqual({ ...json, metadata: rest });
    });

    it(`describe lists the object's events ${protobufClient ? 'as protobuf' : 'as JSON'}`, async () => {
      const uid = await uidOf('subject');
      expect((await k(['apply', '-f', '-'], eventManifest(ns, 'described', { kind: 'ConfigMap', name: 'subject', uid }, 'seen by describe'))).code).toBe(0);
      const r = await k(['describe', 'configmap', 'subject', '-n', ns, '-v=8']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n[\s-]+\n\s+Normal\s+Probed\s+\d+s\s+wire-test\s+seen by describe$/m);
      const lists = exchangesOf(r.stderr, `/namespaces/${ns}/events`, false);
      expect(lists).toHaveLength(1);
      expect(new URL(lists[0].url).searchParams.get('fieldSelector')).toContain(`involvedObject.uid=${uid}`);
      expect(lists[0]).toMatchObject({ verb: 'GET', accept: typedAccept, status: '200 OK', contentType: typedAnswer });
    });

    it(`events --watch watches events ${protobufClient ? 'as protobuf' : 'as JSON'}`, async () => {
      const uid = await uidOf('subject');
      const watch = startKubectl(bin, ['events', '--watch', '-n', ns, '--for', 'configmap/subject', '-v=8']);
      try {
        await watch.until('stderr', /Content-Type: application\/(json|vnd\.kubernetes\.protobuf;stream=watch)/);
        await watch.until('stdout', /seen by describe/);
        expect((await k(['apply', '-f', '-'], eventManifest(ns, 'watched', { kind: 'ConfigMap', name: 'subject', uid }, 'seen by a watch'))).code).toBe(0);
        await watch.until('stdout', /Normal\s+Probed\s+ConfigMap\/subject\s+seen by a watch/);
      } finally {
        watch.stop();
        await watch.exited;
      }
      const watches = exchangesOf(watch.out.stderr, `/namespaces/${ns}/events`, true);
      expect(watches).toHaveLength(1);
      const watchAnswer = protobufClient ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json';
      expect(watches[0]).toMatchObject({ verb: 'GET', accept: typedAccept, status: '200 OK', contentType: watchAnswer });
    });

    // The dynamic client behind get -w and wait asks for JSON in every version.
    it('get --watch -o name watches as JSON and prints each change', async () => {
      const watch = startKubectl(bin, ['get', 'configmaps', '-n', ns, '--watch', '-o', 'name', '-v=8']);
      try {
        await watch.until('stdout', /^configmap\/subject$/m);
        await watch.until('stderr', /watch=true/);
        expect((await k(['create', 'configmap', 'arrived', '-n', ns])).code).toBe(0);
        await watch.until('stdout', /^configmap\/arrived$/m);
      } finally {
        watch.stop();
        await watch.exited;
      }
      const watches = exchangesOf(watch.out.stderr, `/namespaces/${ns}/configmaps`, true);
      expect(watches).toHaveLength(1);
      expect(watches[0]).toMatchObject({ verb: 'GET', accept: 'application/json', status: '200 OK', contentType: 'application/json' });
    });

    it('wait --for=delete watches as JSON and returns once the object is gone', async () => {
      expect((await k(['create', 'configmap', 'doomed', '-n', ns])).code).toBe(0);
      const wait = startKubectl(bin, ['wait', '--for=delete', 'configmap/doomed', '-n', ns, '--timeout=15s', '-v=8']);
      await wait.until('stderr', /watch=true/);
      expect((await k(['delete', 'configmap', 'doomed', '-n', ns, '--wait=false'])).code).toBe(0);
      expect(await wait.exited).toBe(0);
      expect(wait.out.stdout.trim()).toBe('configmap/doomed condition met');
      const watches = exchangesOf(wait.out.stderr, `/namespaces/${ns}/configmaps`, true);
      expect(watches.length).toBeGreaterThanOrEqual(1);
      for (const w of watches) expect(w).toMatchObject({ verb: 'GET', accept: 'application/json', status: '200 OK', contentType: 'application/json' });
    });
  });
}

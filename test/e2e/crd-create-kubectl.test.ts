// The real-world CRDs of ../shared/upstream/crds are stored as kube-apiserver 1.33 stores them
// when kubectl creates them: the definition with kube's defaults (conversion None, singular and
// listKind from the kind) and a status holding only the storage version, at generation 1; then
// the naming and establishing controllers accept the names and establish it, which
// `kubectl wait --for=condition=Established` sees.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const kubectl133 = kubectlVersions().find((v) => v.version === '1.33')?.path;
const CRDS = ['argoproj.io_rollouts', 'cert-manager.io_certificates', 'crew.example.com_drivers', 'gateway.networking.k8s.io_gatewayclasses', 'gateway.networking.k8s.io_httproutes', 'monitoring.coreos.com_servicemonitors'];

interface CRD {
  metadata: { name: string; generation?: number; finalizers?: string[] };
  spec: { group: string; names: Record<string, unknown>; versions: { name: string; storage: boolean }[]; conversion?: { strategy: string } };
  status: { storedVersions: string[]; acceptedNames: Record<string, unknown>; conditions: { type: string; status: string; reason: string; message: string }[] };
}

describe.runIf(kubectl133 && upstreamAvailable())('kubectl create of real-world CRDs (kubectl 1.33)', () => {
  let k: KubectlServer;
  const run = (args: string[], input?: string) => k.kubectl(kubectl133!, args, input);

  beforeAll(async () => {
    k = await startKubectlServer('crd-create-', { storage: 'memory' }, 60_000);
  });
  afterAll(() => k?.close());

  it.each(CRDS)('%s is created and stored with kube defaults', async (file) => {
    const path = join(UPSTREAM_DIR, 'crds', `${file}.yaml`);
    const sent = parse(readFileSync(path, 'utf8')) as CRD;
    const created = await run(['create', '-f', path]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe(`customresourcedefinition.apiextensions.k8s.io/${sent.metadata.name} created`);

    const got = JSON.parse((await run(['get', 'crd', sent.metadata.name, '-o', 'json'])).stdout) as CRD;
    const kind = sent.spec.names.kind as string;
    expect(got.metadata.generation).toBe(1);
    expect(got.spec.names).toEqual({ singular: kind.toLowerCase(), listKind: `${kind}List`, ...sent.spec.names });
    expect(got.spec.conversion).toEqual(sent.spec.conversion ?? { strategy: 'None' });
    expect(got.spec.versions.map((v) => v.name)).toEqual(sent.spec.versions.map((v) => v.name));
    // The status the file carries (crew's Driver) is not the creator's to set.
    expect(got.status.storedVersions).toEqual([sent.spec.versions.find((v) => v.storage)!.name]);

    const waited = await run(['wait', '--for=condition=Established', '--timeout=20s', `crd/${sent.metadata.name}`]);
    expect(waited.stderr).toBe('');
    expect(waited.stdout.trim()).toBe(`customresourcedefinition.apiextensions.k8s.io/${sent.metadata.name} condition met`);
    const established = JSON.parse((await run(['get', 'crd', sent.metadata.name, '-o', 'json'])).stdout) as CRD;
    expect(established.status.acceptedNames).toEqual(established.spec.names);
    const byType = Object.fromEntries(established.status.conditions.map((c) => [c.type, c]));
    expect(byType.NamesAccepted).toEqual(expect.objectContaining({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }));
    expect(byType.Established).toEqual(expect.objectContaining({ status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }));
  });

  it('lists them under the crd short name with kube columns', async () => {
    const table = await run(['get', 'crds']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+CREATED AT$/);
    for (const name of ['rollouts.argoproj.io', 'httproutes.gateway.networking.k8s.io']) expect(table.stdout).toContain(name);
  });
});

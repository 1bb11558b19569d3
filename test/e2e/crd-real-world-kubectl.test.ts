// The real-world CRDs of ../shared/upstream/crds with kubectl 1.33, as against kube-apiserver
// 1.33 (crds/README.md): each is applied (the Rollout, whose last-applied annotation would exceed
// 256 KiB, refused by client-side apply with kube's 422 and taken by server-side apply), becomes
// Established with kube's conditions, and serves its sample: created, read with the CRD's printer
// columns, listed, watched, applied again, deleted. Deleting the CRD takes its instances with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const kubectl133 = kubectlVersions().find((v) => v.version === '1.33')?.path;

interface Column {
  name: string;
  priority?: number;
}
interface CRD {
  metadata: { name: string };
  spec: { group: string; scope: string; names: { plural: string; kind: string }; versions: { name: string; served: boolean; storage: boolean; additionalPrinterColumns?: Column[] }[] };
}
interface Sample {
  apiVersion: string;
  metadata: { name: string; namespace?: string };
}

const FILES = ['cert-manager.io_certificates', 'monitoring.coreos.com_servicemonitors', 'gateway.networking.k8s.io_gatewayclasses', 'gateway.networking.k8s.io_httproutes', 'crew.example.com_drivers', 'argoproj.io_rollouts'];
const read = <T>(file: string): T => parse(readFileSync(join(UPSTREAM_DIR, 'crds', file), 'utf8')) as T;

describe.runIf(kubectl133 && upstreamAvailable())('real-world CRDs with kubectl 1.33', () => {
  let k: KubectlServer;
  const run = (args: string[], input?: string) => k.kubectl(kubectl133!, args, input);

  beforeAll(async () => {
    k = await startKubectlServer('crd-real-world-', { storage: 'memory' }, 60_000);
  });
  afterAll(() => k?.close());

  it('refuses client-side apply of the Rollout CRD (its annotation is too long) and takes server-side apply', async () => {
    const path = join(UPSTREAM_DIR, 'crds', 'argoproj.io_rollouts.yaml');
    const refused = await run(['apply', '-f', path]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('The CustomResourceDefinition "rollouts.argoproj.io" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    expect((await run(['get', 'crd', 'rollouts.argoproj.io'])).code).not.toBe(0);
    const applied = await run(['apply', '--server-side', '-f', path]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/rollouts.argoproj.io serverside-applied');
  });

  it.each(FILES)('%s: applied, Established, its sample served through every verb', async (file) => {
    const crd = read<CRD>(`${file}.yaml`);
    const name = crd.metadata.name;
    if (file !== 'argoproj.io_rollouts') {
      const applied = await run(['apply', '-f', join(UPSTREAM_DIR, 'crds', `${file}.yaml`)]);
      expect(applied.stderr).toBe('');
      expect(applied.stdout.trim()).toBe(`customresourcedefinition.apiextensions.k8s.io/${name} created`);
    }
    const waited = await run(['wait', '--for=condition=Established', '--timeout=20s', `crd/${name}`]);
    expect(waited.stdout.trim()).toBe(`customresourcedefinition.apiextensions.k8s.io/${name} condition met`);
    const status = JSON.parse((await run(['get', 'crd', name, '-o', 'jsonpath={.status}'])).stdout) as { conditions: { type: string; status: string; reason: string }[]; storedVersions: string[] };
    expect(status.conditions.map(({ type, status: s, reason }) => ({ type, status: s, reason }))).toEqual([
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts' },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted' },
    ]);
    expect(status.storedVersions).toEqual([crd.spec.versions.find((v) => v.storage)!.name]);

    const samplePath = join(UPSTREAM_DIR, 'crds', `${file}.sample.yaml`);
    const sample = read<Sample>(`${file}.sample.yaml`);
    const resource = `${crd.spec.names.plural}.${crd.spec.group}`;
    const ref = `${crd.spec.names.kind.toLowerCase()}.${crd.spec.group}/${sample.metadata.name}`;
    // The Driver's spec members are all pruned: kubectl's default strict field validation refuses
    // them as kube does; with --validate=false they are dropped.
    const pruned = file === 'crew.example.com_drivers';
    if (pruned) {
      const strict = await run(['apply', '-f', samplePath]);
      expect(strict.stderr.trim()).toBe(`Error from server (BadRequest): error when creating "${samplePath}": Driver in version "v2" cannot be handled as a Driver: strict decoding error: unknown field "spec.image"`);
    }
    const applyArgs = ['apply', ...(pruned ? ['--validate=false'] : []), '-f', samplePath];
    const created = await run(applyArgs);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe(`${ref} created`);
    if (pruned) expect((await run(['get', resource, sample.metadata.name, '-o', 'jsonpath={.spec}'])).stdout).toBe('{}');

    // kubectl's table has the served version's printer columns of priority 0 after NAME, or AGE alone.
    const version = crd.spec.versions.find((v) => sample.apiVersion.endsWith(`/${v.name}`))!;
    const columns = (version.additionalPrinterColumns ?? []).filter((c) => !c.priority).map((c) => c.name.toUpperCase());
    const table = await run(['get', resource, sample.metadata.name]);
    expect(table.stderr).toBe('');
    const [header, row] = table.stdout.split('\n');
    expect(header.trim().split(/\s{2,}/)).toEqual(['NAME', ...(columns.length ? columns : ['AGE'])]);
    expect(row.startsWith(`${sample.metadata.name} `)).toBe(true);

    const listed = await run(['get', resource, '-o', 'name']);
    expect(listed.stdout.trim()).toBe(ref);
    const ns = crd.spec.scope === 'Namespaced' ? `/namespaces/${sample.metadata.namespace ?? 'default'}` : '';
    const watched = await run(['get', '--raw', `/apis/${sample.apiVersion}${ns}/${crd.spec.names.plural}?watch=1&timeoutSeconds=1`]);
    const events = watched.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', sample.metadata.name]]);

    // kubectl's three-way merge patch sends what the live object lacks or has otherwise: the
    // Driver's pruned members, and the lists whose items the server defaulted (an HTTPRoute rule's
    // matches, a Rollout container port's protocol), which a merge patch replaces whole. So kube's
    // answer is `configured` for those, `unchanged` for the others.
    const live = JSON.parse((await run(['get', resource, sample.metadata.name, '-o', 'json'])).stdout) as { spec: any };
    const defaultedListItem: Record<string, () => unknown> = {
      'gateway.networking.k8s.io_httproutes': () => live.spec.rules[0].matches[0].path,
      'argoproj.io_rollouts': () => live.spec.template.spec.containers[0].ports[0].protocol,
    };
    if (defaultedListItem[file]) expect(defaultedListItem[file]()).toEqual(file === 'argoproj.io_rollouts' ? 'TCP' : { type: 'PathPrefix', value: '/' });
    const again = await run(applyArgs);
    expect(again.stderr).toBe('');
    expect(again.stdout.trim()).toBe(`${ref} ${pruned || defaultedListItem[file] ? 'configured' : 'unchanged'}`);

    const deleted = await run(['delete', '-f', samplePath]);
    expect(deleted.stdout.trim()).toBe(`${crd.spec.names.kind.toLowerCase()}.${crd.spec.group} "${sample.metadata.name}" deleted`);
    expect((await run(['get', resource, '-o', 'name'])).stdout.trim()).toBe('');
  });

  it('deleting a CRD deletes its instances and stops serving them', async () => {
    const crd = read<CRD>('cert-manager.io_certificates.yaml');
    const samplePath = join(UPSTREAM_DIR, 'crds', 'cert-manager.io_certificates.sample.yaml');
    expect((await run(['apply', '-f', samplePath])).code).toBe(0);
    const deleted = await run(['delete', 'crd', crd.metadata.name, '--timeout=30s']);
    expect(deleted.stderr).toBe('');
    expect(deleted.stdout.trim()).toBe(`customresourcedefinition.apiextensions.k8s.io "${crd.metadata.name}" deleted`);
    const gone = await run(['get', 'crd', crd.metadata.name]);
    expect(gone.stderr).toContain(`customresourcedefinitions.apiextensions.k8s.io "${crd.metadata.name}" not found`);
    const raw = await run(['get', '--raw', '/apis/cert-manager.io/v1/namespaces/default/certificates']);
    expect(raw.code).not.toBe(0);
    expect(raw.stderr).toContain('NotFound');
  });
});

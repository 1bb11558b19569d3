// kubectl 1.33 against custom resources as it works against kube-apiserver: `kubectl get` and
// `-o wide` print the CRD's printer columns (cert-manager's Certificate, Argo's Rollout),
// `--field-selector` works on selectableFields, and `kubectl scale` scales through the scale
// subresource.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const kubectl133 = kubectlVersions().find((v) => v.version === '1.33')?.path;

/** The columns of each line of kubectl's table output. */
const cells = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

describe.runIf(kubectl133 && upstreamAvailable())('kubectl with printer columns, selectable fields and scale (kubectl 1.33)', () => {
  let k: KubectlServer;
  const run = (args: string[], input?: string) => k.kubectl(kubectl133!, args, input);

  /** Creates the CRD and waits until it is Established and kubectl's discovery sees its resource. */
  async function createCRD(file: string, name: string): Promise<void> {
    const created = await run(['create', '-f', join(UPSTREAM_DIR, 'crds', file)]);
    expect(created.stderr).toBe('');
    const waited = await run(['wait', '--for=condition=Established', '--timeout=10s', `crd/${name}`]);
    expect(waited.stderr).toBe('');
  }

  beforeAll(async () => {
    k = await startKubectlServer('crd-sub-kubectl-', { storage: 'memory' }, 60_000);
  });
  afterAll(() => k?.close());

  it('prints a Certificate with its columns, and more of them with -o wide', async () => {
    await createCRD('cert-manager.io_certificates.yaml', 'certificates.cert-manager.io');
    expect((await run(['create', '-f', join(UPSTREAM_DIR, 'crds', 'cert-manager.io_certificates.sample.yaml')])).stdout.trim()).toBe(
      'certificate.cert-manager.io/test1 created',
    );
    const plain = (await run(['get', 'certificates', '-n', 'default'])).stdout.trim().split('\n');
    expect(plain[0].split(/\s+/)).toEqual(['NAME', 'READY', 'SECRET', 'AGE']);
    // No controller has written a Ready condition: the column's nil cell prints empty.
    expect(plain[1]).toMatch(/^test1 {11}test1 {4}\d+s$/);

    const wide = await run(['get', 'cert', '-n', 'default', '-o', 'wide']);
    expect(cells(wide.stdout)[0]).toEqual(['NAME', 'READY', 'SECRET', 'ISSUER', 'STATUS', 'EXPIRATION', 'AGE']);
    expect(wide.stdout).toContain('selfsigned-issuer');
  });

  it('selects Certificates with --field-selector on their selectableFields', async () => {
    const hit = await run(['get', 'certificates', '-n', 'default', '--field-selector', 'spec.issuerRef.name=selfsigned-issuer', '-o', 'name']);
    expect(hit.stdout.trim()).toBe('certificate.cert-manager.io/test1');
    const none = await run(['get', 'certificates', '-n', 'default', '--field-selector', 'spec.issuerRef.name=other']);
    expect(none.stderr.trim()).toBe('No resources found in default namespace.');
    const refused = await run(['get', 'certificates', '-n', 'default', '--field-selector', 'spec.secretName=test1']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('field label not supported: spec.secretName');
  });

  it('scales a Rollout with kubectl scale, and refuses a stale --current-replicas', async () => {
    await createCRD('argoproj.io_rollouts.yaml', 'rollouts.argoproj.io');
    const created = await run(['create', '-n', 'default', '-f', join(UPSTREAM_DIR, 'crds', 'argoproj.io_rollouts.sample.yaml')]);
    expect(created.stderr).toBe('');
    const name = created.stdout.trim().replace(/^rollout\.argoproj\.io\/(.*) created$/, '$1');

    const scaled = await run(['scale', 'rollout', name, '-n', 'default', '--replicas=4']);
    expect(scaled.stderr).toBe('');
    expect(scaled.stdout.trim()).toBe(`rollout.argoproj.io/${name} scaled`);
    expect((await run(['get', 'ro', name, '-n', 'default', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('4');

    const stale = await run(['scale', 'rollout', name, '-n', 'default', '--current-replicas=2', '--replicas=6']);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toContain('Expected replicas to be 2, was 4');
    expect((await run(['get', 'ro', name, '-n', 'default', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('4');

    const table = cells((await run(['get', 'ro', '-n', 'default'])).stdout);
    expect(table[0]).toEqual(['NAME', 'DESIRED', 'CURRENT', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(table[1].slice(0, 2)).toEqual([name, '4']);
  });
});

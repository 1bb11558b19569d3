// A real client against the real server: every kubectl from 1.27 to 1.33 found beside the one on
// PATH, each with the generated admin kubeconfig.
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';

const run = promisify(execFile);

function findKubectls(): string[] {
  const dirs = (process.env.PATH ?? '').split(':');
  const onPath = dirs.map((d) => join(d, 'kubectl')).find((p) => existsSync(p));
  if (!onPath) return [];
  const home = dirname(realpathSync(onPath));
  const versioned = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'].map((v) => join(home, `kubectl.${v}`)).filter((p) => existsSync(p));
  return versioned.length > 0 ? versioned : [onPath];
}

const kubectls = findKubectls();
if (kubectls.length === 0) {
  if (process.env.REQUIRE_KUBECTL === '1') throw new Error('kubectl is required (REQUIRE_KUBECTL=1) but is not on PATH');
  console.warn('kubectl not found on PATH: skipping the kubectl tests (set REQUIRE_KUBECTL=1 to make this a failure)');
}

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
});
afterAll(() => server?.close());

describe.skipIf(kubectls.length === 0)('kubectl', () => {
  it.each(kubectls)('%s version -o json sees server 1.33, warning only past one minor of skew', async (kubectl) => {
    const { stdout, stderr } = await run(kubectl, ['version', '-o', 'json', '--kubeconfig', server.kubeconfigPath]);
    const out = JSON.parse(stdout);
    expect(out.serverVersion).toMatchObject({ major: '1', minor: '33', gitVersion: expect.stringMatching(/^v1\.33\./) });
    expect(out.clientVersion.major).toBe('1');
    // kubectl's own rule, the same against kube-apiserver 1.33: clients 1.32 to 1.34 see no warning.
    const skew = Math.abs(Number.parseInt(out.clientVersion.minor, 10) - 33);
    if (skew > 1) expect(stderr).toContain('exceeds the supported minor version skew of +/-1');
    else expect(stderr).toBe('');
  });

  it.each(kubectls)('%s get --raw /version', async (kubectl) => {
    const { stdout } = await run(kubectl, ['get', '--raw', '/version', '--kubeconfig', server.kubeconfigPath]);
    expect(JSON.parse(stdout)).toMatchObject({ major: '1', minor: '33' });
  });

  it('reads health endpoints and reports a 404 Status as NotFound', async () => {
    const kubectl = kubectls[kubectls.length - 1];
    const { stdout } = await run(kubectl, ['get', '--raw', '/readyz?verbose', '--kubeconfig', server.kubeconfigPath]);
    expect(stdout).toContain('readyz check passed');
    await expect(run(kubectl, ['get', '--raw', '/api/v1/namespaces/default/configmaps/missing', '--kubeconfig', server.kubeconfigPath])).rejects.toMatchObject({
      stderr: expect.stringContaining('Error from server (NotFound)'),
    });
  });
});

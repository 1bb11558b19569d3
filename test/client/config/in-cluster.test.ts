// In-cluster configuration from a service account folder, and token files re-read as the kubelet
// rotates them (client-go's cached file token source: a minute less ten seconds, or at once after
// a 401).

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KubeConfigError, loadInClusterConfig, loadKubeConfig } from '../../../client/config/index.js';
import { TOKEN_FILE_REREAD_MS } from '../../../client/config/token-file.js';
import { restoreEnv, simpleConfig, useTempDir, writeFile, writeKubeconfig } from './fixtures.js';

const tempDir = useTempDir();

let savedEnv: NodeJS.ProcessEnv;
beforeEach(() => {
  savedEnv = { ...process.env };
  for (const key of ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'POD_NAMESPACE']) delete process.env[key];
});
afterEach(() => {
  restoreEnv(savedEnv);
  vi.useRealTimers();
});

function serviceAccount(files: { token?: string; 'ca.crt'?: string; namespace?: string }): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) writeFile(join(dir, name), text);
  return dir;
}

describe('loadInClusterConfig', () => {
  it('the service variables, token, CA and namespace of the pod', async () => {
    const dir = serviceAccount({ token: 'sa-token\n', 'ca.crt': 'CLUSTER-CA', namespace: 'team-a\n' });
    Object.assign(process.env, { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' });
    const config = await loadInClusterConfig({ serviceAccountDir: dir });
    expect(config).toMatchObject({ server: 'https://10.96.0.1:443', tls: { ca: 'CLUSTER-CA' }, namespace: 'team-a', source: 'in-cluster' });
    expect(config.context).toBeUndefined();
    expect(await config.credentials.get()).toEqual({ token: 'sa-token' });
  });

  it('an IPv6 service host goes in brackets', async () => {
    const dir = serviceAccount({ token: 't' });
    Object.assign(process.env, { KUBERNETES_SERVICE_HOST: 'fd00:10:96::1', KUBERNETES_SERVICE_PORT: '6443' });
    expect((await loadInClusterConfig({ serviceAccountDir: dir })).server).toBe('https://[fd00:10:96::1]:6443');
  });

  it('POD_NAMESPACE wins over the namespace file; with neither the namespace is default; without ca.crt the system roots', async () => {
    Object.assign(process.env, { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1', POD_NAMESPACE: 'from-env' });
    expect((await loadInClusterConfig({ serviceAccountDir: serviceAccount({ token: 't', namespace: 'from-file' }) })).namespace).toBe('from-env');
    delete process.env.POD_NAMESPACE;
    const bare = await loadInClusterConfig({ serviceAccountDir: serviceAccount({ token: 't' }) });
    expect(bare.namespace).toBe('default');
    expect(bare.tls).toEqual({});
  });

  it("client-go's error when the service variables are missing", async () => {
    process.env.KUBERNETES_SERVICE_HOST = '10.96.0.1';
    const err = await loadInClusterConfig({ serviceAccountDir: serviceAccount({ token: 't' }) }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(KubeConfigError);
    expect((err as Error).message).toBe('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  });

  it('a missing token file names the file', async () => {
    Object.assign(process.env, { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' });
    const dir = serviceAccount({ 'ca.crt': 'CA' });
    await expect(loadInClusterConfig({ serviceAccountDir: dir })).rejects.toThrow(`failed to read token file "${join(dir, 'token')}": ENOENT`);
  });

  it('loadKubeConfig falls back to in-cluster when there is no kubeconfig at all, as kubectl in a pod does', async () => {
    const home = tempDir();
    process.env.HOME = home;
    Object.assign(process.env, { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' });
    const dir = serviceAccount({ token: 'pod-token', namespace: 'ns1' });
    const config = await loadKubeConfig({ inCluster: { serviceAccountDir: dir } });
    expect(config).toMatchObject({ source: 'in-cluster', server: 'https://10.96.0.1:443', namespace: 'ns1' });
    // A kubeconfig, when there is one, comes first.
    writeKubeconfig(join(home, '.kube', 'config'), simpleConfig({ token: 'kubeconfig-token' }));
    expect((await loadKubeConfig({ inCluster: { serviceAccountDir: dir } })).source).toBe(join(home, '.kube', 'config'));
  });
});

describe('a token file rotating under the client', () => {
  it('is re-read after the period, not on every request', async () => {
    const dir = serviceAccount({ token: 'generation-1' });
    Object.assign(process.env, { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const creds = (await loadInClusterConfig({ serviceAccountDir: dir })).credentials;
    const first = await creds.get();
    expect(first).toEqual({ token: 'generation-1' });

    writeFile(join(dir, 'token'), 'generation-2');
    vi.setSystemTime(Date.now() + TOKEN_FILE_REREAD_MS - 1000);
    expect(await creds.get()).toBe(first);
    vi.setSystemTime(Date.now() + 2000);
    expect(await creds.get()).toEqual({ token: 'generation-2' });
  });

  it('is re-read at once after a 401 with the token it holds', async () => {
    const dir = tempDir();
    const path = writeFile(join(dir, 'token'), 'old');
    const config = await loadKubeConfig({ path: writeKubeconfig(join(dir, 'config'), simpleConfig({ tokenFile: 'token' })) });
    const old = await config.credentials.get();
    expect(old).toEqual({ token: 'old' });
    writeFile(path, 'new\n');
    expect(await config.credentials.get()).toBe(old);
    config.credentials.invalidate(old);
    expect(await config.credentials.get()).toEqual({ token: 'new' });
  });

  it('keeps the token it has while the file is missing or empty mid-rotation', async () => {
    const dir = tempDir();
    const path = writeFile(join(dir, 'token'), 'kept');
    const config = await loadKubeConfig({ path: writeKubeconfig(join(dir, 'config'), simpleConfig({ tokenFile: 'token' })) });
    const kept = await config.credentials.get();
    rmSync(path);
    config.credentials.invalidate(kept);
    expect(await config.credentials.get()).toEqual({ token: 'kept' });
    writeFile(path, '  \n');
    expect(await config.credentials.get()).toEqual({ token: 'kept' });
    writeFile(path, 'back');
    expect(await config.credentials.get()).toEqual({ token: 'back' });
  });

  it('with both token and tokenFile the file wins, and the token stands in while the file cannot be read', async () => {
    const dir = tempDir();
    const config = await loadKubeConfig({ path: writeKubeconfig(join(dir, 'config'), simpleConfig({ token: 'inline', tokenFile: 'token' })) });
    expect(await config.credentials.get()).toEqual({ token: 'inline' });
    writeFile(join(dir, 'token'), 'from-file');
    expect(await config.credentials.get()).toEqual({ token: 'from-file' });
  });

  it('a tokenFile user with a client certificate sends both', async () => {
    const dir = tempDir();
    writeFile(join(dir, 'token'), 'tok');
    const config = await loadKubeConfig({
      path: writeKubeconfig(join(dir, 'config'), simpleConfig({ tokenFile: 'token', 'client-certificate-data': Buffer.from('C').toString('base64'), 'client-key-data': Buffer.from('K').toString('base64') })),
    });
    expect(await config.credentials.get()).toEqual({ token: 'tok', clientCertificate: { cert: 'C', key: 'K' } });
  });
});

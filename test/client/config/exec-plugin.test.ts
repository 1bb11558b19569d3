// Credential plugins run for real: small node scripts written to a temporary folder, named by a
// kubeconfig, run through loadKubeConfig's credential source. What each plugin received is
// recorded by the plugin itself (fixtures.writePlugin).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { KubeConfigError, loadKubeConfig, type ExecOptions } from '../../../client/config/index.js';
import { createCertificateAuthority, issueCertificate, type KeyedCert } from '../../../runtime/auth/pki.js';
import { b64, pluginCalls, simpleConfig, useTempDir, writeFile, writeKubeconfig, writePlugin } from './fixtures.js';

const tempDir = useTempDir();
const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const SECRET = 'SECRET-PLUGIN-OUTPUT-77d1';

afterEach(() => {
  vi.useRealTimers();
});

interface Setup {
  dir: string;
  /** The plugin's folder, where it records its calls. */
  bin: string;
  kubeconfig: string;
}

/** A folder with `bin/plugin` (the body given) and a kubeconfig naming it by a relative path. */
function setup(body: string, exec: Record<string, unknown> = {}, cluster: Record<string, unknown> = { server: 'https://127.0.0.1:6443' }): Setup {
  const dir = tempDir();
  writePlugin(join(dir, 'bin', 'plugin'), body);
  const kubeconfig = writeKubeconfig(
    join(dir, 'config'),
    simpleConfig({ exec: { apiVersion: V1, command: './bin/plugin', interactiveMode: 'Never', ...exec } }, cluster),
  );
  return { dir, bin: join(dir, 'bin'), kubeconfig };
}

async function source(s: Setup, exec?: ExecOptions) {
  return (await loadKubeConfig({ path: s.kubeconfig, exec })).credentials;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => new Error('expected a failure'),
    (err: unknown) => err as Error,
  );
}

describe('a plugin that returns a token', () => {
  it('is run once with its args, env and the ExecCredential in both variables; the answer is cached', async () => {
    const s = setup(`reply({ token: 'token-' + call });`, {
      args: ['get-token', '--cluster', 'one'],
      env: [{ name: 'TEST_GREETING', value: 'hello' }],
    });
    const creds = await source(s);
    expect(await creds.get()).toEqual({ token: 'token-1' });
    expect(await creds.get()).toEqual({ token: 'token-1' });
    const calls = pluginCalls(s.bin);
    expect(calls).toHaveLength(1);
    expect(calls[0].args).toEqual(['get-token', '--cluster', 'one']);
    expect(calls[0].env).toEqual({ TEST_GREETING: 'hello' });
    expect(calls[0].info).toEqual({ kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
    expect(calls[0].clusterExecInfo).toBe(calls[0].kubernetesExecInfo);
  });

  it('a relative command runs from the kubeconfig folder whatever the working directory; a bare name is looked up in PATH', async () => {
    const s = setup(`reply({ token: 'relative' });`);
    expect(process.cwd()).not.toBe(s.dir);
    expect(await (await source(s)).get()).toEqual({ token: 'relative' });

    const dir = tempDir();
    writePlugin(join(dir, 'path-bin', 'kube-test-plugin'), `reply({ token: 'from-path' });`);
    const kubeconfig = writeKubeconfig(join(dir, 'config'), simpleConfig({ exec: { apiVersion: V1, command: 'kube-test-plugin', interactiveMode: 'Never' } }));
    const saved = process.env.PATH;
    process.env.PATH = `${join(dir, 'path-bin')}:${saved}`;
    try {
      expect(await (await loadKubeConfig({ path: kubeconfig })).credentials.get()).toEqual({ token: 'from-path' });
    } finally {
      process.env.PATH = saved;
    }
    // As with Go's exec.LookPath, the PATH given to the plugin in its env is not where it is looked up.
    const envOnly = writeKubeconfig(
      join(dir, 'env-only'),
      simpleConfig({ exec: { apiVersion: V1, command: 'kube-test-plugin', interactiveMode: 'Never', env: [{ name: 'PATH', value: join(dir, 'path-bin') }] } }),
    );
    const err = await failure((await loadKubeConfig({ path: envOnly })).credentials.get());
    expect(err.message).toContain('exec: executable kube-test-plugin not found');
  });

  it('v1beta1 without interactiveMode defaults to IfAvailable and speaks v1beta1', async () => {
    const s = setup(`reply({ token: 'beta' }, '${V1BETA1}');`, { apiVersion: V1BETA1, interactiveMode: undefined });
    expect(await (await source(s)).get()).toEqual({ token: 'beta' });
    expect(pluginCalls(s.bin)[0].info.apiVersion).toBe(V1BETA1);
  });

  it('concurrent get()s share one run of the plugin', async () => {
    const s = setup(`setTimeout(() => reply({ token: 'shared-' + call }), 200);`);
    const creds = await source(s);
    const all = await Promise.all([creds.get(), creds.get(), creds.get(), creds.get(), creds.get()]);
    expect(new Set(all.map((c) => c.token))).toEqual(new Set(['shared-1']));
    expect(pluginCalls(s.bin)).toHaveLength(1);
  });

  it('loading the same kubeconfig again reuses the credentials instead of running the plugin again', async () => {
    const s = setup(`reply({ token: 'once-' + call });`);
    expect(await (await source(s)).get()).toEqual({ token: 'once-1' });
    expect(await (await source(s)).get()).toEqual({ token: 'once-1' });
    expect(pluginCalls(s.bin)).toHaveLength(1);
  });

  it('a plugin\'s standard error reaches the stream given (its prompts and diagnostics)', async () => {
    const s = setup(`process.stderr.write('Opening the browser to log in...\\n'); reply({ token: 't' });`);
    const stderr = new PassThrough();
    const seen: Buffer[] = [];
    stderr.on('data', (c: Buffer) => seen.push(c));
    expect(await (await source(s, { stderr })).get()).toEqual({ token: 't' });
    expect(Buffer.concat(seen).toString()).toBe('Opening the browser to log in...\n');
  });

  it('an aborted get() stops waiting, and the run still fills the cache for the next caller', async () => {
    const s = setup(`setTimeout(() => reply({ token: 'late' }), 300);`);
    const creds = await source(s);
    const controller = new AbortController();
    const pending = creds.get(controller.signal);
    controller.abort(new Error('caller gave up'));
    expect((await failure(pending)).message).toBe('caller gave up');
    expect(await creds.get()).toEqual({ token: 'late' });
    expect(pluginCalls(s.bin)).toHaveLength(1);
  });
});

describe('expiry and 401', () => {
  it('the plugin runs again once expirationTimestamp has passed, not before', async () => {
    const s = setup(`reply({ token: 'exp-' + call, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() });`);
    const creds = await source(s);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect(await creds.get()).toEqual({ token: 'exp-1' });
    vi.setSystemTime(Date.now() + 30 * 60e3);
    expect(await creds.get()).toEqual({ token: 'exp-1' });
    vi.setSystemTime(Date.now() + 31 * 60e3);
    expect(await creds.get()).toEqual({ token: 'exp-2' });
    expect(pluginCalls(s.bin)).toHaveLength(2);
  });

  it('without expirationTimestamp the answer lasts until a 401: invalidate() then get() runs the plugin again', async () => {
    const s = setup(`reply({ token: 'gen-' + call });`);
    const creds = await source(s);
    const first = await creds.get();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 365 * 86400e3 });
    expect(await creds.get()).toBe(first);
    creds.invalidate(first);
    const second = await creds.get();
    expect(second).toEqual({ token: 'gen-2' });
    // A late 401 for the old token does not throw away the new one.
    creds.invalidate(first);
    expect(await creds.get()).toBe(second);
    expect(pluginCalls(s.bin)).toHaveLength(2);
  });

  it('a failed run is not cached: the next get() runs the plugin again', async () => {
    const s = setup(`if (call === 1) process.exit(3); reply({ token: 'second-try' });`);
    const creds = await source(s);
    expect((await failure(creds.get())).message).toContain('failed with exit code 3');
    expect(await creds.get()).toEqual({ token: 'second-try' });
  });
});

describe('a plugin that returns a client certificate', () => {
  let ca: KeyedCert;
  let first: KeyedCert;
  let second: KeyedCert;
  beforeAll(async () => {
    ca = await createCertificateAuthority('plugin-test-ca');
    first = await issueCertificate(ca, { subject: 'CN=first', usage: 'clientAuth' });
    second = await issueCertificate(ca, { subject: 'CN=second', usage: 'clientAuth' });
  });

  it('hands the PEM pair (with intermediates) to the transport, and a new pair after a 401', async () => {
    const s = setup(`
      const pairs = JSON.parse(fs.readFileSync(path.join(__dirname, 'pairs.json'), 'utf8'));
      const pair = pairs[call - 1];
      reply({ clientCertificateData: pair.certPem + ${JSON.stringify(ca.certPem)}, clientKeyData: pair.keyPem });`);
    writeFile(join(s.bin, 'pairs.json'), JSON.stringify([first, second]));
    const creds = await source(s);
    const got = await creds.get();
    expect(got).toEqual({ clientCertificate: { cert: first.certPem + ca.certPem, key: first.keyPem } });
    creds.invalidate(got);
    expect((await creds.get()).clientCertificate).toEqual({ cert: second.certPem + ca.certPem, key: second.keyPem });
  });

  it('a certificate whose key does not match is refused without quoting either', async () => {
    const s = setup(`reply({ clientCertificateData: ${JSON.stringify(first.certPem)}, clientKeyData: ${JSON.stringify(second.keyPem)} });`);
    const err = await failure((await source(s)).get());
    expect(err.message).toContain('failed parsing client key/certificate: the private key does not match the certificate');
    expect(err.message).not.toContain('PRIVATE KEY');
  });
});

describe('provideClusterInfo', () => {
  it('gives the plugin the server, the CA data, TLS settings and the exec extension as spec.cluster.config', async () => {
    const dir = tempDir();
    writeFile(join(dir, 'certs', 'ca.crt'), 'CLUSTER-CA-PEM\n');
    writePlugin(join(dir, 'bin', 'plugin'), `reply({ token: 'with-cluster' });`);
    const extension = { audience: 'kube-lite', nested: { list: [1, 'two', true] } };
    const kubeconfig = writeKubeconfig(join(dir, 'config'), {
      clusters: [
        {
          name: 'c',
          cluster: {
            server: 'https://10.1.2.3:6443',
            'certificate-authority': 'certs/ca.crt',
            'tls-server-name': 'kubernetes',
            extensions: [
              { name: 'client.authentication.k8s.io/exec', extension },
              { name: 'something-else', extension: { not: 'given' } },
            ],
          },
        },
      ],
      users: [{ name: 'u', user: { exec: { apiVersion: V1, command: './bin/plugin', interactiveMode: 'Never', provideClusterInfo: true } } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    });
    expect(await (await loadKubeConfig({ path: kubeconfig })).credentials.get()).toEqual({ token: 'with-cluster' });
    const [call] = pluginCalls(join(dir, 'bin'));
    expect(call.info).toEqual({
      kind: 'ExecCredential',
      apiVersion: V1,
      spec: {
        interactive: false,
        cluster: {
          server: 'https://10.1.2.3:6443',
          'tls-server-name': 'kubernetes',
          'certificate-authority-data': b64('CLUSTER-CA-PEM\n'),
          config: extension,
        },
      },
    });
    expect(call.clusterExecInfo).toBe(call.kubernetesExecInfo);
  });

  it('without provideClusterInfo the plugin gets no cluster', async () => {
    const s = setup(`reply({ token: 't' });`, {}, { server: 'https://h:1', 'certificate-authority-data': b64('CA') });
    await (await source(s)).get();
    expect(pluginCalls(s.bin)[0].info.spec).toEqual({ interactive: false });
  });
});

describe('a plugin that fails: clear errors naming the command, never its output', () => {
  interface FailCase {
    name: string;
    body: string;
    exec?: Record<string, unknown>;
    options?: ExecOptions;
    message: (s: Setup) => string;
  }
  const cases: FailCase[] = [
    {
      name: 'not found, with its installHint',
      body: '',
      exec: { command: './bin/missing-plugin', installHint: 'Install it with: brew install kube-login' },
      message: (s) => `exec: executable ${join(s.dir, 'bin', 'missing-plugin')} not found`,
    },
    { name: 'exiting non-zero (its stderr is not in the message)', body: `process.stderr.write('${SECRET}'); process.exit(7);`, message: (s) => `exec: executable ${join(s.dir, 'bin', 'plugin')} failed with exit code 7` },
    { name: 'printing invalid JSON', body: `process.stdout.write('{"token": "${SECRET}"');`, message: () => 'decoding stdout: the output is neither JSON nor YAML' },
    { name: 'printing a bare string', body: `process.stdout.write('${SECRET}');`, message: () => 'decoding stdout: the output is not an ExecCredential object' },
    { name: 'printing nothing', body: '', message: () => 'decoding stdout: the plugin printed nothing' },
    { name: 'answering another apiVersion', body: `reply({ token: '${SECRET}' }, '${V1BETA1}');`, message: () => `exec plugin is configured to use API version ${V1}, plugin returned version ${V1BETA1}` },
    { name: 'answering an apiVersion that is free text', body: `reply({ token: 'x' }, '${SECRET} with spaces');`, message: () => 'plugin returned version an unrecognised value' },
    { name: 'answering another kind', body: `process.stdout.write(JSON.stringify({ apiVersion: '${V1}', kind: 'Secret', status: { token: '${SECRET}' } }));`, message: () => 'kind must be ExecCredential, got Secret' },
    { name: 'answering without status', body: `process.stdout.write(JSON.stringify({ apiVersion: '${V1}', kind: 'ExecCredential' }));`, message: () => "exec plugin didn't return a status field" },
    { name: 'answering with neither token nor certificate', body: `reply({ expirationTimestamp: new Date().toISOString() });`, message: () => "exec plugin didn't return a token or cert/key pair" },
    { name: 'answering a key without a certificate', body: `reply({ clientKeyData: '${SECRET}' });`, message: () => 'exec plugin returned only certificate or key, not both' },
    { name: 'answering an expirationTimestamp that is not RFC 3339', body: `reply({ token: '${SECRET}', expirationTimestamp: 'tomorrow' });`, message: () => 'status.expirationTimestamp is not an RFC 3339 time' },
    { name: 'hanging', body: `setInterval(() => {}, 1000);`, options: { timeoutMs: 500 }, message: (s) => `exec: executable ${join(s.dir, 'bin', 'plugin')} did not finish within 500ms and was stopped` },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const s = setup(c.body, c.exec);
      const stderr = new PassThrough();
      stderr.resume();
      const err = await failure((await source(s, { stderr, ...c.options })).get());
      expect(err).toBeInstanceOf(KubeConfigError);
      expect(err.message).toContain(`getting credentials for user "u" in ${s.kubeconfig}: `);
      expect(err.message).toContain(c.message(s));
      expect(err.message).not.toContain(SECRET);
      if (c.exec?.installHint) expect(err.message).toContain(String(c.exec.installHint));
    });
  }

  it('a hanging plugin is killed, not left running', async () => {
    const s = setup(`setInterval(() => {}, 1000);`);
    // Long enough for the plugin to have started and recorded its pid even on a busy machine.
    await failure((await source(s, { timeoutMs: 3000 })).get());
    const [call] = pluginCalls(s.bin);
    expect(call).toBeDefined();
    await vi.waitFor(() => expect(alive(call.pid)).toBe(false));
  });

  it('a plugin that is not executable', async () => {
    const dir = tempDir();
    writeFile(join(dir, 'plugin.txt'), 'not a program');
    const kubeconfig = writeKubeconfig(join(dir, 'config'), simpleConfig({ exec: { apiVersion: V1, command: './plugin.txt', interactiveMode: 'Never' } }));
    const err = await failure((await loadKubeConfig({ path: kubeconfig })).credentials.get());
    expect(err.message).toContain(`exec: executable ${join(dir, 'plugin.txt')} cannot be run: permission denied`);
    expect(existsSync(join(dir, 'calls.jsonl'))).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

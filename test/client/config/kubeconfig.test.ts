// loadKubeConfig: kubectl's merge of the KUBECONFIG list, relative paths, context selection, the
// fields a cluster and a user carry, and clear errors for bad input that never quote a secret.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeConfigError, loadKubeConfig, type ClientConfig } from '../../../client/config/index.js';
import { b64, restoreEnv, simpleConfig, useTempDir, writeFile, writeKubeconfig } from './fixtures.js';

const tempDir = useTempDir();
const SECRET = 'SECRET-TOKEN-4f9a1c';

let savedEnv: NodeJS.ProcessEnv;
beforeEach(() => {
  savedEnv = { ...process.env };
  delete process.env.KUBECONFIG;
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
});
afterEach(() => restoreEnv(savedEnv));

const cluster = (name: string, server: string, extra: Record<string, unknown> = {}) => ({ name, cluster: { server, ...extra } });
const user = (name: string, fields: Record<string, unknown>) => ({ name, user: fields });
const context = (name: string, clusterName: string, userName: string, namespace?: string) => ({
  name,
  context: { cluster: clusterName, user: userName, ...(namespace ? { namespace } : {}) },
});

describe('merging the KUBECONFIG list as kubectl does', () => {
  interface MergeCase {
    name: string;
    files: (Record<string, unknown> | undefined)[];
    /** The KUBECONFIG value built from the file paths (`$0`, `$1`, ...); default all joined by ':'. */
    list?: string;
    context?: string;
    want: { context: string; server: string; token?: string; namespace: string; source: number };
  }
  const cases: MergeCase[] = [
    {
      name: 'current-context comes from the first file that sets it; the first file to name a cluster wins',
      files: [
        { clusters: [cluster('c1', 'https://first:1')], users: [user('u', { token: 'from-a' })], contexts: [context('a', 'c1', 'u')], 'current-context': 'a' },
        { clusters: [cluster('c1', 'https://second:1'), cluster('c2', 'https://second:2')], contexts: [context('b', 'c2', 'u')], 'current-context': 'b' },
      ],
      want: { context: 'a', server: 'https://first:1', token: 'from-a', namespace: 'default', source: 0 },
    },
    {
      name: 'a file without current-context leaves it to a later file',
      files: [
        { clusters: [cluster('c1', 'https://first:1')], users: [user('u', { token: 'from-a' })], contexts: [context('a', 'c1', 'u')] },
        { contexts: [context('b', 'c1', 'u', 'team-b')], 'current-context': 'b' },
      ],
      want: { context: 'b', server: 'https://first:1', token: 'from-a', namespace: 'team-b', source: 1 },
    },
    {
      name: 'an entry is taken whole from the first file: no field of a later same-named entry leaks in',
      files: [
        { users: [user('u', { token: 'from-a' })], contexts: [context('a', 'c1', 'u')], 'current-context': 'a' },
        { clusters: [cluster('c1', 'https://second:1')], users: [user('u', { token: 'from-b', 'client-certificate-data': b64('x'), 'client-key-data': b64('y') })] },
      ],
      want: { context: 'a', server: 'https://second:1', token: 'from-a', namespace: 'default', source: 0 },
    },
    {
      name: 'the first file to name a context wins, namespace included',
      files: [
        { clusters: [cluster('c1', 'https://first:1')], users: [user('u', { token: 't' })], contexts: [context('a', 'c1', 'u', 'ns-a')] },
        { contexts: [context('a', 'c1', 'u', 'ns-b')], 'current-context': 'a' },
      ],
      want: { context: 'a', server: 'https://first:1', token: 't', namespace: 'ns-a', source: 0 },
    },
    {
      name: 'files that do not exist and empty entries are skipped, a repeated file read once',
      files: [undefined, { clusters: [cluster('c1', 'https://only:1')], users: [user('u', { token: 't' })], contexts: [context('a', 'c1', 'u')], 'current-context': 'a' }],
      list: '$0::$1:$1',
      want: { context: 'a', server: 'https://only:1', token: 't', namespace: 'default', source: 1 },
    },
    {
      name: 'an explicit context beats current-context',
      files: [
        { clusters: [cluster('c1', 'https://first:1'), cluster('c2', 'https://first:2')], users: [user('u', { token: 't' })], contexts: [context('a', 'c1', 'u'), context('b', 'c2', 'u', 'nb')], 'current-context': 'a' },
      ],
      context: 'b',
      want: { context: 'b', server: 'https://first:2', token: 't', namespace: 'nb', source: 0 },
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir();
      const paths = c.files.map((doc, i) => {
        const path = join(dir, `f${i}`, 'config');
        if (doc) writeKubeconfig(path, doc);
        return path;
      });
      process.env.KUBECONFIG = (c.list ?? paths.map((_, i) => `$${i}`).join(':')).replace(/\$(\d)/g, (_, i: string) => paths[Number(i)]);
      const config = await loadKubeConfig(c.context ? { context: c.context } : {});
      expect(config.context).toBe(c.want.context);
      expect(config.server).toBe(c.want.server);
      expect(config.namespace).toBe(c.want.namespace);
      expect(config.source).toBe(paths[c.want.source]);
      const creds = await config.credentials.get();
      expect(creds.token).toBe(c.want.token);
      expect(creds.clientCertificate).toBeUndefined();
    });
  }

  it('reads ~/.kube/config when KUBECONFIG is not set', async () => {
    const home = tempDir();
    writeKubeconfig(join(home, '.kube', 'config'), simpleConfig({ token: 'home-token' }));
    process.env.HOME = home;
    const config = await loadKubeConfig();
    expect(config.source).toBe(join(home, '.kube', 'config'));
    expect((await config.credentials.get()).token).toBe('home-token');
  });

  it('{ path } reads only that file, ignoring KUBECONFIG', async () => {
    const dir = tempDir();
    process.env.KUBECONFIG = writeKubeconfig(join(dir, 'env'), simpleConfig({ token: 'env' }));
    const path = writeKubeconfig(join(dir, 'explicit'), simpleConfig({ token: 'explicit' }));
    expect((await (await loadKubeConfig({ path })).credentials.get()).token).toBe('explicit');
  });
});

describe('relative paths resolve against the folder of the file that names them', () => {
  it('certificate-authority, client-certificate, client-key and tokenFile, each file against its own folder', async () => {
    const dir = tempDir();
    writeFile(join(dir, 'one', 'pki', 'ca.crt'), 'CA-ONE');
    writeFile(join(dir, 'two', 'pki', 'client.crt'), 'CERT-TWO');
    writeFile(join(dir, 'two', 'pki', 'client.key'), 'KEY-TWO');
    writeFile(join(dir, 'two', 'token'), 'token-two\n');
    const one = writeKubeconfig(join(dir, 'one', 'config'), {
      clusters: [cluster('c', 'https://one:6443', { 'certificate-authority': 'pki/ca.crt' })],
      contexts: [context('cert', 'c', 'cert-user'), context('tok', 'c', 'token-user')],
      'current-context': 'cert',
    });
    const two = writeKubeconfig(join(dir, 'two', 'config'), {
      users: [user('cert-user', { 'client-certificate': 'pki/client.crt', 'client-key': './pki/client.key' }), user('token-user', { tokenFile: 'token' })],
    });
    process.env.KUBECONFIG = `${one}:${two}`;
    // The working directory is elsewhere: the paths must not depend on it.
    expect(process.cwd()).not.toBe(dir);

    const certConfig = await loadKubeConfig();
    expect(certConfig.tls.ca).toBe('CA-ONE');
    expect((await certConfig.credentials.get()).clientCertificate).toEqual({ cert: 'CERT-TWO', key: 'KEY-TWO' });
    const tokenConfig = await loadKubeConfig({ context: 'tok' });
    expect((await tokenConfig.credentials.get()).token).toBe('token-two');
  });

  it('absolute paths stay as written', async () => {
    const dir = tempDir();
    const ca = writeFile(join(dir, 'elsewhere', 'ca.pem'), 'CA-ABS');
    const path = writeKubeconfig(join(dir, 'cfg', 'config'), simpleConfig({ token: 't' }, { server: 'https://h:1', 'certificate-authority': ca }));
    expect((await loadKubeConfig({ path })).tls.ca).toBe('CA-ABS');
  });
});

describe('what a cluster and a user carry', () => {
  it('data fields, TLS settings and the default namespace', async () => {
    const text = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: c',
      '  cluster:',
      '    server: https://api.example.test:6443/',
      `    certificate-authority-data: ${b64('CA-PEM')}`,
      '    tls-server-name: kubernetes.default',
      'users:',
      '- name: u',
      '  user:',
      `    client-certificate-data: ${b64('CERT-PEM')}`,
      `    client-key-data: ${b64('KEY-PEM')}`,
      '    token: both-token',
      'contexts:',
      '- name: x',
      '  context: {cluster: c, user: u}',
      'current-context: x',
    ].join('\n');
    const config = await loadKubeConfig({ kubeconfig: text });
    expect(config).toMatchObject({ server: 'https://api.example.test:6443', namespace: 'default', source: 'inline kubeconfig', context: 'x' });
    expect(config.tls).toEqual({ ca: 'CA-PEM', serverName: 'kubernetes.default' });
    expect(await config.credentials.get()).toEqual({ token: 'both-token', clientCertificate: { cert: 'CERT-PEM', key: 'KEY-PEM' } });
  });

  it('insecure-skip-tls-verify without a CA; a server without a scheme is https', async () => {
    const config = await loadKubeConfig({ kubeconfig: JSON.stringify(simpleConfig({}, { server: '10.0.0.1:6443', 'insecure-skip-tls-verify': true })) });
    expect(config.server).toBe('https://10.0.0.1:6443');
    expect(config.tls).toEqual({ insecureSkipTLSVerify: true });
    // A user with nothing is anonymous.
    expect(await config.credentials.get()).toEqual({});
  });

  it('client-certificate-data wins over client-certificate, as client-go says it will', async () => {
    const dir = tempDir();
    writeFile(join(dir, 'c.crt'), 'FROM-FILE');
    writeFile(join(dir, 'c.key'), 'KEY-FROM-FILE');
    const path = writeKubeconfig(join(dir, 'config'), simpleConfig({ 'client-certificate': 'c.crt', 'client-certificate-data': b64('FROM-DATA'), 'client-key': 'c.key' }));
    expect((await (await loadKubeConfig({ path })).credentials.get()).clientCertificate).toEqual({ cert: 'FROM-DATA', key: 'KEY-FROM-FILE' });
  });

  it('an empty file is an empty configuration, not a parse error', async () => {
    const dir = tempDir();
    const empty = writeFile(join(dir, 'empty'), '');
    const real = writeKubeconfig(join(dir, 'real'), simpleConfig({ token: 't' }));
    process.env.KUBECONFIG = `${empty}:${real}`;
    expect((await loadKubeConfig()).source).toBe(real);
  });
});

describe('bad input: clear errors naming the file, context or user, never a secret', () => {
  interface BadCase {
    name: string;
    /** Kubeconfig text or document written to <dir>/config; undefined writes nothing. */
    file?: string | Record<string, unknown>;
    options?: (dir: string) => Parameters<typeof loadKubeConfig>[0];
    env?: (dir: string) => Record<string, string>;
    message: string | ((dir: string) => RegExp | string);
  }
  const withSecret = (user: Record<string, unknown> = {}) => ({ token: SECRET, ...user });
  const cases: BadCase[] = [
    { name: 'an explicit path that does not exist', options: (d) => ({ path: join(d, 'nope') }), message: (d) => `kubeconfig file "${join(d, 'nope')}" does not exist` },
    {
      name: 'KUBECONFIG naming only missing files',
      env: (d) => ({ KUBECONFIG: `${join(d, 'a')}:${join(d, 'b')}` }),
      message: (d) => `none of the files in KUBECONFIG exist (${join(d, 'a')}, ${join(d, 'b')})`,
    },
    { name: 'no KUBECONFIG and no ~/.kube/config', env: (d) => ({ HOME: d }), message: (d) => `${join(d, '.kube', 'config')} does not exist and KUBECONFIG is not set` },
    {
      name: 'malformed YAML, the bad line holding a token',
      file: `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${SECRET}: oops\n`,
      message: (d) => new RegExp(`^error loading config file "${esc(join(d, 'config'))}": invalid YAML at line 5: `),
    },
    { name: 'a document that is not a mapping', file: `- ${SECRET}\n`, message: (d) => `error loading config file "${join(d, 'config')}": not a kubeconfig: the document is not a mapping` },
    { name: 'a field of the wrong type', file: simpleConfig({ token: 12345 }), message: (d) => `error loading config file "${join(d, 'config')}": users[0].user.token must be a string` },
    { name: 'invalid base64 data', file: simpleConfig({ 'client-certificate-data': `${SECRET}!!`, 'client-key-data': 'eA==' }), message: 'users[0].user.client-certificate-data is not valid base64' },
    {
      name: 'a name twice in one file',
      file: { ...simpleConfig(withSecret()), clusters: [cluster('c', 'https://a:1'), cluster('c', 'https://b:1')] },
      message: 'duplicate name "c" in clusters',
    },
    { name: 'no current-context and no context given', file: { ...simpleConfig(withSecret()), 'current-context': undefined }, message: (d) => `no context chosen: current-context is not set in ${join(d, 'config')}` },
    { name: 'an unknown context', file: simpleConfig(withSecret()), options: (d) => ({ path: join(d, 'config'), context: 'nope' }), message: (d) => `context was not found for specified context: nope (in ${join(d, 'config')})` },
    { name: 'an unknown cluster', file: { ...simpleConfig(withSecret()), clusters: [] }, message: (d) => `cluster "c" was not found for context "ctx" in ${join(d, 'config')}` },
    { name: 'an unknown user', file: { ...simpleConfig(withSecret()), users: [] }, message: (d) => `user "u" was not found for context "ctx" in ${join(d, 'config')}` },
    { name: 'a context without a user', file: { ...simpleConfig(withSecret()), contexts: [{ name: 'ctx', context: { cluster: 'c' } }] }, message: 'user was not specified for context "ctx"' },
    { name: 'a cluster without a server', file: simpleConfig(withSecret(), {}), message: (d) => `no server found for cluster "c" in ${join(d, 'config')}` },
    { name: 'a server URL that is not one (and may hold a password)', file: simpleConfig(withSecret(), { server: `https://admin:${SECRET}@[bad` }), message: 'the server of cluster "c"' },
    { name: 'a namespace that is not a DNS label', file: simpleConfig(withSecret(), undefined, { namespace: 'Not_A_Label' }), message: 'namespace "Not_A_Label" for context "ctx"' },
    { name: 'a client certificate without a key', file: simpleConfig(withSecret({ 'client-certificate-data': b64('c') })), message: 'client-key-data or client-key must be specified for user "u"' },
    { name: 'a certificate-authority file that cannot be read', file: simpleConfig(withSecret(), { server: 'https://h:1', 'certificate-authority': 'missing-ca.crt' }), message: (d) => `unable to read certificate-authority ${join(d, 'missing-ca.crt')} for cluster "c"` },
    { name: 'a CA together with insecure-skip-tls-verify', file: simpleConfig(withSecret(), { server: 'https://h:1', 'certificate-authority-data': b64('ca'), 'insecure-skip-tls-verify': true }), message: 'specifying a root certificates file with the insecure flag is not allowed' },
    { name: 'a tokenFile that does not exist', file: simpleConfig({ tokenFile: 'no-token' }), message: (d) => `failed to read token file "${join(d, 'no-token')}": ENOENT` },
    { name: 'an empty tokenFile', file: simpleConfig({ tokenFile: '/dev/null' }), message: 'read empty token from file "/dev/null"' },
    { name: 'an exec plugin of v1 without interactiveMode', file: simpleConfig({ exec: { command: 'p', apiVersion: 'client.authentication.k8s.io/v1' } }), message: 'interactiveMode must be specified for user "u"' },
    { name: 'an exec plugin with an unknown interactiveMode', file: simpleConfig({ exec: { command: 'p', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Sometimes' } }), message: 'invalid interactiveMode for user "u"' },
    { name: 'an exec plugin with an unknown apiVersion', file: simpleConfig({ exec: { command: 'p', apiVersion: 'client.authentication.k8s.io/v1alpha1', interactiveMode: 'Never' } }), message: 'invalid apiVersion "client.authentication.k8s.io/v1alpha1"' },
    { name: 'an exec plugin without a command', file: simpleConfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never' } }), message: 'command must be specified for user "u"' },
    { name: 'settings this client does not implement', file: simpleConfig({ username: 'admin', password: SECRET, 'auth-provider': { name: 'oidc' } }), message: 'settings not supported by this client: username, password, auth-provider' },
    { name: 'a proxy, which must not be bypassed silently', file: simpleConfig(withSecret(), { server: 'https://h:1', 'proxy-url': 'http://proxy:3128' }), message: 'cluster "c" in' },
    { name: 'impersonation, which must not be dropped silently', file: simpleConfig(withSecret({ as: 'someone-else' })), message: 'settings not supported by this client: as' },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir();
      if (typeof c.file === 'string') writeFile(join(dir, 'config'), c.file);
      else if (c.file) writeKubeconfig(join(dir, 'config'), c.file);
      Object.assign(process.env, c.env?.(dir) ?? {});
      const options = c.options?.(dir) ?? (c.env ? {} : { path: join(dir, 'config') });
      const err = await loadKubeConfig(options).then(
        (config: ClientConfig) => new Error(`loaded ${config.server}`),
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(KubeConfigError);
      const want = typeof c.message === 'function' ? c.message(dir) : c.message;
      if (typeof want === 'string') expect(err.message).toContain(want);
      else expect(err.message).toMatch(want);
      expect(err.message).not.toContain(SECRET);
    });
  }
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

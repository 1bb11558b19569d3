import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../runtime/machinery/duration.js';
import { FeatureGates, parseFeatureGatesFlag } from '../../runtime/server/feature-gates.js';
import { parseFieldSelectorTerms as parseFieldSelector, requiredExactMatch } from '../../runtime/machinery/selectors/field-selector.js';
import { parseFlags } from '../../runtime/server/flags.js';
import { startServer } from '../../runtime/index.js';

describe('parseFlags', () => {
  it('has kube-apiserver\'s defaults', () => {
    expect(parseFlags([])).toEqual({
      help: false,
      options: { port: 6443, bindAddress: '127.0.0.1', dataDir: '.data', storage: 'sqlite' },
      logging: { format: 'text', verbosity: 0 },
    });
  });

  it('reads every flag, in --flag=value and --flag value forms', () => {
    const parsed = parseFlags([
      '--secure-port=0', '--bind-address', '::1', '--data-dir=/tmp/x', '--storage', 'memory',
      '--token-auth-file=t.csv', '--client-ca-file=ca.crt', '--tls-cert-file=s.crt', '--tls-private-key-file=s.key',
      '--authorization-mode=RBAC,Node', '--feature-gates=WatchList=false', '--request-timeout=30s',
      '--max-requests-inflight=10', '--max-mutating-requests-inflight=5', '--http2-max-streams-per-connection=250',
      '--shutdown-delay-duration=5s', '--shutdown-watch-termination-grace-period', '1m', '--logging-format=json', '--v=3',
    ]);
    expect(parsed).toEqual({
      help: false,
      options: {
        port: 0, bindAddress: '::1', dataDir: '/tmp/x', storage: 'memory',
        tokenAuthFile: 't.csv', clientCaFile: 'ca.crt', tlsCertFile: 's.crt', tlsPrivateKeyFile: 's.key',
        authorizationMode: 'RBAC,Node', featureGates: 'WatchList=false', requestTimeoutMs: 30_000,
        maxRequestsInflight: 10, maxMutatingRequestsInflight: 5, http2MaxStreamsPerConnection: 250,
        shutdownDelayMs: 5_000, shutdownWatchTerminationGracePeriodMs: 60_000,
      },
      logging: { format: 'json', verbosity: 3 },
    });
    expect(parseFlags(['-h'])).toEqual({ help: true });
  });

  it('takes --http2-max-streams-per-connection of 0 or below as kube-apiserver does: its default', () => {
    for (const value of ['0', '-5']) {
      const parsed = parseFlags([`--http2-max-streams-per-connection=${value}`]);
      expect(parsed.help === false && parsed.options.http2MaxStreamsPerConnection).toBe(0);
    }
  });

  it('reads the authentication flags: --anonymous-auth, repeated --service-account-issuer and -key-file, --api-audiences', () => {
    const parsed = parseFlags([
      '--anonymous-auth', '--service-account-issuer=https://a.example', '--service-account-issuer', 'https://b.example',
      '--service-account-key-file=k1.pem', '--service-account-key-file=k2.pem', '--service-account-signing-key-file=s.key',
      '--service-account-max-token-expiration=24h', '--service-account-extend-token-expiration=false',
      '--service-account-jwks-uri=https://x/jwks', '--api-audiences=a, b',
    ]);
    expect(parsed.help === false && parsed.options).toMatchObject({
      anonymousAuth: true,
      serviceAccountIssuers: ['https://a.example', 'https://b.example'],
      serviceAccountKeyFiles: ['k1.pem', 'k2.pem'],
      serviceAccountSigningKeyFile: 's.key',
      serviceAccountMaxTokenExpirationMs: 86_400_000,
      serviceAccountExtendTokenExpiration: false,
      serviceAccountJwksUri: 'https://x/jwks',
      apiAudiences: ['a', 'b'],
    });
    expect(parseFlags(['--anonymous-auth=false'])).toMatchObject({ options: { anonymousAuth: false } });
    expect(parseFlags(['--controllers=*,-root-ca-cert-publisher'])).toMatchObject({ options: { controllers: ['*', '-root-ca-cert-publisher'] } });
    expect(() => parseFlags(['--anonymous-auth=maybe'])).toThrow('invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
    expect(() => parseFlags(['--service-account-max-token-expiration=forever'])).toThrow(/invalid argument "forever" for "--service-account-max-token-expiration" flag/);
  });

  it('switches storage to etcd with --etcd-servers, keeping the prefix', () => {
    const parsed = parseFlags([
      '--etcd-servers', 'http://127.0.0.1:2379, http://127.0.0.1:22379', '--etcd-prefix=/kube', '--etcd-compaction-interval=10m',
      '--etcd-cafile=/pki/etcd/ca.crt', '--etcd-certfile', '/pki/apiserver-etcd-client.crt', '--etcd-keyfile=/pki/apiserver-etcd-client.key',
    ]);
    expect(parsed).toMatchObject({
      help: false,
      options: {
        storage: 'etcd', etcdServers: ['http://127.0.0.1:2379', 'http://127.0.0.1:22379'], etcdPrefix: '/kube', historyWindowMs: 600_000,
        etcdCaFile: '/pki/etcd/ca.crt', etcdCertFile: '/pki/apiserver-etcd-client.crt', etcdKeyFile: '/pki/apiserver-etcd-client.key',
      },
    });
  });

  it('reads --controllers as kube-controller-manager does, refusing names it does not know', async () => {
    const { enabledControllers } = await import('../../runtime/controllers/controller-names.js');
    expect([...enabledControllers()].sort()).toEqual([
      'clusterrole-aggregation-controller',
      'crd-establishing-controller',
      'crd-naming-controller',
      'ephemeral-volume-controller',
      'garbage-collector-controller',
      'root-ca-certificate-publisher-controller',
      'serviceaccount-controller',
      'serviceaccount-token-controller',
    ]);
    expect([...enabledControllers(['*', '-root-ca-cert-publisher', '-serviceaccount-token-controller', '-garbagecollector', '-crd-naming'])].sort()).toEqual([
      'clusterrole-aggregation-controller',
      'crd-establishing-controller',
      'ephemeral-volume-controller',
      'serviceaccount-controller',
    ]);
    expect([...enabledControllers(['serviceaccount'])]).toEqual(['serviceaccount-controller']);
    await expect(startServer({ storage: 'memory', controllers: ['*', '-nope'] })).rejects.toThrow('"nope" is not in the list of known controllers');
  });

  it('refuses etcd storage without --etcd-servers when the server starts', async () => {
    await expect(startServer({ storage: 'etcd' })).rejects.toThrow('--etcd-servers must be specified');
  });

  it.each([
    [['--nope'], 'unknown flag: --nope'],
    // Removed: kubectl's typed commands hard-code the k8s.io groups (README, "No --api-domain").
    [['--api-domain=example.io'], 'unknown flag: --api-domain'],
    [['--secure-port=abc'], 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--secure-port=70000'], 'invalid argument "70000" for "--secure-port" flag: must be between 0 and 65535, inclusive'],
    [['--bind-address=localhost'], 'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"'],
    [['--storage=etcd3'], 'invalid argument "etcd3" for "--storage" flag: must be one of memory, sqlite, etcd'],
    [['--request-timeout=5'], 'invalid argument "5" for "--request-timeout" flag: time: missing unit in duration "5"'],
    [['--shutdown-delay-duration=-1s'], '--shutdown-delay-duration can not be negative value'],
    [['--shutdown-watch-termination-grace-period=-1s'], 'shutdown-watch-termination-grace-period, if provided, can not be a negative value'],
    [['--shutdown-delay-duration=soon'], 'invalid argument "soon" for "--shutdown-delay-duration" flag: time: invalid duration "soon"'],
    [['--http2-max-streams-per-connection=many'], 'invalid argument "many" for "--http2-max-streams-per-connection" flag: strconv.ParseInt: parsing "many": invalid syntax'],
    [['--http2-max-streams-per-connection=4294967296'], 'invalid argument "4294967296" for "--http2-max-streams-per-connection" flag: must be at most 4294967295'],
    [['--etcd-compaction-interval=soon'], 'invalid argument "soon" for "--etcd-compaction-interval" flag: time: invalid duration "soon"'],
    [['stray'], 'unexpected argument'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(message);
  });
});

describe('feature gates', () => {
  it('parses the flag syntax with Go booleans', () => {
    expect(parseFeatureGatesFlag('A=true, B=0,,C=F')).toEqual({ A: true, B: false, C: false });
    expect(() => parseFeatureGatesFlag('A')).toThrow('missing bool value for A');
    expect(() => parseFeatureGatesFlag('A=yes')).toThrow('invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
  });

  it('knows defaults, rejects unknown and locked gates, and honours AllAlpha/AllBeta', () => {
    const gates = new FeatureGates();
    // WatchList is beta and off by default in 1.33 (kube switched it back off).
    expect(gates.enabled('WatchList')).toBe(false);
    expect(gates.enabled('StorageVersionMigrator')).toBe(false);
    expect(() => gates.set({ Bogus: true })).toThrow('unrecognized feature gate: Bogus');
    expect(() => gates.set({ RetryGenerateName: false })).toThrow('cannot set feature gate RetryGenerateName to false, feature is locked to true');
    gates.set({ WatchList: true, AllAlpha: true });
    expect(gates.enabled('WatchList')).toBe(true);
    expect(gates.enabled('StorageVersionMigrator')).toBe(true);
    expect(new FeatureGates().set({ AllBeta: false }).enabled('ConsistentListFromCache')).toBe(false);
    expect(new FeatureGates().add({ MyGate: { default: false, stage: 'ALPHA' } }).set({ MyGate: true }).enabled('MyGate')).toBe(true);
  });
});

describe('Go durations', () => {
  it.each([
    ['0', 0], ['1s', 1000], ['1m30s', 90_000], ['1.5h', 5_400_000], ['250ms', 250], ['-2s', -2000], ['1h2m3s4ms', 3_723_004], ['.5s', 500],
  ])('%s', (text, ms) => expect(parseGoDuration(text)).toBeCloseTo(ms, 6));

  it.each([
    ['', 'time: invalid duration ""'], ['abc', 'time: invalid duration "abc"'], ['10', 'time: missing unit in duration "10"'],
    ['3x', 'time: unknown unit "x" in duration "3x"'], ['.s', 'time: invalid duration ".s"'],
  ])('rejects %j', (text, message) => expect(() => parseGoDuration(text)).toThrow(message));
});

describe('field selectors', () => {
  it('splits on unescaped commas and unescapes values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b,status.phase!=Running')).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a,b' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ]);
    expect(parseFieldSelector('a==b')).toEqual([{ field: 'a', operator: '==', value: 'b' }]);
    expect(parseFieldSelector('')).toEqual([]);
  });

  it('rejects terms without an operator and bad escapes', () => {
    expect(() => parseFieldSelector('a=b,c')).toThrow("invalid selector: 'a=b,c'; can't understand 'c'");
    expect(() => parseFieldSelector('a=b\\x')).toThrow('invalid escape sequence: \\x');
    expect(() => parseFieldSelector('a=b=c')).toThrow('unescaped character in value');
  });

  it('finds the exact match a selector requires', () => {
    expect(requiredExactMatch(parseFieldSelector('metadata.name=x,other=y'), 'metadata.name')).toBe('x');
    expect(requiredExactMatch(parseFieldSelector('metadata.name!=x'), 'metadata.name')).toBeUndefined();
  });
});

/** Runs runtime/main.ts; resolves with its exit code and output. */
function runMain(args: string[], onStdout?: (text: string, child: ReturnType<typeof spawn>) => void) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'runtime/main.ts', ...args], { cwd: join(import.meta.dirname, '../..') });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('runtime/main.ts', () => {
  it('prints an error and exits 1 on a bad flag', async () => {
    const { code, stderr } = await runMain(['--no-such-flag']);
    expect(code).toBe(1);
    expect(stderr).toContain('Error: unknown flag: --no-such-flag');
  });

  it('exits 1 on an unknown feature gate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'main-'));
    const { code, stderr } = await runMain(['--secure-port=0', `--data-dir=${dir}`, '--feature-gates=Bogus=true']);
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(stderr).toContain('Error: invalid argument "Bogus=true" for "--feature-gates" flag: unrecognized feature gate: Bogus');
  });

  it('prints the URL and kubeconfig, and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'main-'));
    let signalled = false;
    const { code, stdout } = await runMain(['--secure-port=0', `--data-dir=${dir}`, '--storage=memory'], (out, child) => {
      if (!signalled && out.includes('\n')) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    rmSync(dir, { recursive: true, force: true });
    expect(stdout).toMatch(new RegExp(`^Serving on https://127\\.0\\.0\\.1:\\d+; kubeconfig: ${dir}/admin\\.kubeconfig\\n$`));
    expect(code).toBe(0);
  });
});

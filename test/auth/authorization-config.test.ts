// The AuthorizationConfiguration file: decoding and validation with kube-apiserver's messages,
// the start-up refusals (bad file, file together with the legacy flags) from the real binary,
// and the legacy --authorization-mode=Webhook flags against a real webhook.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuthorizationConfiguration } from '../../runtime/auth/authorization-config.js';
import { startServer } from '../../runtime/index.js';
import { parseFlags } from '../../runtime/server/flags.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { startWebhookServer, type WebhookServer } from '../support/webhook-server.js';

const root = new URL('../..', import.meta.url).pathname;
let dir: string;
let kubeconfig: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authz-config-'));
  kubeconfig = join(dir, 'webhook.kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n';
const load = (yaml: string) => () => loadAuthorizationConfiguration(header + yaml);

function webhook(overrides: Record<string, unknown> = {}): string {
  return `authorizers: ${JSON.stringify([
    {
      type: 'Webhook',
      name: 'hook',
      webhook: {
        timeout: '3s',
        subjectAccessReviewVersion: 'v1',
        matchConditionSubjectAccessReviewVersion: 'v1',
        failurePolicy: 'Deny',
        connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
        ...overrides,
      },
    },
  ])}`;
}

describe('AuthorizationConfiguration loading', () => {
  it('reads v1, v1beta1 and v1alpha1, defaulting the TTLs', () => {
    for (const v of ['v1', 'v1beta1', 'v1alpha1']) {
      const config = loadAuthorizationConfiguration(`apiVersion: apiserver.config.k8s.io/${v}\nkind: AuthorizationConfiguration\n${webhook()}\n`);
      expect(config.authorizers[0].webhook).toMatchObject({ authorizedTTLMs: 300_000, unauthorizedTTLMs: 30_000, timeoutMs: 3000 });
    }
  });

  it.each([
    ['authorizers: []', 'authorizers: Required value: at least one authorization mode must be defined'],
    ['authorizers: [{type: Magic, name: m}]', 'authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"'],
    ['authorizers: [{name: x}]', 'authorizers[0].type: Required value'],
    ['authorizers: [{type: RBAC, name: rbac}, {type: RBAC, name: rbac2}]', 'authorizers[1].type: Duplicate value: "RBAC"'],
    ['authorizers: [{type: RBAC}]', 'authorizers[0].name: Required value'],
    [
      'authorizers: [{type: RBAC, name: Not_Valid}]',
      `authorizers[0].name: Invalid value: "Not_Valid": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
    ['authorizers: [{type: AlwaysAllow, name: x}, {type: RBAC, name: y}]', '[expected name alwaysallow for authorizer AlwaysAllow instead of x, expected name rbac for authorizer RBAC instead of y]'],
    ['authorizers: [{type: Webhook, name: w}]', 'authorizers[0].webhook: Required value: required when type=Webhook'],
    ['authorizers: [{type: RBAC, name: rbac, webhook: {}}]', 'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook'],
  ])('%s', (yaml, message) => {
    expect(load(yaml)).toThrow(message);
  });

  it.each([
    [{ timeout: undefined }, 'authorizers[0].timeout: Required value'],
    [{ timeout: '45s' }, 'authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s'],
    [{ timeout: '2m' }, 'authorizers[0].timeout: Invalid value: "2m0s": must be > 0s and <= 30s'],
    [{ timeout: 'soon' }, 'failed to load AuthorizationConfiguration from file: time: invalid duration "soon"'],
    [{ timeout: 5 }, 'failed to load AuthorizationConfiguration from file: json: cannot unmarshal number into Go struct field WebhookConfiguration.timeout of type string'],
    [{ authorizedTTL: '-1s' }, 'authorizers[0].authorizedTTL: Invalid value: "-1s": must be > 0s'],
    [{ subjectAccessReviewVersion: 'v2' }, 'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"'],
    [{ subjectAccessReviewVersion: undefined }, 'authorizers[0].subjectAccessReviewVersion: Required value'],
    [{ matchConditionSubjectAccessReviewVersion: 'v1beta1' }, 'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"'],
    [
      { matchConditionSubjectAccessReviewVersion: undefined, matchConditions: [{ expression: 'true' }] },
      'authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified',
    ],
    [{ failurePolicy: 'Allow' }, 'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"'],
    [{ failurePolicy: undefined }, 'authorizers[0].failurePolicy: Required value'],
    [{ connectionInfo: {} }, 'authorizers[0].connectionInfo.type: Required value'],
    [{ connectionInfo: { type: 'KubeConfigFile' } }, 'authorizers[0].connectionInfo.kubeConfigFile: Required value'],
    [{ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'relative.kubeconfig' } }, 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "relative.kubeconfig": must be an absolute path'],
    [
      { connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/nonexistent/k' } },
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/nonexistent/k": error loading file: stat /nonexistent/k: no such file or directory',
    ],
    [{ connectionInfo: { type: 'InClusterConfig', kubeConfigFile: '/x' } }, 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/x": can only be set when type=KubeConfigFile'],
    [{ connectionInfo: { type: 'InClusterConfig' } }, 'InClusterConfig is not allowed for kube-apiserver'],
    [{ matchConditions: [{ expression: ' ' }] }, 'authorizers[0].matchConditions[0].expression: Required value'],
    [{ matchConditions: [{ expression: 'true' }, { expression: 'true' }] }, 'authorizers[0].matchConditions[1].expression: Duplicate value: "true"'],
    [
      { matchConditions: [{ expression: 'request.nosuch' }] },
      "authorizers[0].matchConditions[0].expression: Invalid value: \"request.nosuch\": compilation failed: ERROR: <input>:1:8: undefined field 'nosuch'\n | request.nosuch\n | .......^",
    ],
    [{ matchConditions: [{ expression: "request.user == 'a' &&" }] }, 'authorizers[0].matchConditions[0].expression: Invalid value: "request.user == \'a\' &&": compilation failed: ERROR: <input>:1:23: Syntax error: '],
    [{ matchConditions: [{ expression: 'request.user' }] }, 'authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string'],
    // cel-go's ValidateRegexLiterals: a constant pattern Go's regexp refuses does not compile.
    [{ matchConditions: [{ expression: "request.user.matches('^(a)\\\\1$')" }] }, "compilation failed: ERROR: <input>:1:22: invalid matches argument"],
    [{ matchConditions: [{ expression: "request.user.matches('^(?!admin)')" }] }, "compilation failed: ERROR: <input>:1:22: invalid matches argument"],
    [{ matchConditions: [{ expression: "request.user.matches('[a')" }] }, "compilation failed: ERROR: <input>:1:22: invalid matches argument"],
    [
      { matchConditions: Array.from({ length: 65 }, (_, i) => ({ expression: `request.user != 'u${i}'` })) },
      'authorizers[0].matchConditions: Too many: 65: must have at most 64 items',
    ],
  ])('webhook %j', (overrides, message) => {
    expect(load(webhook(overrides))).toThrow(message);
  });

  it('accepts matches() patterns, constant or not: they run in linear time', () => {
    const expressions = [
      "request.user.matches('^system:serviceaccount:(kube-system|default):[a-z0-9-]+$')",
      "request.user.matches('^(a+)+$')",
      // Counted repetitions before a repeated group, once refused here as a backtracking risk.
      "request.user.matches('a{2,1000}(b|c)*')",
      'request.user.matches(request.groups[0])',
    ];
    const config = loadAuthorizationConfiguration(header + webhook({ matchConditions: expressions.map((expression) => ({ expression })) }));
    expect(config.authorizers[0].webhook?.matchConditions).toHaveLength(4);
  });

  it('gives match conditions kube\'s CEL libraries', () => {
    const expressions = [
      "isIP(request.user) || request.user.split(':').size() > 1",
      "sets.intersects(request.groups, ['system:masters'])",
      "request.groups.isSorted() && request.groups.indexOf('a') >= -1",
      "url('https://example.com/x').getHost() == 'example.com'",
      "quantity('1Gi').isGreaterThan(quantity('1G'))",
      "cidr('10.0.0.0/8').containsIP('10.1.2.3')",
      "!format.dns1123Label().validate(request.user).hasValue()",
      "request.?resourceAttributes.?namespace.orValue('') != 'kube-system'",
      "'%s'.format([request.user]).lowerAscii().find('[a-z]+') != ''",
    ];
    const config = loadAuthorizationConfiguration(header + webhook({ matchConditions: expressions.map((expression) => ({ expression })) }));
    expect(config.authorizers[0].webhook?.matchConditions).toHaveLength(expressions.length);
  });

  it('reports every field error of a file at once, in brackets', () => {
    expect(load(webhook({ timeout: '31s', failurePolicy: 'Maybe' }))).toThrow(
      '[authorizers[0].timeout: Invalid value: "31s": must be > 0s and <= 30s, authorizers[0].failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny"]',
    );
  });

  it.each([
    ['authorizers: [{type: RBAC, name: rbac}]', "failed to load AuthorizationConfiguration from file: Object 'Kind' is missing in '{\"authorizers\":[{\"type\":\"RBAC\",\"name\":\"rbac\"}]}'"],
    ['apiVersion: apiserver.config.k8s.io/v9\nkind: AuthorizationConfiguration\n', 'failed to load AuthorizationConfiguration from file: no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v9"'],
    ['apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: {type: RBAC}\n', 'failed to load AuthorizationConfiguration from file: json: cannot unmarshal object into Go struct field AuthorizationConfiguration.authorizers of type []v1.AuthorizerConfiguration'],
    [
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nmetadata: {name: x}\nauthorizers: [{type: RBAC, name: rbac, mode: x, webhook: {timout: 1s, connectionInfo: {kind: x}, matchConditions: [{expr: x}]}}]\n',
      'failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "metadata", unknown field "authorizers[0].mode", unknown field "authorizers[0].webhook.timout", unknown field "authorizers[0].webhook.connectionInfo.kind", unknown field "authorizers[0].webhook.matchConditions[0].expr"',
    ],
    ['- just\n- a list\n', 'failed to load AuthorizationConfiguration from file: couldn\'t get version/kind'],
    ['key: [unclosed\n', 'failed to load AuthorizationConfiguration from file: error converting YAML to JSON'],
  ])('refuses a malformed document %#', (text, message) => {
    expect(() => loadAuthorizationConfiguration(text)).toThrow(message);
  });
});

/** Runs the real binary; resolves with its exit code and stderr once it exits. */
function runServer(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'runtime/main.ts', '--secure-port', '0', '--data-dir', join(dir, 'data'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    if (d.toString().includes('Serving on')) child.kill();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe('start-up refusals', () => {
  it('a bad file stops the server with kube-apiserver\'s message', async () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(path, `${header}authorizers: [{type: RBAC, name: RBAC}]\n`);
    const { code, stderr } = await runServer(['--authorization-config', path]);
    expect(code).toBe(1);
    expect(stderr).toContain('Error: authorizers[0].name: Invalid value: "RBAC": authorizer name is invalid');
  });

  it('the file together with --authorization-mode or --authorization-webhook-* is refused', async () => {
    const path = join(dir, 'good.yaml');
    writeFileSync(path, `${header}authorizers: [{type: RBAC, name: rbac}]\n`);
    for (const extra of [['--authorization-mode', 'RBAC'], ['--authorization-webhook-version', 'v1']]) {
      await expect(startServer({ storage: 'memory', authorizationConfig: path, ...parseFlagsOptions(extra) })).rejects.toThrow(
        '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
      );
    }
    const { code, stderr } = await runServer(['--authorization-config', path, '--authorization-webhook-cache-authorized-ttl', '1m']);
    expect(code).toBe(1);
    expect(stderr).toContain('Error: --authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  });

  it('a missing file is an error, not a default', async () => {
    await expect(startServer({ storage: 'memory', authorizationConfig: join(dir, 'absent.yaml') })).rejects.toThrow(`open ${join(dir, 'absent.yaml')}: no such file or directory`);
  });

  it('the legacy flags are checked as kube-apiserver checks them', async () => {
    await expect(startServer({ storage: 'memory', authorizationMode: 'Webhook' })).rejects.toThrow("authorization-mode Webhook's authorization config file not passed");
    await expect(startServer({ storage: 'memory', authorizationWebhookConfigFile: kubeconfig })).rejects.toThrow('cannot specify --authorization-webhook-config-file without mode Webhook');
    expect(() => parseFlags(['--authorization-webhook-cache-authorized-ttl', 'forever'])).toThrow(
      'invalid argument "forever" for "--authorization-webhook-cache-authorized-ttl" flag: time: invalid duration "forever"',
    );
  });
});

function parseFlagsOptions(args: string[]) {
  const parsed = parseFlags(args);
  if (parsed.help) throw new Error('help');
  const { port: _port, dataDir: _dataDir, bindAddress: _bind, storage: _storage, ...rest } = parsed.options;
  return rest;
}

describe('--authorization-mode=Webhook with the legacy flags', () => {
  let hook: WebhookServer;
  beforeAll(async () => {
    hook = await startWebhookServer((review) => ({ status: { allowed: review.spec.user === 'alice', reason: 'legacy hook' } }));
  });
  afterAll(() => hook?.close());

  it('asks the webhook with v1beta1 by default and caches per the TTL flags (0 = no cache)', async () => {
    writeFileSync(join(dir, 'tokens.csv'), 'token-alice,alice,1,"people"\ntoken-bob,bob,2,"people"\n');
    const server = await startServer({
      storage: 'memory',
      tokenAuthFile: join(dir, 'tokens.csv'),
      authorizationMode: 'Webhook,RBAC',
      authorizationWebhookConfigFile: await hook.kubeconfig(dir, 'legacy', 'cert'),
      authorizationWebhookCacheUnauthorizedTtlMs: 0,
    });
    try {
      const admin = kubeconfigCredentials(server.kubeconfig);
      const as = (user: string) => call(server.url, '/api/v1/namespaces', { ca: admin.ca, token: `token-${user}` });
      expect((await as('alice')).status).toBe(200);
      expect((await as('alice')).status).toBe(200);
      const bob = await as('bob');
      expect(bob.status).toBe(403);
      expect(bob.json().message).toBe('namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope: legacy hook');
      await as('bob');
      const users = hook.reviews.map((r) => r.spec.user);
      expect(users.filter((u) => u === 'alice')).toHaveLength(1);
      expect(users.filter((u) => u === 'bob')).toHaveLength(2);
      expect(hook.reviews.every((r) => r.apiVersion === 'authorization.k8s.io/v1beta1')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

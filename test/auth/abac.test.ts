// --authorization-mode=ABAC with --authorization-policy-file, as pkg/auth/authorizer/abac reads and
// matches it: table tests of the matching (user, group, "*", readonly, apiGroup, namespace,
// resource, nonResourcePath with its trailing-"*" prefix rule) in both the v1beta1 and the
// unversioned v0 form, kube's start-up errors for bad lines, the flag checks of
// BuiltInAuthorizationOptions.Validate, and the mode end to end over HTTPS and from main.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbacAuthorizer, parsePolicyLine, readPolicyFile } from '../../runtime/auth/abac.js';
import { parseAuthorizationModes } from '../../runtime/auth/authorization-modes.js';
import { attributesFor } from '../../runtime/auth/authorizer.js';
import { newUserInfo } from '../../runtime/auth/user.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const dir = mkdtempSync(join(tmpdir(), 'abac-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function policyFile(lines: string[]): string {
  const path = join(dir, `policy-${++fileCount}.jsonl`);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

const v1beta1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

const alice = newUserInfo('alice', { groups: ['system:authenticated'] });
const bob = newUserInfo('bob', { groups: ['dev', 'system:authenticated'] });
const carol = newUserInfo('carol', { groups: ['system:authenticated'] });
const anonymous = newUserInfo('system:anonymous', { groups: ['system:unauthenticated'] });

describe('matching (v1beta1)', () => {
  const abac = AbacAuthorizer.fromFile(
    policyFile([
      '# comments and blank lines are skipped',
      '',
      v1beta1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
      v1beta1({ group: 'dev', namespace: 'projectcaribou', resource: 'pods', apiGroup: '', readonly: true }),
      v1beta1({ user: 'bob', namespace: 'projectcaribou', resource: 'deployments', apiGroup: 'apps' }),
      v1beta1({ user: '*', nonResourcePath: '/version' }),
      v1beta1({ group: 'dev', nonResourcePath: '/apis/*' }),
      v1beta1({ user: 'bob', namespace: '', resource: 'nodes', apiGroup: '' }),
    ]),
  );
  const decide = (user: typeof alice, method: string, url: string) => abac.authorize(attributesFor(user, newRequestInfo(method, url)));

  it.each([
    ['alice: any resource anywhere', alice, 'DELETE', '/apis/apps/v1/namespaces/x/deployments/d', 'allow'],
    ['alice: her resource rule is no non-resource rule', alice, 'GET', '/metrics', 'noOpinion'],
    ['a group member may read pods in the namespace', bob, 'GET', '/api/v1/namespaces/projectcaribou/pods', 'allow'],
    ['and watch them', bob, 'GET', '/api/v1/namespaces/projectcaribou/pods?watch=true', 'allow'],
    ['and read a subresource (resource matches without it)', bob, 'GET', '/api/v1/namespaces/projectcaribou/pods/p/log', 'allow'],
    ['but readonly refuses create', bob, 'POST', '/api/v1/namespaces/projectcaribou/pods', 'noOpinion'],
    ['and delete', bob, 'DELETE', '/api/v1/namespaces/projectcaribou/pods/p', 'noOpinion'],
    ['another namespace is not matched', bob, 'GET', '/api/v1/namespaces/other/pods', 'noOpinion'],
    ['the apiGroup must match', bob, 'POST', '/apis/extensions/v1beta1/namespaces/projectcaribou/deployments', 'noOpinion'],
    ['apps deployments are bob\'s to write', bob, 'POST', '/apis/apps/v1/namespaces/projectcaribou/deployments', 'allow'],
    ['user "*" means every authenticated user', carol, 'GET', '/version', 'allow'],
    ['but not an anonymous one', anonymous, 'GET', '/version', 'noOpinion'],
    ['"*" on a path is for non-resource requests only', carol, 'GET', '/version/', 'noOpinion'],
    ['a trailing "*" matches the prefix', bob, 'GET', '/apis/apps', 'allow'],
    ['the prefix without its "*" is matched too', bob, 'GET', '/apis/', 'allow'],
    ['but not the path without the slash', bob, 'GET', '/apis', 'noOpinion'],
    ['an empty namespace matches cluster-scoped requests only', bob, 'GET', '/api/v1/nodes/n1', 'allow'],
    ['not namespaced ones', bob, 'GET', '/api/v1/namespaces/projectcaribou/nodes', 'noOpinion'],
  ])('%s', (_name, user, method, url, decision) => {
    const result = decide(user, method, url);
    expect(result.decision).toBe(decision);
    expect(result.reason).toBe(decision === 'allow' ? '' : 'No policy matched.');
  });

  it('lists what a user may do in a namespace (SelfSubjectRulesReview), as kube filters by namespace', () => {
    expect(abac.rulesFor(bob, 'projectcaribou')).toEqual({
      resourceRules: [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] },
      ],
      // kube lists a policy only where its namespace is "*" or the one asked about: the
      // non-resource policies (namespace "") show only for the empty namespace.
      nonResourceRules: [],
      incomplete: false,
    });
    expect(abac.rulesFor(bob, '').nonResourceRules).toEqual([
      { verbs: ['*'], nonResourceURLs: ['/version'] },
      { verbs: ['*'], nonResourceURLs: ['/apis/*'] },
    ]);
  });
});

describe('the unversioned v0 form', () => {
  it.each([
    ['empty fields widen to everything for every authenticated user', '{}', { user: '', group: 'system:authenticated', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*', readonly: false }],
    ['a user with a namespace', '{"user":"alice","namespace":"ns1"}', { user: 'alice', group: '', namespace: 'ns1', resource: '*', apiGroup: '*', nonResourcePath: '', readonly: false }],
    ['"*" is every authenticated user', '{"user":"*","readonly":true,"resource":"pods"}', { user: '', group: 'system:authenticated', namespace: '*', resource: 'pods', apiGroup: '*', nonResourcePath: '', readonly: true }],
    ['explicit v0', '{"apiVersion":"abac.authorization.kubernetes.io/v0","kind":"Policy","group":"dev"}', { user: '', group: 'dev', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*', readonly: false }],
    ['a kind without a version is v0', '{"kind":"Policy","user":"bob"}', { user: 'bob', group: '', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*', readonly: false }],
    // apiVersion and kind are first read without regard to case; the fields themselves are case-sensitive.
    ['keys of apiVersion and kind in any case', '{"APIVERSION":"abac.authorization.kubernetes.io/v1beta1","KIND":"Policy","spec":{"user":"bob","Group":"x"}}', { user: 'bob', group: '', namespace: '', resource: '', apiGroup: '', nonResourcePath: '', readonly: false }],
    // A line that is not a JSON object is read as YAML, as kube's universal decoder does.
    ['a YAML line', 'user: alice', { user: 'alice', group: '', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*', readonly: false }],
  ])('%s', (_name, line, spec) => {
    expect(parsePolicyLine(line)).toEqual(spec);
  });

  it('a v0 file grants as kube converts it', () => {
    const abac = AbacAuthorizer.fromFile(policyFile(['{"user":"alice"}', '{"group":"dev","readonly":true,"namespace":"ns1"}']));
    const decide = (user: typeof alice, method: string, url: string) => abac.authorize(attributesFor(user, newRequestInfo(method, url))).decision;
    expect(decide(alice, 'DELETE', '/apis/apps/v1/namespaces/ns1/deployments/d')).toBe('allow');
    expect(decide(alice, 'POST', '/logs/x')).toBe('allow');
    expect(decide(bob, 'GET', '/apis/apps/v1/namespaces/ns1/deployments')).toBe('allow');
    expect(decide(bob, 'POST', '/apis/apps/v1/namespaces/ns1/deployments')).toBe('noOpinion');
    // A namespace set: no non-resource paths.
    expect(decide(bob, 'GET', '/version')).toBe('noOpinion');
  });
});

describe('bad policy files: kube-apiserver\'s errors', () => {
  it.each([
    ['broken JSON', '{"user":"alice",}', "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string"],
    ['a wrong type in spec', v1beta1({ user: 'a', readonly: 'yes' }), 'json: cannot unmarshal string into Go struct field PolicySpec.spec.readonly of type bool'],
    ['a wrong type in a v0 line', '{"user":5}', 'json: cannot unmarshal number into Go struct field Policy.user of type string'],
    ['spec not an object', '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":[]}', 'json: cannot unmarshal array into Go struct field Policy.spec of type v1beta1.PolicySpec'],
    ['apiVersion not a string', '{"apiVersion":1}', "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string"],
    ['an unknown version', '{"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy"}', 'no kind "Policy" is registered for version "abac.authorization.kubernetes.io/v2" in scheme "k8s.io/kubernetes/pkg/apis/abac/register.go:33"'],
    ['an unknown kind', '{"apiVersion":"v1","kind":"Pod"}', 'no kind "Pod" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/apis/abac/register.go:33"'],
    ['a bad group version', '{"apiVersion":"a/b/c","kind":"Policy"}', 'unexpected GroupVersion string: a/b/c'],
    ['v1beta1 without its kind', '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","spec":{}}', 'converting (v1beta1.Policy) to (v0.Policy): unknown conversion'],
    ['an array', '[1]', 'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'],
  ])('%s stops the load with the file, line number and line', (_name, bad, why) => {
    const path = policyFile(['# a comment', v1beta1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }), '', bad, '{}']);
    expect(() => readPolicyFile(path)).toThrow(new Error(`error reading policy file ${path}, line 4: ${bad}: ${why}`));
  });

  it('a missing file is the open error', () => {
    expect(() => readPolicyFile(join(dir, 'absent.jsonl'))).toThrow(new Error(`open ${join(dir, 'absent.jsonl')}: no such file or directory`));
  });

  it('a line longer than bufio.Scanner takes is a read error without a line number', () => {
    const path = policyFile(['{}', `{"user":"${'a'.repeat(70_000)}"}`]);
    expect(() => readPolicyFile(path)).toThrow(new Error(`error reading policy file ${path}: bufio.Scanner: token too long`));
  });

  it('CRLF line ends are fine', () => {
    const path = join(dir, 'crlf.jsonl');
    writeFileSync(path, `${v1beta1({ user: 'alice', nonResourcePath: '*' })}\r\n{"user":"bob"}\r\n`);
    expect(readPolicyFile(path)).toHaveLength(2);
  });
});

describe('flag checks (BuiltInAuthorizationOptions.Validate)', () => {
  it.each([
    ['ABAC without a policy file', 'ABAC', undefined, "authorization-mode ABAC's authorization policy file not passed"],
    ['a policy file without ABAC', 'RBAC', '/p', 'cannot specify --authorization-policy-file without mode ABAC'],
    ['errors in kube\'s order, aggregated with repeats once', 'Foo,ABAC,ABAC', undefined, `[authorization-mode "Foo" is not a valid mode, authorization-mode ABAC's authorization policy file not passed, authorization-mode ["Foo" "ABAC" "ABAC"] has mode specified more than once]`],
  ])('%s', (_name, modes, policyFile, message) => {
    expect(() => parseAuthorizationModes(modes, { policyFile })).toThrow(new Error(message));
  });

  it('accepts ABAC with its file', () => {
    expect(parseAuthorizationModes('ABAC,RBAC', { policyFile: '/p' })).toEqual(['ABAC', 'RBAC']);
  });
});

describe('ABAC end to end over HTTPS', () => {
  let server: RunningServer;
  let admin: Credentials;
  const token = (t: string): Credentials => ({ ca: server.caCert, token: t });

  beforeAll(async () => {
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,uid-a\nbob-token,bob,uid-b,"dev"\ncarol-token,carol,uid-c\n');
    const policy = policyFile([
      v1beta1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
      v1beta1({ group: 'dev', namespace: 'team', resource: 'configmaps', apiGroup: '', readonly: true }),
      v1beta1({ group: 'system:authenticated', readonly: true, nonResourcePath: '*' }),
      v1beta1({ group: 'system:authenticated', readonly: false, namespace: '', resource: 'selfsubjectrulesreviews', apiGroup: 'authorization.k8s.io' }),
    ]);
    server = await startServer({ storage: 'memory', dataDir: join(dir, 'e2e'), tokenAuthFile: tokens, authorizationMode: 'ABAC', authorizationPolicyFile: policy });
    admin = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  const send = (creds: Credentials, method: string, path: string, body?: unknown) =>
    call(server.url, path, creds, { method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });

  it('alice may create anywhere; bob may only read configmaps in team; carol only non-resource paths', async () => {
    expect((await send(alice(), 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } })).status).toBe(201);
    expect((await send(alice(), 'POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'cm' } })).status).toBe(201);
    expect((await send(token('bob-token'), 'GET', '/api/v1/namespaces/team/configmaps/cm')).status).toBe(200);
    expect((await send(token('carol-token'), 'GET', '/version')).status).toBe(200);

    const denied = await send(token('bob-token'), 'POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'smuggled' } });
    expect(denied.status).toBe(403);
    expect(denied.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "team": No policy matched.',
      reason: 'Forbidden',
      details: { kind: 'configmaps' },
      code: 403,
    });
    expect((await send(admin, 'GET', '/api/v1/namespaces/team/configmaps/smuggled')).status).toBe(404);
    const carolPods = await send(token('carol-token'), 'GET', '/api/v1/namespaces/team/pods');
    expect(carolPods.status).toBe(403);
    expect(carolPods.json<{ message: string }>().message).toBe('pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "team": No policy matched.');
    // readonly non-resource access: a POST to a path is refused.
    expect((await send(token('carol-token'), 'POST', '/logs/x')).status).toBe(403);
    expect((await send(admin, 'GET', '/readyz')).status).toBe(200);
  });

  it('SelfSubjectRulesReview lists the ABAC rules', async () => {
    const res = await send(token('bob-token'), 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'team' },
    });
    expect(res.status, res.body).toBe(201);
    const status = res.json<{ status: { resourceRules: unknown[]; incomplete: boolean } }>().status;
    expect(status.resourceRules).toContainEqual({ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] });
    expect(status.incomplete).toBe(false);
  });

  function alice() {
    return token('alice-token');
  }
});

/** Runs runtime/main.ts with `args`; resolves with its exit code and stderr. */
function runMain(args: string[]) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'runtime/main.ts', ...args], { cwd: join(import.meta.dirname, '../..') });
    let stderr = '';
    child.stdout.on('data', () => child.kill('SIGTERM'));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('start-up through main.ts', () => {
  it('a bad policy line stops the server with kube-apiserver\'s message and exit 1', async () => {
    const path = policyFile(['{"user":"alice"}', '{"user":"bob",,}']);
    const { code, stderr } = await runMain(['--secure-port=0', `--data-dir=${join(dir, 'main-bad')}`, '--storage=memory', '--authorization-mode=ABAC', `--authorization-policy-file=${path}`]);
    expect(code).toBe(1);
    expect(stderr).toContain(`Error: invalid authorization config: error reading policy file ${path}, line 2: {"user":"bob",,}: couldn't get version/kind; json parse error: invalid character ',' looking for beginning of object key string`);
  });

  it('ABAC without --authorization-policy-file is refused at start', async () => {
    const { code, stderr } = await runMain(['--secure-port=0', `--data-dir=${join(dir, 'main-nofile')}`, '--storage=memory', '--authorization-mode=ABAC']);
    expect(code).toBe(1);
    expect(stderr).toContain("Error: authorization-mode ABAC's authorization policy file not passed");
  });
});

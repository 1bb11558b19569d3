// kube-apiserver's start-up errors for the --authorization-mode family of flags, through the
// real process: BuiltInAuthorizationOptions.Validate's problems in its order, joined as
// utilerrors.NewAggregate joins them (one alone; several in brackets; repeats once), with the
// feature gate dependency kube-apiserver checks in the same pass after them.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authorizationModeErrors, splitModeFlag } from '../../runtime/auth/authorization-modes.js';
import { aggregateMessage } from '../../runtime/auth/aggregate.js';
import { runServerProcessToExit } from '../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'authz-mode-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy = join(dir, 'policy.jsonl');
writeFileSync(policy, '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*"}}\n');
const authzConfig = join(dir, 'authz.yaml');
writeFileSync(authzConfig, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: RBAC\n  name: rbac\n');
const kubeconfig = join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: w\n  context:\n    cluster: w\n    user: w\ncurrent-context: w\nusers:\n- name: w\n  user: {}\n');

describe('the aggregate of option errors', () => {
  it.each<[string, string[], string]>([
    ['one error alone', ['a'], 'a'],
    ['several in brackets, in order', ['a', 'b', 'c'], '[a, b, c]'],
    ['a repeat printed once', ['a', 'b', 'a'], '[a, b]'],
    ['repeats of one error are that error alone', ['a', 'a'], 'a'],
  ])('%s', (_, errors, message) => {
    expect(aggregateMessage(errors)).toBe(message);
  });
});

describe('--authorization-mode as pflag reads a string slice', () => {
  it.each<[string, string[]]>([
    ['Node,RBAC', ['Node', 'RBAC']],
    ['Node, RBAC', ['Node', ' RBAC']],
    ['RBAC,', ['RBAC', '']],
    ['', []],
  ])('%j is %j', (value, modes) => {
    expect(splitModeFlag(value)).toEqual(modes);
  });

  it('checks each mode, then files without their mode, then repeats', () => {
    expect(authorizationModeErrors(['Foo', 'Webhook', 'Foo'], { policyFile: '/p' })).toEqual([
      'authorization-mode "Foo" is not a valid mode',
      "authorization-mode Webhook's authorization config file not passed",
      'authorization-mode "Foo" is not a valid mode',
      'cannot specify --authorization-policy-file without mode ABAC',
      'authorization-mode ["Foo" "Webhook" "Foo"] has mode specified more than once',
    ]);
  });
});

describe('kube-apiserver start-up errors through main.ts', () => {
  let n = 0;
  const run = (flags: string[]) => runServerProcessToExit(join(dir, `data-${n++}`), ['--storage=memory', ...flags]);

  it.each<[string, string[], string]>([
    [
      'an unknown mode and ABAC twice without its file',
      ['--authorization-mode=Foo,ABAC,ABAC'],
      '[authorization-mode "Foo" is not a valid mode, authorization-mode ABAC\'s authorization policy file not passed, authorization-mode ["Foo" "ABAC" "ABAC"] has mode specified more than once]',
    ],
    [
      'Webhook without its kubeconfig, and a policy file without ABAC',
      ['--authorization-mode=Webhook', `--authorization-policy-file=${policy}`],
      "[authorization-mode Webhook's authorization config file not passed, cannot specify --authorization-policy-file without mode ABAC]",
    ],
    ['a webhook kubeconfig without Webhook', ['--authorization-mode=RBAC', `--authorization-webhook-config-file=${kubeconfig}`], 'cannot specify --authorization-webhook-config-file without mode Webhook'],
    ['a space after the comma', ['--authorization-mode=Node, RBAC'], 'authorization-mode " RBAC" is not a valid mode'],
    ['a policy file beside the default modes', [`--authorization-policy-file=${policy}`], 'cannot specify --authorization-policy-file without mode ABAC'],
    ['node selectors without selectors', ['--feature-gates=AuthorizeWithSelectors=false'], 'AuthorizeNodeWithSelectors feature requires AuthorizeWithSelectors feature to be enabled'],
    [
      'a bad mode and the gate dependency, in one aggregate',
      ['--authorization-mode=Foo', '--feature-gates=AuthorizeWithSelectors=false'],
      '[authorization-mode "Foo" is not a valid mode, AuthorizeNodeWithSelectors feature requires AuthorizeWithSelectors feature to be enabled]',
    ],
    [
      'the configuration file beside --authorization-mode',
      [`--authorization-config=${authzConfig}`, '--authorization-mode=RBAC'],
      '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    ],
    [
      'a webhook version kube does not speak, once the flags are valid',
      ['--authorization-mode=Webhook', `--authorization-webhook-config-file=${kubeconfig}`, '--authorization-webhook-version=v2'],
      'unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"',
    ],
  ])('%s', async (_, flags, message) => {
    const { code, output } = await run(flags);
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toContain(`Error: ${message}`);
  }, 30_000);

  it('starts with AuthorizeNodeWithSelectors off alone, and with ABAC and its file', async () => {
    expect((await run(['--feature-gates=AuthorizeWithSelectors=false,AuthorizeNodeWithSelectors=false'])).code).toBeNull();
    expect((await run(['--authorization-mode=ABAC,RBAC', `--authorization-policy-file=${policy}`])).code).toBeNull();
  }, 60_000);
});

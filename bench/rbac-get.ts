// GET of one ConfigMap by a token user whom RBAC authorizes through a RoleBinding, among 1,000
// Roles and 1,000 RoleBindings, as a ratio to the same GET by system:masters (which RBAC never
// consults) in the same run; target: at least 0.9. The two loads alternate in short rounds so
// that machine noise falls on both alike.
//
// From the bench runner: start the server with `--token-auth-file` holding RBAC_BENCH_TOKEN_LINE,
// then `await measureRbacGet(adminClient, port, durationMs, concurrency)`.
// Standalone: `npm run -s build && tsx bench/rbac-get.ts` (spawns dist/main.mjs itself).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, send, type Client } from './load.js';

const TOKEN = 'rbac-bench-token';
const USER = 'rbac-bench-user';
/** A line for --token-auth-file: the user the measurement authorizes through RBAC. */
export const RBAC_BENCH_TOKEN_LINE = `${TOKEN},${USER},uid-${USER}`;

const NAMESPACE = 'default';
const CONFIGMAP = 'rbac-bench';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const POLICY_OBJECTS = 1000;
const ROUNDS = 5;

export interface RbacGetResult {
  mastersPerSecond: number;
  userPerSecond: number;
  /** userPerSecond / mastersPerSecond. */
  ratio: number;
  errors: number;
}

async function mustCreate(admin: Client, port: number, path: string, obj: unknown): Promise<void> {
  const res = await send(admin, port, 'POST', path, JSON.stringify(obj));
  if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${path}: ${res.status} ${res.body}`);
}

/** The policy and the target: 1,000 Roles and RoleBindings for other users, one binding for ours. */
async function prepare(admin: Client, port: number): Promise<void> {
  await mustCreate(admin, port, `/api/v1/namespaces/${NAMESPACE}/configmaps`, { metadata: { name: CONFIGMAP }, data: { a: 'b' } });
  const rule = (name: string) => [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [name], verbs: ['get'] }];
  for (let start = 0; start < POLICY_OBJECTS; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, POLICY_OBJECTS - start) }, async (_, k) => {
        const i = start + k;
        await mustCreate(admin, port, `${RBAC}/namespaces/${NAMESPACE}/roles`, { metadata: { name: `bench-role-${i}` }, rules: rule(`cm-${i}`) });
        await mustCreate(admin, port, `${RBAC}/namespaces/${NAMESPACE}/rolebindings`, {
          metadata: { name: `bench-binding-${i}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `bench-role-${i}` },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `bench-user-${i}` }],
        });
      }),
    );
  }
  await mustCreate(admin, port, `${RBAC}/namespaces/${NAMESPACE}/roles`, { metadata: { name: 'rbac-bench-reader' }, rules: rule(CONFIGMAP) });
  await mustCreate(admin, port, `${RBAC}/namespaces/${NAMESPACE}/rolebindings`, {
    metadata: { name: 'rbac-bench-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rbac-bench-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
  });
}

export async function measureRbacGet(admin: Client, port: number, durationMs: number, concurrency: number): Promise<RbacGetResult> {
  await prepare(admin, port);
  const user: Client = { agent: new Agent({ keepAlive: true, maxSockets: concurrency }), ca: admin.ca };
  const path = `/api/v1/namespaces/${NAMESPACE}/configmaps/${CONFIGMAP}`;
  const auth = { authorization: `Bearer ${TOKEN}` };
  // The binding reaches the authorizer through its informer: wait until it does.
  for (let tries = 0; (await send(user, port, 'GET', path, undefined, auth)).status !== 200; tries++) {
    if (tries > 500) throw new Error('the bench user never became authorized');
    await new Promise((r) => setTimeout(r, 10));
  }
  const slice = durationMs / ROUNDS;
  let masters = 0;
  let users = 0;
  let errors = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const m = await runLoad(slice, concurrency, () => send(admin, port, 'GET', path), 200);
    const u = await runLoad(slice, concurrency, () => send(user, port, 'GET', path, undefined, auth), 200);
    masters += m.perSecond;
    users += u.perSecond;
    errors += m.errors + u.errors;
  }
  return { mastersPerSecond: masters / ROUNDS, userPerSecond: users / ROUNDS, ratio: users / masters, errors };
}

async function standalone(): Promise<void> {
  const root = new URL('..', import.meta.url).pathname;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-rbac-'));
  const port = 18000 + Math.floor(Math.random() * 1000);
  const durationMs = Number(process.env.BENCH_DURATION_MS ?? 5000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
  writeFileSync(join(dataDir, 'tokens.csv'), `${RBAC_BENCH_TOKEN_LINE}\n`);
  const child = spawn(process.execPath, ['dist/main.mjs', '--secure-port', String(port), '--data-dir', dataDir, '--token-auth-file', join(dataDir, 'tokens.csv')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    let admin: Client | undefined;
    for (let tries = 0; !admin; tries++) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      try {
        const candidate: Client = {
          agent: new Agent({ keepAlive: true, maxSockets: concurrency }),
          cert: readFileSync(join(dataDir, 'admin.crt')),
          key: readFileSync(join(dataDir, 'admin.key')),
          ca: readFileSync(join(dataDir, 'ca.crt')),
        };
        if ((await send(candidate, port, 'GET', '/readyz')).status === 200) admin = candidate;
      } catch {
        if (tries > 2000) throw new Error('server never became ready');
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    const result = await measureRbacGet(admin, port, durationMs, concurrency);
    console.log(`GET one ConfigMap, RBAC user via RoleBinding (1,000 Roles + 1,000 RoleBindings): ${result.userPerSecond.toFixed(0)} /s`);
    console.log(`same GET by system:masters: ${result.mastersPerSecond.toFixed(0)} /s`);
    console.log(`ratio ${result.ratio.toFixed(2)} (target at least 0.9), errors ${result.errors}`);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  standalone().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

// The Webhook rows: GET of one ConfigMap by users whom a webhook authorizes, on a server started
// with --authorization-config, against the same GET by system:masters (which never asks a
// webhook). One user's answers are cached (authorizedTTL 5m: after the first request the webhook
// is not asked again; target ratio >= 0.9); the other's webhook caches for 1ns, so every request
// asks it. The webhook answers every review with the same prepared bytes without reading them,
// so a miss costs what the server spends on the call, not what a real policy engine would. As
// in the RBAC row, the figure is the server's CPU per GET of each user, the users taking turns
// in short runs on the one server (bench/server-cpu.ts), masters / cached user over the rounds.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate } from '../runtime/auth/pki.js';
import { freePort } from '../test/support/ports.js';
import { expect, send, type Endpoint } from './https.js';
import { alternateWithCpu, type CpuRun } from './server-cpu.js';
import { npmStart } from './server.js';
import type { WrkResult, WrkRun } from './wrk.js';

const CACHED_USER = 'webhook-cached-user';
const MISS_USER = 'webhook-miss-user';
const PATH = '/api/v1/namespaces/default/configmaps/webhook-bench';
const ALLOWED = Buffer.from(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: { allowed: true } }));

export interface WebhookRows {
  masters: CpuRun[];
  cached: CpuRun[];
  miss: CpuRun[];
  /** Reviews the webhook answered during the miss runs (their 1 s warm-up included), and the requests of the timed runs. */
  missCalls: number;
  missRequests: number;
}

/** A local HTTPS webhook answering every review with the same allowed bytes; it counts the reviews. */
export async function startWebhook() {
  const ca = await createCertificateAuthority('bench-webhook-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=bench-webhook', usage: 'serverAuth', names: ['127.0.0.1'] });
  let calls = 0;
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    calls++;
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': ALLOWED.length }).end(ALLOWED));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    ca: ca.certPem,
    url: `https://127.0.0.1:${port}/authorize`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function webhookEntry(name: string, kubeconfig: string, user: string, authorizedTTL: string) {
  return {
    type: 'Webhook',
    name,
    webhook: {
      timeout: '5s',
      authorizedTTL,
      unauthorizedTTL: '30s',
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'Deny',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
      matchConditions: [{ expression: `request.user == '${user}'` }],
    },
  };
}

export type Webhook = Awaited<ReturnType<typeof startWebhook>>;

export interface WebhookSetup {
  tokens: { masters: string; cached: string; miss: string };
  /** The server's flags: the token file and the authorization configuration. */
  flags: string[];
}

/**
 * The token file (system:masters, the cached user, the uncached user) and the
 * AuthorizationConfiguration naming both webhooks, then RBAC, written into `dir`.
 */
export function writeWebhookSetup(dir: string, hook: Webhook): WebhookSetup {
  const tokens = { masters: randomBytes(24).toString('hex'), cached: randomBytes(24).toString('hex'), miss: randomBytes(24).toString('hex') };
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${tokens.masters},bench,bench-uid,"system:masters"\n${tokens.cached},${CACHED_USER},1\n${tokens.miss},${MISS_USER},2\n`, { mode: 0o600 });
  const kubeconfig = join(dir, 'webhook.kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'hook', cluster: { server: hook.url, 'certificate-authority-data': Buffer.from(hook.ca).toString('base64') } }],
      users: [{ name: 'apiserver', user: {} }],
      contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
      'current-context': 'hook',
    }),
  );
  const configFile = join(dir, 'authorization.yaml');
  writeFileSync(
    configFile,
    JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthorizationConfiguration',
      authorizers: [webhookEntry('cached', kubeconfig, CACHED_USER, '5m'), webhookEntry('uncached', kubeconfig, MISS_USER, '1ns'), { type: 'RBAC', name: 'rbac' }],
    }),
  );
  return { tokens, flags: ['--token-auth-file', tokenFile, '--authorization-config', configFile] };
}

/** Creates the ConfigMap and checks that both webhook users may read it. Returns its path. */
export async function prepareWebhookGet(to: Endpoint, tokens: WebhookSetup['tokens']): Promise<string> {
  await expect(201, { ...to, token: tokens.masters }, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'webhook-bench' }, data: { k: '' } }));
  for (const token of [tokens.cached, tokens.miss]) {
    const res = await send({ ...to, token }, 'GET', PATH);
    if (res.status !== 200) throw new Error(`the webhook bench user got ${res.status}`);
  }
  return PATH;
}

export async function measureWebhookGet(runWrk: (run: WrkRun) => Promise<WrkResult>, rounds: number, seconds: number, log: (line: string) => void): Promise<WebhookRows> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhook-'));
  const hook = await startWebhook();
  try {
    const { tokens, flags } = writeWebhookSetup(dataDir, hook);
    const port = await freePort();
    log(`Webhook: npm start with --authorization-config, then GET by system:masters and by a cached webhook user, alternating, ${rounds} rounds; then by an uncached one`);
    const server = await npmStart(dataDir, port, flags, tokens.masters);
    try {
      const path = await prepareWebhookGet({ port, ca: server.ca }, tokens);
      const callsBefore = hook.calls();
      const [masters, cached] = await alternateWithCpu(
        runWrk,
        [
          { pid: server.pid, run: { port, token: tokens.masters, mode: 'get', path } },
          { pid: server.pid, run: { port, token: tokens.cached, mode: 'get', path } },
        ],
        rounds,
        seconds,
      );
      const cachedCalls = hook.calls() - callsBefore;
      if (cachedCalls !== 0) log(`warning: the cached user's runs asked the webhook ${cachedCalls} times`);
      const missBefore = hook.calls();
      const [miss] = await alternateWithCpu(runWrk, [{ pid: server.pid, run: { port, token: tokens.miss, mode: 'get', path } }], Math.min(rounds, 3), seconds);
      const missCalls = hook.calls() - missBefore;
      return { masters, cached, miss, missCalls, missRequests: miss.reduce((n, r) => n + r.result.requests, 0) };
    } finally {
      await server.stop();
    }
  } finally {
    await hook.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

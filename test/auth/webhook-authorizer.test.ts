// The Webhook authorizer end to end: a real server with --authorization-config naming real HTTPS
// webhooks on loopback (one per failure policy), users from a token file, and RBAC after them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { Logger } from '../../runtime/server/context.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { startWebhookServer, type Answer, type Review, type WebhookServer } from '../support/webhook-server.js';
import { sample } from '../support/metrics-text.js';
import { ReviewCache } from '../../runtime/auth/webhook-authorizer.js';

const PATH = '/api/v1/namespaces/default/configmaps';
const MANY_GROUPS = Array.from({ length: 200 }, (_, i) => `group-${i}`);
const USERS = ['alice', 'bob', 'carol', 'dave', 'open-500', 'open-html', 'open-close', 'open-slow', 'open-both', 'open-huge', 'deny-hang', 'deny-500', 'deny-html', 'cel-deny', 'cel-open', 'cel-cost', 'rbac-open-500', 'rbac-deny-500'];

const userOf = (r: Review) => r.spec.user as string;

/** The webhook's behaviour per user name. */
function answerFor(review: Review): Answer {
  const user = userOf(review);
  if (user === 'alice') return { status: { allowed: true } };
  if (user === 'bob') return { status: { allowed: false, denied: true, reason: 'bob is on the deny list' } };
  if (user === 'carol') return { status: { allowed: false, reason: 'no opinion about carol', evaluationError: 'policy engine partly down' } };
  if (user.endsWith('-hang')) return { hang: true };
  if (user.endsWith('-500')) return { http: 500, body: 'boom' };
  if (user.endsWith('-html')) return { http: 200, body: '<html><body>login</body></html>' };
  if (user.endsWith('-close')) return { close: true };
  if (user.endsWith('-slow')) return { status: { allowed: true }, delayMs: 300 };
  if (user.endsWith('-huge')) return { http: 200, body: `{"status":{"allowed":true},"pad":"${'x'.repeat(11 * 1024 * 1024)}"}`, contentType: 'application/json' };
  if (user.endsWith('-both')) return { status: { allowed: true, denied: true, reason: 'confused' } };
  return { status: { allowed: true } };
}

function webhookEntry(name: string, kubeconfig: string, failurePolicy: string, conditions: string[], version = 'v1') {
  return {
    type: 'Webhook',
    name,
    webhook: {
      timeout: '1s',
      authorizedTTL: '5m',
      unauthorizedTTL: '30s',
      subjectAccessReviewVersion: version,
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy,
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
      matchConditions: conditions.map((expression) => ({ expression })),
    },
  };
}

describe('Webhook authorizer (--authorization-config)', () => {
  let dir: string;
  let hook: WebhookServer;
  let server: RunningServer;
  let admin: Credentials & { server: string };
  let configPath: string;
  let baseConfig: Record<string, unknown>;
  const logged: string[] = [];
  const logger: Logger = { debug: () => {}, info: (m) => logged.push(m), error: (m) => logged.push(m) };

  const as = (user: string, path = PATH) => call(server.url, path, { ca: admin.ca, token: `token-${user}` });
  const hitsFor = (user: string) => hook.reviews.filter((r) => userOf(r) === user).length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-authz-'));
    hook = await startWebhookServer(answerFor);
    const byCert = await hook.kubeconfig(dir, 'cert', 'cert');
    const byToken = await hook.kubeconfig(dir, 'token', 'token');
    writeFileSync(
      join(dir, 'tokens.csv'),
      USERS.map((u) => `token-${u},${u},uid-${u},"${u === 'cel-cost' ? MANY_GROUPS.join(',') : 'people'}"`).join('\n') +
        // Name and uid that run together as alice's do ("alice" + "uid-alice"): a user no webhook matches.
        '\ntoken-alice-lookalike,aliceuid-alic,e,"people"\n',
    );
    baseConfig = {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthorizationConfiguration',
      authorizers: [
        webhookEntry('people', byCert, 'NoOpinion', ["request.user in ['alice', 'bob', 'carol']"]),
        webhookEntry('fail-closed', byCert, 'Deny', ["request.user.startsWith('deny-') || request.user == 'rbac-deny-500'"]),
        webhookEntry('fail-open', byToken, 'NoOpinion', ["request.user.startsWith('open-') || request.user == 'rbac-open-500'"], 'v1beta1'),
        webhookEntry('cel-closed', byCert, 'Deny', ["request.user == 'cel-deny' || request.user == 'cel-cost'", 'request.user == "cel-cost" ? request.groups.all(a, request.groups.all(b, request.groups.all(c, a != ""))) : request.nonResourceAttributes.path == "/x"']),
        webhookEntry('cel-open', byCert, 'NoOpinion', ["request.user == 'cel-open'", "request.nonResourceAttributes.path == '/x'"]),
        { type: 'RBAC', name: 'rbac' },
      ],
    };
    configPath = join(dir, 'authz.yaml');
    writeFileSync(configPath, JSON.stringify(baseConfig));
    server = await startServer({
      storage: 'memory',
      tokenAuthFile: join(dir, 'tokens.csv'),
      authorizationConfig: configPath,
      authorizationWebhookRetryBackoff: { initialMs: 20, factor: 1.5, jitter: 0, steps: 3 },
      logger,
    });
    admin = kubeconfigCredentials(server.kubeconfig);
    // RBAC lets two users read config maps, so what their webhook's failure policy does shows.
    for (const user of ['rbac-open-500', 'rbac-deny-500']) {
      const res = await call(server.url, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', admin, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          metadata: { name: `${user}-view` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
        }),
      });
      expect(res.status).toBe(201);
    }
  });

  afterAll(async () => {
    await server?.close();
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets system:masters through without asking any webhook', async () => {
    const before = hook.reviews.length;
    expect((await call(server.url, PATH, admin)).status).toBe(200);
    expect(hook.reviews.length).toBe(before);
  });

  it('allows what the webhook allows, sending the v1 review with a client certificate, and caches the answer', async () => {
    expect((await as('alice')).status).toBe(200);
    expect(hitsFor('alice')).toBe(1);
    const review = hook.reviews.find((r) => userOf(r) === 'alice')!;
    expect(review.apiVersion).toBe('authorization.k8s.io/v1');
    expect(review.kind).toBe('SubjectAccessReview');
    expect(review.spec).toEqual({
      resourceAttributes: { namespace: 'default', verb: 'list', version: 'v1', resource: 'configmaps' },
      user: 'alice',
      groups: ['people', 'system:authenticated'],
      uid: 'uid-alice',
    });
    for (let i = 0; i < 3; i++) expect((await as('alice')).status).toBe(200);
    expect(hitsFor('alice')).toBe(1);
    // Another request is another cache key.
    expect((await as('alice', '/api/v1/namespaces/kube-system/configmaps')).status).toBe(200);
    expect(hitsFor('alice')).toBe(2);
    expect(hook.unauthenticated).toBe(0);
  });

  // The cache is read before the match conditions (they answer the same for the same spec), so
  // a spec that only resembled a cached one would skip them: each field of the key is delimited.
  it("never gives one user's cached answer to another whose fields run together the same way", async () => {
    expect((await as('alice')).status).toBe(200);
    const before = hook.reviews.length;
    const res = await as('alice-lookalike');
    expect(res.status).toBe(403);
    expect(res.json().message).toBe('configmaps is forbidden: User "aliceuid-alic" cannot list resource "configmaps" in API group "" in the namespace "default"');
    expect(hook.reviews.length).toBe(before);
    expect((await as('alice')).status).toBe(200);
  });

  // Go marshals the spec's extra map with its keys sorted, and kube's cache key is that JSON.
  it('sends and caches extras by sorted key, whatever order they came in', async () => {
    const impersonating = (order: string[]) =>
      call(server.url, PATH, admin, {
        headers: { 'impersonate-user': 'open-extras', ...Object.fromEntries(order.map((k) => [`impersonate-extra-${k}`, `v-${k}`])) },
      });
    expect((await impersonating(['zone', 'alpha', 'mid'])).status).toBe(200);
    expect(hitsFor('open-extras')).toBe(1);
    const review = hook.reviews.find((r) => userOf(r) === 'open-extras')!;
    expect(Object.keys(review.spec.extra as object)).toEqual(['alpha', 'mid', 'zone']);
    expect(review.spec.extra).toEqual({ alpha: ['v-alpha'], mid: ['v-mid'], zone: ['v-zone'] });
    expect((await impersonating(['mid', 'zone', 'alpha'])).status).toBe(200);
    expect(hitsFor('open-extras')).toBe(1);
  });

  it("denies with the webhook's reason in the 403, and caches the denial", async () => {
    const res = await as('bob');
    expect(res.status).toBe(403);
    expect(res.json().message).toBe('configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default": bob is on the deny list');
    expect((await as('bob')).status).toBe(403);
    expect(hitsFor('bob')).toBe(1);
  });

  it("passes a no-opinion answer's reason on to the 403 when nothing after it allows", async () => {
    const res = await as('carol');
    expect(res.status).toBe(403);
    expect(res.json().message).toBe('configmaps is forbidden: User "carol" cannot list resource "configmaps" in API group "" in the namespace "default": no opinion about carol');
  });

  it('skips every webhook whose match conditions are false', async () => {
    const before = hook.reviews.length;
    const res = await as('dave');
    expect(res.status).toBe(403);
    expect(hook.reviews.length).toBe(before);
    // The same request again is excluded again (remembered, not evaluated anew): still RBAC's 403.
    expect((await as('dave')).json().message).toBe('configmaps is forbidden: User "dave" cannot list resource "configmaps" in API group "" in the namespace "default"');
    expect(hook.reviews.length).toBe(before);
  });

  it('asks the webhook for a request its conditions match after one of the same user they excluded', async () => {
    const before = hook.reviews.length;
    // cel-open's webhook matches its non-resource requests to /x only.
    expect((await as('cel-open', '/y')).status).toBe(403);
    expect((await as('cel-open', '/y')).status).toBe(403);
    expect(hook.reviews.length).toBe(before);
    expect((await as('cel-open', '/x')).status).toBe(404);
    expect(hitsFor('cel-open')).toBe(1);
    expect((await as('cel-open', '/y')).status).toBe(403);
    expect(hitsFor('cel-open')).toBe(1);
  });

  it('sends v1beta1 reviews (groups as `group`) with a bearer token', async () => {
    expect((await as('open-slow')).status).toBe(200);
    const review = hook.reviews.find((r) => userOf(r) === 'open-slow')!;
    expect(review.apiVersion).toBe('authorization.k8s.io/v1beta1');
    expect(review.spec.group).toEqual(['people', 'system:authenticated']);
    expect(review.spec.groups).toBeUndefined();
  });

  it('NoOpinion: a failing webhook leaves the decision to the next authorizer, and to a 500 when none allows', async () => {
    const allowedByRbac = await as('rbac-open-500');
    expect(allowedByRbac.status).toBe(200);
    // 500 is transient for kube's client: retried, here three attempts.
    expect(hitsFor('rbac-open-500')).toBe(3);
    for (const user of ['open-500', 'open-html', 'open-close', 'open-both', 'open-huge']) {
      const res = await as(user);
      expect(res.status, user).toBe(500);
      expect(res.json().reason, user).toBe('InternalError');
    }
    expect((await as('open-html')).json().message).toMatch(/^Internal error occurred: couldn't get version\/kind; json parse error: invalid character '<'/);
    expect((await as('open-both')).json().message).toBe('Internal error occurred: webhook subject access review returned both allow and deny response');
    // Failures are not cached: each request asks again.
    const before = hitsFor('open-html');
    await as('open-html');
    expect(hitsFor('open-html')).toBe(before + 1);
  });

  it('Deny: a failing or hanging webhook denies even what RBAC would allow', async () => {
    const res = await as('rbac-deny-500');
    expect(res.status).toBe(500);
    expect(res.json().message).toMatch(/^Internal error occurred: /);
    const hung = await as('deny-hang');
    expect(hung.status).toBe(500);
    expect(hung.json().message).toMatch(/context deadline exceeded/);
    expect((await as('deny-html')).status).toBe(500);
  });

  it('match condition errors follow the failure policy; the cost budget stops comprehensions over large lists', async () => {
    const before = hook.reviews.length;
    const denied = await as('cel-deny');
    expect(denied.status).toBe(500);
    expect(denied.json().message).toMatch(/^Internal error occurred: cel evaluation error: expression 'request.user == "cel-cost" \? .*' resulted in error: no such key: nonResourceAttributes$/);
    const open = await as('cel-open');
    expect(open.status).toBe(500);
    expect(open.json().message).toContain("cel evaluation error: expression 'request.nonResourceAttributes.path == '/x'' resulted in error");
    const costly = await as('cel-cost');
    expect(costly.status).toBe(500);
    expect(costly.json().message).toContain('operation cancelled: actual cost limit exceeded');
    expect(hook.reviews.length).toBe(before);
  });

  it('keeps serving after every hostile answer', async () => {
    expect((await call(server.url, '/readyz', admin)).status).toBe(200);
    expect((await as('alice')).status).toBe(200);
  });

  it('reloads a changed file: a valid one takes effect, an invalid one keeps the last good', async () => {
    const waitFor = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 100; i++) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('timed out waiting for the reload');
    };
    // alice no longer matches the people webhook: RBAC alone decides.
    const authorizers = [...(baseConfig.authorizers as Record<string, unknown>[])];
    authorizers[0] = webhookEntry('people', (authorizers[0].webhook as { connectionInfo: { kubeConfigFile: string } }).connectionInfo.kubeConfigFile, 'NoOpinion', ["request.user in ['bob', 'carol']"]);
    writeFileSync(configPath, JSON.stringify({ ...baseConfig, authorizers }));
    await waitFor(async () => (await as('alice')).status === 403);
    expect(logged).toContain('reloaded authz config');

    // A bad file is refused and logged; the last good chain stays.
    writeFileSync(configPath, JSON.stringify({ ...baseConfig, authorizers: [{ type: 'Webhook', name: 'people', webhook: { timeout: '45s' } }, { type: 'RBAC', name: 'rbac' }] }));
    await waitFor(async () => logged.some((l) => l.startsWith('reloading authorization config: ')));
    expect(logged.find((l) => l.startsWith('reloading authorization config: '))).toContain('authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s');
    expect((await as('alice')).status).toBe(403);
    expect((await as('bob')).status).toBe(403);

    // Dropping a built-in type the server started with is refused too.
    writeFileSync(configPath, JSON.stringify({ ...baseConfig, authorizers: authorizers.slice(0, 1) }));
    await waitFor(async () => logged.some((l) => l.includes('missing required types: [RBAC]')));

    writeFileSync(configPath, JSON.stringify(baseConfig));
    await waitFor(async () => (await as('alice')).status === 200);
    expect(logged.some((l) => l.startsWith('Failed to make webhook authorizer request: '))).toBe(true);
    for (const line of logged) expect(line).not.toContain('webhook-test-token');

    // The reloads are counted in kube's metrics, by status, with the server's identity hash.
    const metrics = (await call(server.url, '/metrics', admin)).body;
    const reloads = [...metrics.matchAll(/^apiserver_authorization_config_controller_automatic_reloads_total\{status="(\w+)",apiserver_id_hash="(sha256:[0-9a-f]{64})"\} (\d+)$/gm)];
    const hash = reloads[0]?.[2] ?? '';
    expect(sample(metrics, 'apiserver_authorization_config_controller_automatic_reloads_total', { status: 'success', apiserver_id_hash: hash })).toBe(2);
    expect(sample(metrics, 'apiserver_authorization_config_controller_automatic_reloads_total', { status: 'failure', apiserver_id_hash: hash })).toBe(2);
    expect(sample(metrics, 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds', { status: 'success', apiserver_id_hash: hash })).toBeGreaterThan(Date.now() / 1000 - 600);
  });
});

// The answers' cache as kube's LRUExpireCache keeps them: a read refreshes an entry, the least
// recently used one leaves first when the cache is full, an expired entry is gone at its read.
describe('the webhook answer cache', () => {
  const answer = (reason: string) => ({ allowed: true, denied: false, reason });

  it('evicts the least recently used answer, counting reads as uses', () => {
    const cache = new ReviewCache(3);
    for (const key of ['a', 'b', 'c']) cache.set(key, answer(key), 1000);
    expect(cache.get('a', 0)?.reason).toBe('a');
    cache.set('d', answer('d'), 1000);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(['a', 'c', 'd'].map((k) => cache.get(k, 0)?.reason)).toEqual(['a', 'c', 'd']);
    // Setting a key again replaces its answer and makes it the newest.
    cache.set('a', answer('a2'), 1000);
    cache.set('e', answer('e'), 1000);
    expect(cache.get('c', 0)).toBeUndefined();
    expect(['d', 'a', 'e'].map((k) => cache.get(k, 0)?.reason)).toEqual(['d', 'a2', 'e']);
  });

  it('forgets an answer once its time is up, and frees its place', () => {
    const cache = new ReviewCache(2);
    cache.set('a', answer('a'), 100);
    cache.set('b', answer('b'), 1000);
    expect(cache.get('a', 99)?.reason).toBe('a');
    expect(cache.get('a', 100)).toBeUndefined();
    cache.set('c', answer('c'), 1000);
    expect(['b', 'c'].map((k) => cache.get(k, 100)?.reason)).toEqual(['b', 'c']);
  });
});

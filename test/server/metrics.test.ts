// /metrics over HTTPS: kube-apiserver's names, labels, help texts (with stability levels) and
// buckets; counts move with the requests sent; authorized as a non-resource URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { sample } from '../support/metrics-text.js';

function help(text: string, name: string): string | undefined {
  return text.split('\n').find((l) => l.startsWith(`# HELP ${name} `))?.slice(`# HELP ${name} `.length);
}

const GET_LABELS = { verb: 'GET', dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'resource', component: 'apiserver' };

describe('/metrics', () => {
  let server: RunningServer;
  let admin: Credentials;
  const get = (path: string, creds = admin) => call(server.url, path, creds);
  const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(server.url, path, admin, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const scrape = async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    server = await startServer({ storage: 'memory', authorizationMode: 'RBAC' });
    admin = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('is Prometheus text with kube names, help texts and stability levels', async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(help(text, 'apiserver_request_total')).toBe(
      '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    );
    expect(help(text, 'apiserver_request_duration_seconds')).toMatch(/^\[STABLE\] Response latency distribution in seconds/);
    expect(help(text, 'apiserver_response_sizes')).toMatch(/^\[STABLE\] Response size distribution in bytes/);
    expect(help(text, 'apiserver_current_inflight_requests')).toMatch(/^\[STABLE\] /);
    expect(help(text, 'apiserver_longrunning_requests')).toMatch(/^\[STABLE\] /);
    expect(help(text, 'apiserver_registered_watchers')).toBe('[ALPHA] Number of currently registered watchers for a given resources');
    expect(help(text, 'apiserver_watch_events_total')).toBe('[ALPHA] Number of events sent in watch clients');
    expect(help(text, 'apiserver_storage_objects')).toMatch(/^\[STABLE\] Number of stored objects/);
    expect(help(text, 'apiserver_requested_deprecated_apis')).toMatch(/^\[STABLE\] Gauge of deprecated APIs/);
    expect(help(text, 'apiserver_audit_event_total')).toBe('[ALPHA] Counter of audit events generated and sent to the audit backend.');
    expect(help(text, 'apiserver_authorization_decisions_total')).toMatch(/^\[ALPHA\] Total number of terminal decisions/);
    expect(text).toMatch(/^# TYPE apiserver_request_duration_seconds histogram$/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).toMatch(/^nodejs_active_handles_total /m);
    // Not the per-collection GC histogram: its observer costs the request path (process-collectors.ts).
    expect(text).not.toContain('nodejs_gc_duration_seconds');
    // Deprecated in 1.28 and hidden three minors later, without --show-hidden-metrics-for-version.
    expect(text).not.toContain('apiserver_storage_db_total_size_in_bytes');
    // Each server has its own registry: nothing is registered twice in one process.
    expect(text.match(/^# TYPE apiserver_request_total /gm)).toHaveLength(1);
  });

  it('counts requests with kube labels, verbs and codes, and their latency and size', async () => {
    const ns = '/api/v1/namespaces/default/configmaps';
    expect((await send('POST', ns, { metadata: { name: 'm1' }, data: { a: 'b' } })).status).toBe(201);
    expect((await send('POST', `${ns}?dryRun=All`, { metadata: { name: 'm2' } })).status).toBe(201);
    expect((await get(`${ns}/m1`)).status).toBe(200);
    expect((await get(`${ns}/m1`)).status).toBe(200);
    expect((await get(`${ns}/absent`)).status).toBe(404);
    expect((await get(ns)).status).toBe(200);
    expect((await get('/api/v1/configmaps')).status).toBe(200);
    expect((await send('PATCH', `${ns}/m1`, { data: { c: 'd' } }, { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    const apply = await call(server.url, `${ns}/m1?fieldManager=t`, admin, {
      method: 'PATCH',
      headers: { 'content-type': 'application/apply-patch+yaml' },
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m1\ndata:\n  e: f\n',
    });
    expect(apply.status).toBe(200);
    expect((await call(server.url, `${ns}/m1`, admin, { method: 'DELETE' })).status).toBe(200);
    expect((await get('/version')).status).toBe(200);

    const text = await scrape();
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, code: '200' })).toBe(2);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, code: '404' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'POST', code: '201' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'POST', dry_run: 'All', code: '201' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'LIST', scope: 'namespace', code: '200' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'LIST', scope: 'cluster', code: '200' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'PATCH', code: '200' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'APPLY', code: '200' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'DELETE', code: '200' })).toBe(1);
    // Non-resource requests: the path in subresource, no group, version, resource, scope or component.
    const version = { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/version', scope: '', component: '' };
    expect(sample(text, 'apiserver_request_total', { ...version, code: '200' })).toBe(1);

    expect(sample(text, 'apiserver_request_duration_seconds_count', GET_LABELS)).toBe(3);
    expect(sample(text, 'apiserver_request_duration_seconds_bucket', { ...GET_LABELS, le: '60' })).toBe(3);
    expect(sample(text, 'apiserver_request_duration_seconds_bucket', { ...GET_LABELS, le: '0.005' })).toBeDefined();
    const { dry_run: _d, ...sizeLabels } = GET_LABELS;
    expect(sample(text, 'apiserver_response_sizes_count', sizeLabels)).toBe(3);
    expect(sample(text, 'apiserver_response_sizes_bucket', { ...sizeLabels, le: '1000' })).toBe(3);
    expect(sample(text, 'apiserver_response_sizes_bucket', { ...sizeLabels, le: '10000000000' })).toBe(3);
    expect(sample(text, 'apiserver_response_sizes_sum', sizeLabels)).toBeGreaterThan(100);
    // Sizes are kept for reads only, as kube keeps them.
    const { dry_run: _p, ...postLabels } = { ...GET_LABELS, verb: 'POST' };
    expect(sample(text, 'apiserver_response_sizes_count', postLabels)).toBeUndefined();
  });

  it('counts watchers, watch events, stored objects and authorization decisions', async () => {
    const ns = '/api/v1/namespaces/default/configmaps';
    expect((await send('POST', ns, { metadata: { name: 'w1' } })).status).toBe(201);
    const watched = await get(`${ns}?watch=1&timeoutSeconds=1`);
    expect(watched.status).toBe(200);
    expect(watched.body).toContain('"ADDED"');
    const text = await scrape();
    const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
    expect(sample(text, 'apiserver_watch_events_total', gvk)).toBeGreaterThanOrEqual(1);
    // Each event sent counted once, however often the metrics are read.
    const counted = sample(text, 'apiserver_watch_events_total', gvk)!;
    const replayed = await get(`${ns}?watch=1&timeoutSeconds=1&resourceVersion=0`);
    const events = replayed.body.split('\n').filter((line) => line !== '').length;
    expect(events).toBeGreaterThanOrEqual(1);
    expect(sample(await scrape(), 'apiserver_watch_events_total', gvk)).toBe(counted + events);
    expect(sample(await scrape(), 'apiserver_watch_events_total', gvk)).toBe(counted + events);
    expect(sample(text, 'apiserver_registered_watchers', gvk)).toBe(0);
    expect(sample(text, 'apiserver_request_total', { ...GET_LABELS, verb: 'WATCH', scope: 'namespace', code: '200' })).toBe(1);
    const watchLabels = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    expect(sample(text, 'apiserver_longrunning_requests', watchLabels)).toBe(0);
    expect(sample(text, 'apiserver_storage_objects', { resource: 'configmaps' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'apiserver_storage_objects', { resource: 'clusterroles.rbac.authorization.k8s.io' })).toBeGreaterThan(10);
    expect(sample(text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })).toBeDefined();
    expect(sample(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })).toBeDefined();
  });

  it('keeps no series for resources nothing serves, so callers cannot grow /metrics', async () => {
    for (let i = 0; i < 20; i++) expect((await get(`/api/v1/namespaces/default/made-up-${i}`)).status).toBe(404);
    expect((await get('/apis/no.such.group/v1/things')).status).toBe(404);
    const text = await scrape();
    expect(text).not.toContain('made-up-');
    expect(text).not.toContain('no.such.group');
    // A missing object of a served resource is still counted, as kube counts it.
    expect((await get('/api/v1/namespaces/default/configmaps/never')).status).toBe(404);
    expect(sample(await scrape(), 'apiserver_request_total', { ...GET_LABELS, code: '404' })).toBeGreaterThanOrEqual(1);
  });

  it('sets apiserver_requested_deprecated_apis for a request to a served deprecated kind', async () => {
    expect((await get('/api/v1/namespaces/default/endpoints')).status).toBe(200);
    const text = await scrape();
    const labels = { group: '', version: 'v1', resource: 'endpoints', subresource: '', removed_release: '' };
    expect(sample(text, 'apiserver_requested_deprecated_apis', labels)).toBe(1);
    expect(help(text, 'apiserver_validation_declarative_validation_mismatch_total')).toBe(
      '[BETA] Number of times declarative validation results differed from handwritten validation results for core types.',
    );
    expect(sample(text, 'apiserver_validation_declarative_validation_mismatch_total', {})).toBe(0);
  });

  it('is allowed to system:monitoring and forbidden to other users, who leave the counts alone', async () => {
    const other = kubeconfigCredentials(await server.addUser({ name: 'nobody', groups: [] }));
    const denied = await get('/metrics', other);
    expect(denied.status).toBe(403);
    expect(denied.json<{ message: string }>().message).toBe('forbidden: User "nobody" cannot get path "/metrics"');
    const monitor = kubeconfigCredentials(await server.addUser({ name: 'prometheus', groups: ['system:monitoring'] }));
    const allowed = await get('/metrics', monitor);
    expect(allowed.status).toBe(200);
    expect(sample(allowed.body, 'apiserver_authorization_decisions_total', { type: 'RBAC', name: 'rbac', decision: 'allowed' })).toBeGreaterThanOrEqual(1);
    // The server still answers after the refusal.
    expect((await get('/api/v1/namespaces/default')).status).toBe(200);
  });
});

describe('/metrics with --show-hidden-metrics-for-version=1.32', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ storage: 'sqlite', showHiddenMetricsForVersion: '1.32' });
  });
  afterAll(() => server?.close());

  it('exports the hidden metric with its deprecation in the help', async () => {
    const res = await call(server.url, '/metrics', kubeconfigCredentials(server.kubeconfig));
    expect(res.status).toBe(200);
    expect(help(res.body, 'apiserver_storage_db_total_size_in_bytes')).toBe(
      '[ALPHA] (Deprecated since 1.28.0) Total size of the storage database file physically allocated in bytes.',
    );
    const line = res.body.split('\n').find((l) => l.startsWith('apiserver_storage_db_total_size_in_bytes{'));
    expect(Number(line?.split(' ')[1])).toBeGreaterThan(0);
  });
});

describe('startServer({ metrics: false })', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory', metrics: false });
  });
  afterAll(() => server?.close());

  it('neither records nor serves /metrics', async () => {
    const res = await call(server.url, '/metrics', kubeconfigCredentials(server.kubeconfig));
    expect(res.status).toBe(404);
    expect((await call(server.url, '/api/v1/namespaces/default', kubeconfigCredentials(server.kubeconfig))).status).toBe(200);
  });
});

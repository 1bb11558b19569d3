// The metrics of one running server, in a prom-client Registry of its own (tests run several
// servers in one process). Names, labels, help texts and buckets are kube-apiserver 1.33's
// (k8s.io/apiserver endpoints/metrics, storage/etcd3/metrics, audit, authorization metrics).
// Request series are resolved once per label combination and kept, so recording a request is a
// few map lookups and two or three number updates.

import { createHash, randomUUID } from 'node:crypto';
/// <reference path="./prom-client-collectors.d.ts" />
import type { Registry as PromRegistry } from 'prom-client';
import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';
import Registry from 'prom-client/lib/registry.js';
import { collectProcessMetrics } from './process-collectors.js';
import type { ApiMetrics, AuthorizationDecision, DeprecatedApiRequest, GroupVersionKind } from '../../machinery/metrics.js';
import { type CounterChild, CounterFamily, HistogramFamily } from './request-families.js';
import { annotatedHelp, isHidden, type MetricOptions } from './stability.js';

/** apiserver_request_duration_seconds' buckets. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** apiserver_response_sizes' buckets: 1000 times powers of ten, eight of them. */
export const RESPONSE_SIZE_BUCKETS = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

const DURATION_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const SIZE_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** Every metric this server can export; tests walk it for the stability rules. */
export const METRIC_DEFINITIONS = {
  requestTotal: {
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    stabilityLevel: 'STABLE',
  },
  requestDuration: {
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    stabilityLevel: 'STABLE',
  },
  responseSizes: {
    name: 'apiserver_response_sizes',
    help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
    stabilityLevel: 'STABLE',
  },
  currentInflight: {
    name: 'apiserver_current_inflight_requests',
    help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
    stabilityLevel: 'STABLE',
  },
  longRunning: {
    name: 'apiserver_longrunning_requests',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    stabilityLevel: 'STABLE',
  },
  registeredWatchers: {
    name: 'apiserver_registered_watchers',
    help: 'Number of currently registered watchers for a given resources',
    stabilityLevel: 'ALPHA',
  },
  watchEvents: {
    name: 'apiserver_watch_events_total',
    help: 'Number of events sent in watch clients',
    stabilityLevel: 'ALPHA',
  },
  terminatedWatchers: {
    name: 'apiserver_terminated_watchers_total',
    help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
    stabilityLevel: 'ALPHA',
  },
  storageObjects: {
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    stabilityLevel: 'STABLE',
  },
  storageDbTotalSize: {
    name: 'apiserver_storage_db_total_size_in_bytes',
    help: 'Total size of the storage database file physically allocated in bytes.',
    stabilityLevel: 'ALPHA',
    deprecatedVersion: '1.28.0',
  },
  requestedDeprecatedApis: {
    name: 'apiserver_requested_deprecated_apis',
    help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
    stabilityLevel: 'STABLE',
  },
  auditEvents: {
    name: 'apiserver_audit_event_total',
    help: 'Counter of audit events generated and sent to the audit backend.',
    stabilityLevel: 'ALPHA',
  },
  declarativeValidationMismatches: {
    name: 'apiserver_validation_declarative_validation_mismatch_total',
    help: 'Number of times declarative validation results differed from handwritten validation results for core types.',
    stabilityLevel: 'BETA',
  },
  authorizationConfigReloads: {
    name: 'apiserver_authorization_config_controller_automatic_reloads_total',
    help: 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
    stabilityLevel: 'ALPHA',
  },
  authorizationConfigReloadTimestamp: {
    name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds',
    help: 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
    stabilityLevel: 'ALPHA',
  },
  authorizationDecisions: {
    name: 'apiserver_authorization_decisions_total',
    help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    stabilityLevel: 'ALPHA',
  },
} satisfies Record<string, MetricOptions>;

export interface ServerMetricsOptions {
  /** --show-hidden-metrics-for-version was given (validated before). */
  showHidden?: boolean;
  /** Object counts per resource (`configmaps`, `roles.rbac.authorization.k8s.io`), read at scrape time. */
  objectCounts?: () => Iterable<[string, number]>;
  /** Peak requests in flight since the last scrape, by kind. */
  inflight?: () => { readOnly: number; mutating: number };
  /** Size of the store's database per endpoint, read at scrape time. */
  databaseSizes?: () => Iterable<[string, number]>;
}

/** The children of one request label combination, resolved once. */
export interface RequestSeries {
  duration: { observe(value: number): void };
  size: { observe(value: number): void } | undefined;
  byCode: Map<number, { inc(): void }>;
  labels: Record<(typeof DURATION_LABELS)[number], string>;
}

/** One kind's watch series; its events' count appears with the first event, as kube's does. */
interface WatchSeries {
  labels: Record<'group' | 'version' | 'kind', string>;
  watchers: { inc(n: number): void; dec(n: number): void };
  events: CounterChild | undefined;
}

/** A map of maps keyed by each label value in turn, so no key string is built per request. */
class LabelTree<T> {
  private readonly root = new Map<string, unknown>();
  get(values: readonly string[], make: () => T): T {
    let node = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let child = node.get(values[i]) as Map<string, unknown> | undefined;
      if (!child) node.set(values[i], (child = new Map()));
      node = child;
    }
    let leaf = node.get(values[last]) as T | undefined;
    if (leaf === undefined) node.set(values[last], (leaf = make()));
    return leaf;
  }
}

export class ServerMetrics implements ApiMetrics {
  // Typed from the package's index: the library's declarations name no module of prom-client's lib/.
  readonly registry: PromRegistry = new Registry();
  private readonly requestTotal: CounterFamily;
  private readonly requestDuration: HistogramFamily;
  private readonly responseSizes: HistogramFamily;
  private readonly currentInflight: Gauge<'request_kind'>;
  private readonly longRunning: Gauge<(typeof SIZE_LABELS)[number]>;
  private readonly registeredWatchers: Gauge<'group' | 'version' | 'kind'>;
  private readonly watchEvents: CounterFamily;
  private readonly terminatedWatchers: Counter<'group' | 'resource'>;
  private readonly requestedDeprecatedApis: Gauge<'group' | 'version' | 'resource' | 'subresource' | 'removed_release'>;
  private readonly auditEvents: Counter;
  private readonly declarativeValidationMismatches: Counter;
  private readonly authorizationConfigReloads: Counter<'status' | 'apiserver_id_hash'>;
  private readonly authorizationConfigReloadTimestamp: Gauge<'status' | 'apiserver_id_hash'>;
  /** kube labels the reload metrics with a hash of the server's identity: one per running server here. */
  private readonly apiserverIdHash = `sha256:${createHash('sha256').update(`apiserver-${randomUUID()}`).digest('hex')}`;
  private readonly decisionTotal: CounterFamily;
  /** The decision series by authorizer type, name and decision. */
  private readonly decisionSeries = new LabelTree<CounterChild>();
  private readonly series = new LabelTree<RequestSeries>();
  private lastSeries: RequestSeries | undefined;
  private readonly watchSeries = new LabelTree<WatchSeries>();
  private readonly showHidden: boolean;

  constructor(options: ServerMetricsOptions = {}) {
    this.showHidden = options.showHidden === true;
    const registers = [this.registry];
    const d = METRIC_DEFINITIONS;
    this.requestTotal = new CounterFamily(d.requestTotal.name, annotatedHelp(d.requestTotal), this.registry);
    this.requestDuration = new HistogramFamily(d.requestDuration.name, annotatedHelp(d.requestDuration), this.registry, REQUEST_DURATION_BUCKETS);
    this.responseSizes = new HistogramFamily(d.responseSizes.name, annotatedHelp(d.responseSizes), this.registry, RESPONSE_SIZE_BUCKETS);
    const inflight = options.inflight;
    this.currentInflight = new Gauge({
      ...this.meta(d.currentInflight),
      labelNames: ['request_kind'],
      registers,
      collect() {
        const peaks = inflight?.() ?? { readOnly: 0, mutating: 0 };
        this.set({ request_kind: 'readOnly' }, peaks.readOnly);
        this.set({ request_kind: 'mutating' }, peaks.mutating);
      },
    });
    this.longRunning = new Gauge({ ...this.meta(d.longRunning), labelNames: SIZE_LABELS, registers });
    this.registeredWatchers = new Gauge({ ...this.meta(d.registeredWatchers), labelNames: ['group', 'version', 'kind'], registers });
    this.watchEvents = new CounterFamily(d.watchEvents.name, annotatedHelp(d.watchEvents), this.registry);
    this.terminatedWatchers = new Counter({ ...this.meta(d.terminatedWatchers), labelNames: ['group', 'resource'], registers });
    const objectCounts = options.objectCounts;
    new Gauge({
      ...this.meta(d.storageObjects),
      labelNames: ['resource'],
      registers,
      collect() {
        if (!objectCounts) return;
        this.reset();
        for (const [resource, count] of objectCounts()) this.set({ resource }, count);
      },
    });
    if (!isHidden(d.storageDbTotalSize, this.showHidden)) {
      const sizes = options.databaseSizes;
      new Gauge({
        ...this.meta(d.storageDbTotalSize),
        labelNames: ['endpoint'],
        registers,
        collect() {
          if (!sizes) return;
          this.reset();
          for (const [endpoint, bytes] of sizes()) this.set({ endpoint }, bytes);
        },
      });
    }
    this.requestedDeprecatedApis = new Gauge({
      ...this.meta(d.requestedDeprecatedApis),
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      registers,
    });
    this.auditEvents = new Counter({ ...this.meta(d.auditEvents), registers });
    this.declarativeValidationMismatches = new Counter({ ...this.meta(d.declarativeValidationMismatches), registers });
    this.authorizationConfigReloads = new Counter({ ...this.meta(d.authorizationConfigReloads), labelNames: ['status', 'apiserver_id_hash'], registers });
    this.authorizationConfigReloadTimestamp = new Gauge({ ...this.meta(d.authorizationConfigReloadTimestamp), labelNames: ['status', 'apiserver_id_hash'], registers });
    this.decisionTotal = new CounterFamily(d.authorizationDecisions.name, annotatedHelp(d.authorizationDecisions), this.registry);
    collectProcessMetrics(this.registry);
    // kube registers the process start time through its metrics framework (ALPHA) and the other
    // process and runtime metrics as raw Prometheus collectors, whose help carries no level; the
    // Node.js runtime's metrics stand where kube's go_* do.
    const startTime = this.registry.getSingleMetric('process_start_time_seconds') as { help: string } | undefined;
    if (startTime) startTime.help = annotatedHelp({ name: 'process_start_time_seconds', help: startTime.help, stabilityLevel: 'ALPHA' });
  }

  private meta(options: MetricOptions): { name: string; help: string } {
    return { name: options.name, help: annotatedHelp(options) };
  }

  /** The series of one request label combination; the caller keeps the arguments' order. */
  requestSeries(verb: string, dryRun: string, group: string, version: string, resource: string, subresource: string, scope: string, component: string): RequestSeries {
    // Requests come in runs of the same kind (a client polling one object, a controller's
    // lists): the last series answers those with eight string comparisons, where the tree
    // hashes the eight label values of every request anew (the path's strings are new each time).
    const last = this.lastSeries;
    if (
      last !== undefined &&
      last.labels.verb === verb &&
      last.labels.resource === resource &&
      last.labels.version === version &&
      last.labels.group === group &&
      last.labels.subresource === subresource &&
      last.labels.scope === scope &&
      last.labels.dry_run === dryRun &&
      last.labels.component === component
    ) {
      return last;
    }
    return (this.lastSeries = this.seriesOf(verb, dryRun, group, version, resource, subresource, scope, component));
  }

  private seriesOf(verb: string, dryRun: string, group: string, version: string, resource: string, subresource: string, scope: string, component: string): RequestSeries {
    return this.series.get([verb, dryRun, group, version, resource, subresource, scope, component], () => {
      const labels = { verb, dry_run: dryRun, group, version, resource, subresource, scope, component };
      // kube observes response sizes of reads only.
      const sized = verb === 'GET' || verb === 'LIST';
      return {
        labels,
        duration: this.requestDuration.child(labels),
        size: sized ? this.responseSizes.child({ verb, group, version, resource, subresource, scope, component }) : undefined,
        byCode: new Map(),
      };
    });
  }

  requestDone(series: RequestSeries, code: number, seconds: number, responseBytes: number | undefined): void {
    let counter = series.byCode.get(code);
    if (!counter) series.byCode.set(code, (counter = this.requestTotal.child({ ...series.labels, code: String(code) })));
    counter.inc();
    series.duration.observe(seconds);
    if (series.size && responseBytes !== undefined) series.size.observe(responseBytes);
  }

  /** A long-running request (watch, exec, proxy) began; call the result when it ends. */
  longRunningStarted(series: RequestSeries): () => void {
    const { dry_run: _dryRun, ...labels } = series.labels;
    const gauge = this.longRunning.labels(labels);
    gauge.inc();
    return () => gauge.dec();
  }

  private watchChildren(gvk: GroupVersionKind) {
    return this.watchSeries.get([gvk.group, gvk.version, gvk.kind], () => {
      const labels = { group: gvk.group, version: gvk.version, kind: gvk.kind };
      return { labels, watchers: this.registeredWatchers.labels(labels), events: undefined };
    });
  }

  watchersChanged(gvk: GroupVersionKind, delta: number): void {
    const { watchers } = this.watchChildren(gvk);
    if (delta >= 0) watchers.inc(delta);
    else watchers.dec(-delta);
  }

  watchEventCounter(gvk: GroupVersionKind): () => void {
    // One change reaches every watcher of its kind: each event is a number's increment on the
    // kind's series (request-families.ts), where prom-client hashed the labels each time.
    const series = this.watchChildren(gvk);
    return () => (series.events ??= this.watchEvents.child(series.labels)).inc();
  }

  watcherTerminated(group: string, resource: string): void {
    this.terminatedWatchers.inc({ group, resource });
  }

  authorizationDecisions(type: string, name: string, decision: AuthorizationDecision): { inc(): void } {
    // Every request is decided: the authorizer keeps its series, few (one per configured authorizer
    // and decision), so a decision is one number's increment, where prom-client hashed three labels.
    return this.decisionSeries.get([type, name, decision], () => this.decisionTotal.child({ type, name, decision }));
  }

  deprecatedApiRequested(request: DeprecatedApiRequest): void {
    this.requestedDeprecatedApis.set({ ...request }, 1);
  }

  auditEventWritten(): void {
    this.auditEvents.inc();
  }

  declarativeValidationMismatch(): void {
    this.declarativeValidationMismatches.inc();
  }

  authorizationConfigReload(status: 'success' | 'failure', seconds: number): void {
    const labels = { status, apiserver_id_hash: this.apiserverIdHash };
    this.authorizationConfigReloads.inc(labels);
    this.authorizationConfigReloadTimestamp.set(labels, seconds);
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

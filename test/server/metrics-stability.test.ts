// component-base/metrics' rules on a table: stability levels and deprecation in the help, which
// deprecated metrics are hidden in 1.33, and kube's check of --show-hidden-metrics-for-version.
// Plus the two recording functions other features call (deprecated APIs, audit events).
import { describe, expect, it } from 'vitest';
import { startServer, ConfigurationError } from '../../runtime/index.js';
import { parseFlags } from '../../runtime/server/flags.js';
import { annotatedHelp, isHidden, validateShowHiddenMetricsVersion } from '../../runtime/server/metrics/stability.js';
import { METRIC_DEFINITIONS, ServerMetrics } from '../../runtime/server/metrics/server-metrics.js';
import { sample } from '../support/metrics-text.js';

const PREVIOUS_ONLY = "--show-hidden-metrics-for-version must be omitted or have the value '1.32'. Only the previous minor version is allowed";

describe('--show-hidden-metrics-for-version validation (kube 1.33)', () => {
  it.each([
    ['', undefined],
    ['1.32', undefined],
    ['1.33', PREVIOUS_ONLY],
    ['1.31', PREVIOUS_ONLY],
    ['1.32.0', PREVIOUS_ONLY],
    ['v1.32', PREVIOUS_ONLY],
    ['2.32', PREVIOUS_ONLY],
    ['junk', PREVIOUS_ONLY],
  ])('%j', (value, error) => {
    expect(validateShowHiddenMetricsVersion(value)).toBe(error);
  });

  it('stops the server with that message', async () => {
    await expect(startServer({ storage: 'memory', showHiddenMetricsForVersion: '1.31' })).rejects.toThrow(new ConfigurationError(PREVIOUS_ONLY));
  });

  it('is a command-line flag', () => {
    const parsed = parseFlags(['--show-hidden-metrics-for-version=1.32']);
    expect(parsed.help).toBe(false);
    expect(!parsed.help && parsed.options.showHiddenMetricsForVersion).toBe('1.32');
  });
});

describe('deprecated metrics', () => {
  const base = { name: 'x_total', help: 'Counts x.', stabilityLevel: 'STABLE' as const };
  it.each([
    [undefined, false, false],
    ['1.33.0', false, false],
    ['1.31.0', false, false],
    ['1.30.0', false, true],
    ['1.28.0', false, true],
    ['1.28.0', true, false],
    ['0.99.0', false, true],
  ])('deprecated in %s, show hidden %s: hidden %s', (deprecatedVersion, showHidden, hidden) => {
    expect(isHidden({ ...base, deprecatedVersion }, showHidden)).toBe(hidden);
  });

  it('say since when in their help, after the stability level', () => {
    expect(annotatedHelp(base)).toBe('[STABLE] Counts x.');
    expect(annotatedHelp({ ...base, stabilityLevel: 'ALPHA', deprecatedVersion: '1.31.0' })).toBe('[ALPHA] (Deprecated since 1.31.0) Counts x.');
  });

  it('include a real kube metric hidden in 1.33 (deprecated in 1.28.0)', async () => {
    expect(METRIC_DEFINITIONS.storageDbTotalSize.deprecatedVersion).toBe('1.28.0');
    const shown = new ServerMetrics({ showHidden: true, databaseSizes: () => [['db', 4096]] });
    const hidden = new ServerMetrics({ databaseSizes: () => [['db', 4096]] });
    expect(sample((await shown.render()).body, 'apiserver_storage_db_total_size_in_bytes', { endpoint: 'db' })).toBe(4096);
    expect((await hidden.render()).body).not.toContain('apiserver_storage_db_total_size_in_bytes');
  });
});

describe('stability levels in /metrics', () => {
  /** The help text of each metric family, by name. */
  const helps = (text: string) => new Map([...text.matchAll(/^# HELP (\S+) (.*)$/gm)].map((m) => [m[1], m[2]]));

  it('every apiserver metric carries its level; process and runtime metrics as kube registers them', async () => {
    const text = (await new ServerMetrics().render()).body;
    const byName = helps(text);
    const apiserver = [...byName].filter(([name]) => name.startsWith('apiserver_'));
    expect(apiserver.length).toBeGreaterThanOrEqual(Object.keys(METRIC_DEFINITIONS).length - 1);
    for (const [name, help] of apiserver) expect(help, name).toMatch(/^\[(STABLE|BETA|ALPHA)\] /);
    // kube-apiserver: "[ALPHA] Start time of the process since unix epoch in seconds."; the other
    // process metrics (and go_*, whose place the Node.js runtime's take) come from raw collectors.
    expect(byName.get('process_start_time_seconds')).toBe('[ALPHA] Start time of the process since unix epoch in seconds.');
    expect(byName.get('process_cpu_seconds_total')).toBe('Total user and system CPU time spent in seconds.');
    expect(byName.get('nodejs_heap_size_used_bytes')).toMatch(/^[A-Z]/);
  });
});

describe('recording functions for other features', () => {
  it('deprecatedApiRequested sets the gauge to 1 for its labels', async () => {
    const metrics = new ServerMetrics();
    const labels = { group: '', version: 'v1', resource: 'componentstatuses', subresource: '', removed_release: '' };
    metrics.deprecatedApiRequested(labels);
    metrics.deprecatedApiRequested(labels);
    const text = (await metrics.render()).body;
    expect(sample(text, 'apiserver_requested_deprecated_apis', labels)).toBe(1);
  });

  it('auditEventWritten counts each event', async () => {
    const metrics = new ServerMetrics();
    metrics.auditEventWritten();
    metrics.auditEventWritten();
    expect(sample((await metrics.render()).body, 'apiserver_audit_event_total', {})).toBe(2);
  });

  it('keeps each server apart', async () => {
    const a = new ServerMetrics();
    const b = new ServerMetrics();
    a.auditEventWritten();
    expect(sample((await b.render()).body, 'apiserver_audit_event_total', {})).toBe(0);
  });
});

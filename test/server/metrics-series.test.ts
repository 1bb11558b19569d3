// The request series of ServerMetrics: the last one used answers a repeat of its labels without
// the label tree, so every label must take part in telling series apart, and going back to an
// earlier combination must find its series again (its counts go on, no second series).
import { describe, expect, it } from 'vitest';
import { ServerMetrics } from '../../runtime/server/metrics/server-metrics.js';
import { sample } from '../support/metrics-text.js';

const BASE = ['GET', '', 'apps', 'v1', 'deployments', '', 'resource', 'apiserver'] as const;
const LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

describe('ServerMetrics.requestSeries', () => {
  it('gives a series of its own to labels that differ in any one label, and the same one again for a repeat', () => {
    const metrics = new ServerMetrics();
    const base = metrics.requestSeries(...BASE);
    expect(metrics.requestSeries(...BASE)).toBe(base);
    for (let i = 0; i < BASE.length; i++) {
      const values = [...BASE] as [string, string, string, string, string, string, string, string];
      values[i] = `${values[i]}-other`;
      const other = metrics.requestSeries(...values);
      expect(other, LABELS[i]).not.toBe(base);
      expect(other.labels[LABELS[i]]).toBe(values[i]);
      expect(metrics.requestSeries(...BASE), LABELS[i]).toBe(base);
      expect(metrics.requestSeries(...values), LABELS[i]).toBe(other);
    }
  });

  it('counts requests of interleaved label combinations each in its own series', async () => {
    const metrics = new ServerMetrics();
    type Labels = [string, string, string, string, string, string, string, string];
    const configmaps: Labels = ['GET', '', '', 'v1', 'configmaps', '', 'resource', 'apiserver'];
    const secrets: Labels = ['GET', '', '', 'v1', 'secrets', '', 'resource', 'apiserver'];
    for (const labels of [configmaps, configmaps, secrets, configmaps, secrets, configmaps]) metrics.requestDone(metrics.requestSeries(...labels), 200, 0.001, 10);
    const { body } = await metrics.render();
    const labels = (resource: string) => ({ verb: 'GET', dry_run: '', group: '', version: 'v1', resource, subresource: '', scope: 'resource', component: 'apiserver', code: '200' });
    expect(sample(body, 'apiserver_request_total', labels('configmaps'))).toBe(4);
    expect(sample(body, 'apiserver_request_total', labels('secrets'))).toBe(2);
  });
});

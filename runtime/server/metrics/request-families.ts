// Counter and histogram families for the request path. prom-client's own hash every label set on
// each increment; these keep a plain object per label combination (resolved once, then held by
// the caller) whose recording is a number update and, for histograms, a bucket search. The
// registry formats them at scrape time through the metric interface it reads (name, help, type,
// get()).

import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}

export class CounterChild {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(): void {
    this.value++;
  }
}

export class HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        this.counts[i]++;
        return;
      }
    }
  }
}

abstract class Family<C> {
  readonly children: C[] = [];
  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }
  abstract readonly type: string;
  abstract get(): { name: string; help: string; type: string; values: Sample[]; aggregator: string };
}

export class CounterFamily extends Family<CounterChild> {
  readonly type = 'counter';
  child(labels: Labels): CounterChild {
    const child = new CounterChild(labels);
    this.children.push(child);
    return child;
  }
  get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum', values: this.children.map((c) => ({ labels: c.labels, value: c.value })) };
  }
}

export class HistogramFamily extends Family<HistogramChild> {
  readonly type = 'histogram';
  constructor(
    name: string,
    help: string,
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    super(name, help, registry);
  }
  child(labels: Labels): HistogramChild {
    const child = new HistogramChild(labels, this.bounds);
    this.children.push(child);
    return child;
  }
  get() {
    const values: Sample[] = [];
    for (const c of this.children) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += c.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...c.labels, le: String(this.bounds[i]) }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { ...c.labels, le: '+Inf' }, value: c.count });
      values.push({ metricName: `${this.name}_sum`, labels: c.labels, value: c.sum });
      values.push({ metricName: `${this.name}_count`, labels: c.labels, value: c.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum', values };
  }
}

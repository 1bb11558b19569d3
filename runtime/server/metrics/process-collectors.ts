// The process and Node.js runtime metrics, prom-client's default collectors, all but one: the
// garbage-collection histogram (nodejs_gc_duration_seconds) observes every collection through a
// perf_hooks observer, and under load a busy server collects its young generation hundreds of
// times a second, which cost about 25 µs of CPU per GET in the bench (`BENCH_ONLY=metrics`),
// against the 5% of a GET that metrics may cost. kube's process and Go runtime collectors read
// their figures when scraped; prom-client has no scrape-time source for GC time, so that one
// histogram is left out. The collectors are prom-client's own modules, imported one by one
// because collectDefaultMetrics cannot leave one out.

/// <reference path="./prom-client-collectors.d.ts" />
import type { Registry } from 'prom-client';
import eventLoopLag from 'prom-client/lib/metrics/eventLoopLag.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';

type Collector = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

/** In prom-client's order, as collectDefaultMetrics registers them. */
const COLLECTORS: Collector[] = [
  processCpuTotal,
  processStartTime,
  osMemoryHeap,
  processOpenFileDescriptors,
  processMaxFileDescriptors,
  eventLoopLag,
  // prom-client registers it only where Node can list active resources (it can from 17).
  ...(typeof (process as { getActiveResourcesInfo?: unknown }).getActiveResourcesInfo === 'function' ? [processResources] : []),
  processHandles,
  processRequests,
  heapSizeAndUsed,
  heapSpacesSizeAndUsed,
  version,
];

export function collectProcessMetrics(registry: Registry): void {
  for (const collect of COLLECTORS) collect(registry, { eventLoopMonitoringPrecision: 10 });
}

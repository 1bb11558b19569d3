// Types of prom-client's modules imported one by one, which it ships without declarations. Each
// default collector registers its metrics in the registry given.
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';
  const collect: (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;
  export default collect;
}

// prom-client's classes from their own modules: its index also loads the push gateway (with
// zlib), the summary's t-digest, the cluster aggregator and every default collector.
declare module 'prom-client/lib/registry.js' {
  import { Registry } from 'prom-client';
  export default Registry;
}
declare module 'prom-client/lib/counter.js' {
  import { Counter } from 'prom-client';
  export default Counter;
}
declare module 'prom-client/lib/gauge.js' {
  import { Gauge } from 'prom-client';
  export default Gauge;
}

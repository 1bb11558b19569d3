// Types of prom-client's default collector modules, which it ships without declarations: each
// registers its metrics in the registry given.
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';
  const collect: (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;
  export default collect;
}

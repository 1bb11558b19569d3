import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest runs one file fewer than there are CPUs at once, so one at a time on a 2-CPU machine,
    // where most files spend their time waiting on a server, etcd or kubectl of their own: two at
    // once there took the suite from 804 to 442-453 s, every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

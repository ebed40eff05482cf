import { defineConfig } from 'vitest/config';

/**
 * unit: pure decisions, no servers. integration: one real environment per run (Kubernetes,
 * Redis, helm, chart repository), shared by all files; files run one at a time on a 2-core
 * machine so timing-sensitive tests (in-flight upgrades) are not starved.
 */
export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      // Two workers even on two cores: its slowest files wait on node processes they start.
      // Group 0 runs before the integration files (alone, one at a time), never beside them.
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], maxWorkers: 2, sequence: { groupOrder: 0 } } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          // Around every file: the namespaces it created must be on their way out when it ends.
          setupFiles: ['test/support/namespace-guard.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});

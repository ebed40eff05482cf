import { defineConfig } from 'vitest/config';

/**
 * unit: pure decisions, no servers. integration: real parts (Kubernetes, Redis, helm, chart
 * repository) in one environment per project, started by the global set-up. Its files mostly
 * wait (on helm, the API server, intervals), so two run side by side; those that need the machine
 * alone (in-flight timing, killed processes, cluster-wide freezes or CRDs, load and rate figures)
 * run after them, one at a time, in integration-serial. Workers are reused across files
 * (isolate: false): loading the client libraries once per worker instead of once per file.
 */
const SERIAL_FILES = [
  // in-flight timing: an upgrade superseded, killed or timed out mid-run; leases; watch faults
  'test/integration/superseded-upgrade.test.ts',
  'test/integration/helm-timeout.test.ts',
  'test/integration/graceful-shutdown.test.ts',
  'test/integration/remediation-crash.test.ts',
  'test/integration/crash-recovery.test.ts',
  'test/integration/notify-crash.test.ts',
  'test/integration/leader-election.test.ts',
  'test/integration/two-controllers.test.ts',
  'test/integration/watch-faults.test.ts',
  'test/integration/api-server-return.test.ts',
  'test/integration/follower-supersede.test.ts',
  // two fleet agents; a fleet freeze held "within seconds"
  'test/integration/fleet-freezes.test.ts',
  // order, fairness, rate and load figures
  'test/integration/queue-priority.test.ts',
  'test/integration/tenant-limits.test.ts',
  'test/integration/notify-slack-limits.test.ts',
  'test/integration/repository-index-load.test.ts',
  'test/integration/slack-fuzz.test.ts',
  'test/integration/freeze-windows-chat.test.ts',
  // a freeze of a few seconds that must end by itself on time (60 s timeout beside a helm-heavy file in CI)
  'test/integration/freeze-expiry.test.ts',
  // the whole cluster or the whole Redis: a freeze on everything, CRDs, a second environment, failovers
  // (image-build.test.ts runs side by side: it builds with CPU the other file's waits leave free, docs/testing.md)
  'test/integration/crd-policy.test.ts',
  'test/integration/dev-environment.test.ts',
  'test/integration/dev-fleet.test.ts',
  'test/integration/remote-target.test.ts',
  'test/integration/fleet-chat.test.ts',
  // two fleet agents and a bot: a promotion across them (heartbeats within seconds)
  'test/integration/promotion-fleet.test.ts',
  // two fleet agents and the web's pages following one of them live; `helmcrew web`'s surface over them
  'test/integration/web-fleet-live.test.ts',
  'test/integration/web-fleet-surface.test.ts',
  'test/integration/web-fleet-freezes.test.ts',
  'test/integration/web-fleet-objects.test.ts',
  'test/integration/redis-sentinel-failover.test.ts',
  'test/integration/redis-cluster-failover.test.ts',
  'test/integration/redis-wipe.test.ts',
];

const integration = {
  globalSetup: ['test/support/global-setup.ts'],
  // Around every file: the namespaces it created must be on their way out when it ends.
  setupFiles: ['test/support/namespace-guard.ts'],
  isolate: false,
  testTimeout: 180_000,
  hookTimeout: 900_000,
};

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      // Two workers even on two cores: its slowest files wait on node processes they start.
      // Group 0 runs before the integration files, never beside them. Workers are reused across
      // files (isolate: false) as in integration: importing the libraries once per worker halves
      // the project's CPU time (157 → 76 CPU-s); a test that sets process.env or timers restores them.
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], maxWorkers: 2, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: SERIAL_FILES,
          maxWorkers: 2,
          // The namespace guard then judges only the namespaces its own file created.
          env: { HELMCREW_TEST_FILES_SIDE_BY_SIDE: '1' },
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration-serial',
          include: SERIAL_FILES,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

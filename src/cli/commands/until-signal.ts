import type { Logger } from '../../core/log.js';

/**
 * Resolves after SIGTERM or SIGINT once `stop` has finished: no new work is taken and in-flight
 * work completes first. With `graceMs`, a stop still running after that long ends the process
 * with exit code 1 (helm children are killed with it; a release left pending is unlocked by the
 * next pass). The chart's terminationGracePeriodSeconds is longer than the grace, so this
 * process, not the kubelet's SIGKILL, decides when. A failed stop is logged.
 */
export function untilSignal(log: Logger, stop: () => Promise<void>, graceMs?: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      log.info({ signal, graceMs }, 'stopping: taking no new work, letting in-flight work finish');
      const timer =
        graceMs === undefined
          ? undefined
          : setTimeout(() => {
              log.error({ graceMs }, 'in-flight work did not finish within the shutdown grace period (HELMCREW_SHUTDOWN_GRACE_SECONDS); exiting');
              process.exit(1);
            }, graceMs);
      stop()
        .then(() => log.info({}, 'stopped: in-flight work finished'))
        .catch((error: Error) => log.error({ error: error.message }, 'stopping failed'))
        .finally(() => {
          clearTimeout(timer);
          resolve();
        });
    };
    // `on`, not `once`, and a second signal ignored: execa's child cleanup (signal-exit) re-raises
    // a signal that no other listener holds, which killed the process and its helm mid-upgrade.
    let stopping = false;
    const onSignal = (signal: string) => {
      if (stopping) return void log.info({ signal }, 'already stopping');
      stopping = true;
      shutdown(signal);
    };
    process.on('SIGTERM', () => onSignal('SIGTERM'));
    process.on('SIGINT', () => onSignal('SIGINT'));
  });
}

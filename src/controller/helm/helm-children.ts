/**
 * The helm processes running now, killed when the controller exits. execa's own `cleanup` does
 * the same per process, through signal-exit hooks it adds and removes at every spawn: ~0.4 ms of
 * the controller's CPU a helm run (docs/performance.md, issue 50). One exit listener for all does
 * it once. A process that exits before its grace is over (until-signal.ts) still takes helm with it,
 * so a release is never left to a helm that outlives its controller.
 */
interface Killable {
  kill(signal?: NodeJS.Signals): boolean;
}

const running = new Set<Killable>();
let listening = false;

/** Tracks `child` until `settled` ends, either way. */
export function whileRunning<T>(child: Killable, settled: Promise<T>): Promise<T> {
  if (!listening) {
    listening = true;
    process.on('exit', () => {
      for (const each of running) each.kill('SIGTERM');
    });
  }
  running.add(child);
  return settled.finally(() => running.delete(child));
}

/** When one helm process that may hold a release's lock started and exited (ms since the epoch). */
export interface HelmRunSpan {
  startedAt: number;
  exitedAt: number;
}

/** One entry per release: enough for any cluster this process serves, bounded all the same. */
const MAX_RELEASES = 50_000;

/**
 * The last lock-taking helm (install, upgrade, rollback) this process ran for each release, once it
 * has exited. A pending record made while it ran was made by it (helm refuses a second operation
 * while one is pending), so a record still pending after it exited is held by nobody — helm that
 * failed as the API server went away leaves one, and its failure may not have reached status.
 * In memory only: after a restart, or on another replica, the recorded timeout decides as before.
 */
export class ExitedHelmRuns {
  private readonly spans = new Map<string, HelmRunSpan>();

  record(release: string, span: HelmRunSpan): void {
    this.spans.delete(release);
    this.spans.set(release, span);
    if (this.spans.size > MAX_RELEASES) this.spans.delete(this.spans.keys().next().value!);
  }

  last(release: string): HelmRunSpan | undefined {
    return this.spans.get(release);
  }
}

/** The helm steps that write a pending record (and so take helm's lock on the release). */
export function takesReleaseLock(step: string): boolean {
  return step === 'install' || step === 'upgrade' || step === 'rollback';
}

/** Which step of a release operation failed; callers decide by this, never by message text. */
export type HelmStep = 'pull' | 'install' | 'upgrade' | 'uninstall' | 'rollback' | 'test' | 'other';

const STDERR_EXCERPT = 2000;

/** A helm process that failed: exit code, the end of its stderr, and whether it timed out. */
export class HelmError extends Error {
  readonly step: HelmStep;
  readonly exitCode: number | undefined;
  readonly stderrExcerpt: string;
  readonly timedOut: boolean;

  constructor(opts: { step: HelmStep; exitCode: number | undefined; stderr: string; timedOut: boolean }) {
    const excerpt = summarizeStderr(opts.stderr);
    super(opts.timedOut ? `helm ${opts.step} timed out: ${excerpt}` : `helm ${opts.step} failed: ${excerpt}`);
    this.name = 'HelmError';
    this.step = opts.step;
    this.exitCode = opts.exitCode;
    this.stderrExcerpt = excerpt;
    this.timedOut = opts.timedOut;
  }
}

/**
 * helm prints warnings before its error and details after it (a schema error lists the failing
 * fields on the next lines): keep everything from the first `Error:` line on.
 */
export function summarizeStderr(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter(Boolean);
  const firstError = lines.findIndex((line) => line.startsWith('Error:'));
  const chosen = (firstError >= 0 ? lines.slice(firstError) : lines).join(' ');
  return chosen.length > STDERR_EXCERPT ? `…${chosen.slice(-STDERR_EXCERPT)}` : chosen || '(no output)';
}

/**
 * helm was stopped on purpose because a newer spec supersedes what it was doing. Not a
 * HelmError: it is not a failure of the release, is not counted and is never remediated.
 */
export class HelmCanceledError extends Error {
  override name = 'HelmCanceledError';
  constructor(readonly step: HelmStep) {
    super(`helm ${step} was cancelled: a newer spec supersedes it`);
  }
}

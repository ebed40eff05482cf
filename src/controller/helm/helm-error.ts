/** Which step of a release operation failed; callers decide by this, never by message text. */
export type HelmStep = 'pull' | 'install' | 'upgrade' | 'uninstall' | 'rollback' | 'test' | 'dry-run' | 'other';

/** How a helm process ended, for metrics: a closed set. */
export type HelmResult = 'success' | 'failure' | 'timeout' | 'canceled';

const STDERR_EXCERPT = 2000;

/** What helm was doing when its time ran out, for people. */
const WAITING_FOR: Record<HelmStep, string> = {
  pull: 'downloading the chart',
  install: 'waiting for the release\'s resources to become ready',
  upgrade: 'waiting for the release\'s resources to become ready',
  uninstall: 'waiting for the release\'s resources to be deleted',
  rollback: 'waiting for the rolled-back resources to become ready',
  test: 'waiting for the test pods',
  'dry-run': 'rendering the release against the API server',
  other: 'running',
};

/** A request the API server refused to helm's identity (RBAC), as Kubernetes words it. */
export interface ForbiddenRequest {
  user: string;
  verb: string;
  /** `clusterrolebindings.rbac.authorization.k8s.io`, `pods` (the core group has no suffix). */
  resource: string;
  /** The namespace the request was in; undefined: at the cluster scope. */
  namespace?: string;
}

/**
 * Pure: the first RBAC refusal in helm's output — the API server's own fixed sentence, the one
 * place helm's words are read for a decision (helm passes it on verbatim and has no exit code for it).
 */
export function parseForbidden(stderr: string): ForbiddenRequest | undefined {
  const m = /User "([^"]+)" cannot ([a-z]+) resource "([^"]+)" in API group "([^"]*)" (?:at the cluster scope|in the namespace "([^"]+)")/.exec(stderr);
  if (!m) return undefined;
  const [, user, verb, resource, group, namespace] = m;
  return { user: user!, verb: verb!, resource: group ? `${resource}.${group}` : resource!, ...(namespace ? { namespace } : {}) };
}

/** A helm process that failed: exit code, the end of its stderr, and whether it timed out. */
export class HelmError extends Error {
  readonly step: HelmStep;
  readonly exitCode: number | undefined;
  readonly stderrExcerpt: string;
  readonly timedOut: boolean;
  /** helm's own --timeout (or the kill deadline), when the step had one. */
  readonly timeoutSeconds: number | undefined;
  /** The API server refused helm's identity a request (RBAC); undefined for any other failure. */
  readonly forbidden: ForbiddenRequest | undefined;
  /** The end of helm's stderr, lines kept (redacted by the runner): what a caller reads beyond the Error: line. */
  readonly stderrTail: string;

  constructor(opts: { step: HelmStep; exitCode: number | undefined; stderr: string; timedOut: boolean; timeoutSeconds?: number }) {
    const excerpt = summarizeStderr(opts.stderr);
    super(`helm ${opts.step} ${describeHelmOutcome({ ...opts, excerpt })}`);
    this.name = 'HelmError';
    this.step = opts.step;
    this.exitCode = opts.exitCode;
    this.stderrExcerpt = excerpt;
    this.timedOut = opts.timedOut;
    this.timeoutSeconds = opts.timeoutSeconds;
    this.forbidden = opts.timedOut ? undefined : parseForbidden(opts.stderr);
    this.stderrTail = opts.stderr.slice(-4 * STDERR_EXCERPT);
  }

  /** "failed: <helm's words>" or "timed out after 3s waiting for …": what follows "helm install". */
  get outcome(): string {
    return describeHelmOutcome({ step: this.step, timedOut: this.timedOut, timeoutSeconds: this.timeoutSeconds, excerpt: this.stderrExcerpt });
  }
}

/** Pure: the words after "Helm install of X": a timeout says so, how long, and on what. */
export function describeHelmOutcome(o: { step: HelmStep; timedOut: boolean; timeoutSeconds?: number; excerpt: string }): string {
  if (!o.timedOut) return `failed: ${o.excerpt}`;
  const after = o.timeoutSeconds !== undefined ? ` after ${o.timeoutSeconds}s` : '';
  const said = o.excerpt && o.excerpt !== NO_OUTPUT ? `; helm said: ${o.excerpt}` : '';
  return `timed out${after} ${WAITING_FOR[o.step]} (spec.timeout)${said}`;
}

/**
 * Pure: did helm run out of time? Either the kill deadline fired, or it failed only once its
 * own --timeout had passed (helm 4 may then exit with no output at all).
 */
export function helmTimedOut(o: { killed: boolean; durationMs: number; timeoutSeconds?: number }): boolean {
  if (o.killed) return true;
  return o.timeoutSeconds !== undefined && o.durationMs >= o.timeoutSeconds * 1000;
}

const NO_OUTPUT = '(no output)';

/**
 * helm prints warnings before its error and details after it (a schema error lists the failing
 * fields on the next lines): keep everything from the first `Error:` line on.
 */
export function summarizeStderr(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter(Boolean);
  const firstError = lines.findIndex((line) => line.startsWith('Error:'));
  const chosen = (firstError >= 0 ? lines.slice(firstError) : lines).join(' ');
  return chosen.length > STDERR_EXCERPT ? `…${chosen.slice(-STDERR_EXCERPT)}` : chosen || NO_OUTPUT;
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

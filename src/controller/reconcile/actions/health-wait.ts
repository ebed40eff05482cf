import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseWritten } from '../../../core/helm-storage/release-written.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { HelmCanceledError, HelmError } from '../../helm/helm-error.js';
import { manifestObjects } from '../../drift/manifest-objects.js';
import { compileHealthChecks, judgeRelease, objectsToJudge, type ReleaseHealth } from '../decide/health-check-decision.js';
import type { PassContext } from '../ports/context.js';

/** How soon the objects are read again while waiting: quick at first, then every 2 s (helm's own watcher polls about as often). */
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 2000;

/**
 * After helm's own wait, the release's objects that spec.healthCheckExprs judge are read (as the
 * release's identity) until every one is current, within what is left of the action's timeout, so
 * the attempt succeeds only then (Flux v1.5 judges them inside helm's wait). A failed object or
 * the timeout fails the attempt like a helm failure (counted, remediated); a newer generation
 * cancels the wait like helm itself.
 */
export async function waitForHealth(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  step: 'install' | 'upgrade',
  written: ReleaseWritten,
  startedAt: Date,
  signal: AbortSignal | undefined,
): Promise<void> {
  const options = target.actions[step];
  const compiled = compileHealthChecks(release.spec.healthCheckExprs);
  if (!options.wait || !compiled.ok || compiled.checks.length === 0) return;
  const said = written.release?.manifest;
  const manifest = typeof said === 'string' ? said : ((await ctx.storage.history(target.namespace, target.releaseName)).latest?.manifest ?? '');
  const refs = objectsToJudge(compiled.checks, manifestObjects(manifest, { name: target.releaseName, namespace: target.namespace }), target.namespace);
  if (refs.length === 0) return;
  const reader = ctx.releaseObjects;
  const deadline = startedAt.getTime() + options.timeoutSeconds * 1000;
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  let pollMs = FIRST_POLL_MS;
  for (;;) {
    if (signal?.aborted) throw new HelmCanceledError(step);
    const found = await Promise.all(
      refs.map(async (ref) => ({ ref, found: reader ? await reader.read(ref) : ({ kind: 'unreadable', message: 'no object reader' } as const) })),
    );
    const health = judgeRelease(compiled.checks, found);
    if (health.kind === 'current') {
      ctx.log.info({ release: key, action: 'health-check', objects: refs.length }, 'healthCheckExprs: every judged object is current');
      return;
    }
    if (health.kind === 'failed') throw healthFailure(step, health, false, options.timeoutSeconds);
    const left = deadline - ctx.now().getTime();
    if (left <= 0) throw healthFailure(step, health, true, options.timeoutSeconds);
    await pause(Math.min(pollMs, left), signal);
    pollMs = Math.min(MAX_POLL_MS, pollMs * 2);
  }
}

export function healthFailure(
  step: 'install' | 'upgrade',
  health: Exclude<ReleaseHealth, { kind: 'current' }>,
  timedOut: boolean,
  timeoutSeconds: number,
): HelmError {
  const said = health.kind === 'failed' ? `failed: ${health.failed.join('; ')}` : `still in progress: ${health.waiting.join('; ')}`;
  return new HelmError({ step, exitCode: undefined, stderr: `healthCheckExprs: ${said}`, timedOut, timeoutSeconds });
}

/** Waits, or stops at once when the attempt is cancelled (the loop then throws HelmCanceledError). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import type { HelmError } from '../../helm/helm-error.js';
import { manifestObjects } from '../../drift/manifest-objects.js';
import { compileHealthChecks, judgeRelease, objectsToJudge } from '../decide/health-check-decision.js';
import type { PassContext } from '../ports/context.js';
import { healthFailure } from './health-wait.js';

/** How often the objects are read while helm waits: helm's own watcher polls about as often. */
const POLL_MS = 1000;

export interface HealthDuringHelm {
  /** Aborted when an object is judged failed: helm's cancel signal for this run, with the operation's. */
  signal: AbortSignal;
  /** The failure that stopped helm, once one did. */
  failure(): HelmError | undefined;
  /** Helm is done: no more reads. */
  stop(): void;
}

/**
 * spec.healthCheckExprs judged while helm still waits (waitForHealth judges after it). helm's
 * wait knows nothing of the expressions, so an object that fails meanwhile would hold helm to its
 * `--timeout`; Flux's poller judges inside the wait. helm writes its record (pending-install or
 * pending-upgrade, with the manifest) before it applies, so the objects to judge are read from
 * that record; once one is judged failed, helm is stopped (`signal`) and the attempt fails with
 * the expression, as it would after helm. Only `failed` is acted on here: `current` and the
 * timeout stay helm's and then waitForHealth's to decide. Undefined when there is nothing to judge.
 */
export function judgeWhileHelmWaits(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  step: 'install' | 'upgrade',
  /** Helm's newest revision before this run: a record above it is this run's. */
  revisionBefore: number | undefined,
  operationSignal: AbortSignal | undefined,
): HealthDuringHelm | undefined {
  const options = target.actions[step];
  const compiled = compileHealthChecks(release.spec.healthCheckExprs);
  const reader = ctx.releaseObjects;
  if (!options.wait || !compiled.ok || compiled.checks.length === 0 || !reader) return undefined;
  const stopHelm = new AbortController();
  const signal = operationSignal ? AbortSignal.any([operationSignal, stopHelm.signal]) : stopHelm.signal;
  let failure: HelmError | undefined;
  let stopped = false;
  let refs: ReturnType<typeof objectsToJudge> | undefined;
  const key = `${release.metadata.namespace}/${release.metadata.name}`;

  const judgeOnce = async (): Promise<void> => {
    if (!refs) {
      const latest = (await ctx.storage.history(target.namespace, target.releaseName)).latest;
      const ours = latest && (revisionBefore === undefined || latest.revision > revisionBefore) && latest.status.startsWith('pending-');
      if (!ours || typeof latest.manifest !== 'string') return;
      refs = objectsToJudge(compiled.checks, manifestObjects(latest.manifest, { name: target.releaseName, namespace: target.namespace }), target.namespace);
    }
    if (refs.length === 0) return;
    const found = await Promise.all(refs.map(async (ref) => ({ ref, found: await reader.read(ref) })));
    const health = judgeRelease(compiled.checks, found);
    if (health.kind !== 'failed' || stopped) return;
    failure = healthFailure(step, health, false, options.timeoutSeconds);
    ctx.log.warn({ release: key, action: 'health-check', failed: health.failed }, 'healthCheckExprs: an object failed while helm waited; stopping helm');
    stopHelm.abort(failure);
  };

  const loop = async (): Promise<void> => {
    while (!stopped && !failure) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref());
      if (stopped) return;
      // A read that fails (the API server busy) leaves the verdict to helm and waitForHealth.
      await judgeOnce().catch((error: unknown) =>
        ctx.log.debug({ release: key, error: (error as Error).message }, 'healthCheckExprs: could not judge while helm waits'),
      );
    }
  };
  void loop();
  return {
    signal,
    failure: () => failure,
    stop: () => {
      stopped = true;
    },
  };
}

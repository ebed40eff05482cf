import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { identityRefusalMessage } from '../decide/identity-refusal.js';
import type { ReleaseWritten } from '../../../core/helm-storage/release-written.js';
import type { ReleaseRequest } from '../../helm/helm-client.js';
import { HelmCanceledError, HelmError, type ForbiddenRequest } from '../../helm/helm-error.js';
import { CrdPolicyError } from '../../crds/crd-applier.js';
import type { ReleaseHistory } from '../../../core/helm-storage/release-storage.js';
import type { EventDetails } from '../../../core/events/release-event-sink.js';
import { attemptStartedStatus, failedStatus, succeededStatus } from '../../status/release-status.js';
import { withTestsPending } from '../../status/test-status.js';
import type { PassContext } from '../ports/context.js';
import { redactSecrets } from '../decide/redact.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { failureIsFinal, remediationPolicy } from '../decide/remediation-decision.js';
import { testsWanted } from '../decide/test-decision.js';
import { settledKey } from '../decide/settled-records.js';
import { checkNeedsManifest } from '../stages/settled-check.js';
import { applyChartCrds } from './chart-crds.js';
import { withInventory } from '../decide/inventory.js';
import { releaseRequest } from '../desired/helm-requests.js';
import { eventImages } from '../../../core/release/deployed-images.js';
import { readableValues } from '../../drift/manifest-objects.js';
import { outlineDocuments } from '../../drift/manifest-outline.js';
import { pullChart } from './pull-chart.js';
import { waitForHealth } from './health-wait.js';
import { judgeWhileHelmWaits } from './health-during-helm.js';
import { frozenMeanwhile, FrozenMeanwhile } from './frozen-meanwhile.js';
import { attemptSupersedable, HandedBack, reportSuperseded, type AttemptOutcome } from './supersedable-attempt.js';

/** What tells an install from an upgrade; the attempt around helm is the same (runReleaseAttempt). */
export interface ReleaseAttempt {
  action: 'install' | 'upgrade';
  /** How the "attempt started" status names it (a reinstall counts as an install). */
  mode: 'install' | 'reinstall' | 'upgrade';
  events: { started: ReleaseEvent; succeeded: ReleaseEvent; failed: ReleaseEvent };
  /** For the Events and notifications; `action` and `attempt` are added. */
  details: EventDetails;
  startedMessage: string;
  /** "Install of unicorn@2.0.0": how a cancelled attempt is named. */
  what: string;
  failedMessage: (outcome: string, history: ReleaseHistory) => string;
  succeededMessage: (revision: number | undefined) => string;
  /**
   * Helm's records as read before this pass acted; the new one is added to them after helm.
   * undefined when helm changes more than that (a reinstall uninstalls first): read afterwards.
   */
  before: ReleaseHistory | undefined;
  run: (request: ReleaseRequest, cancelSignal: AbortSignal | undefined) => Promise<ReleaseWritten>;
}

/**
 * One install or upgrade: the chart, the "attempt started" record, helm (which a newer generation
 * may cancel), then the outcome as status, Event and notification. A failure is counted towards
 * the remediation policy's retries.
 */
export async function runReleaseAttempt(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  attempt: ReleaseAttempt,
): Promise<AttemptOutcome> {
  const chartPath = await pullChart(ctx, release, target, desired);
  const request = releaseRequest(release, target, desired, chartPath, attempt.action, attempt.before?.latest?.applyMethod);
  const startedAt = ctx.now();
  const details = { ...attempt.details, action: attempt.action, attempt: startedAt.getTime().toString(36) };
  const started = attemptStartedStatus(release, target, desired, attempt.mode, startedAt);
  const attempted: HelmRelease = { ...release, status: { ...release.status, ...started } };
  const announce = () => ctx.effects().events.record(release, attempt.events.started, attempt.startedMessage, details);
  let written: ReleaseWritten;
  try {
    written = await attemptSupersedable(ctx, release, target, { step: attempt.action, started, announce }, async (cancelSignal, waited) => {
      // The helm slot is this release's now: helm's --timeout, and the health checks' share of it, run from here, not from before a wait for the slot.
      const helmFrom = ctx.now();
      if (waited && (await frozenMeanwhile(ctx, release, attempt.action))) throw new FrozenMeanwhile();
      await applyChartCrds(ctx, release, target, request, attempt.action);
      const judging = judgeWhileHelmWaits(ctx, release, target, attempt.action, attempt.before?.latest?.revision, cancelSignal);
      let ran: ReleaseWritten;
      try {
        ran = await attempt.run(request, judging?.signal ?? cancelSignal);
      } catch (error) {
        // Stopped for a failed object, not for a newer generation: the expression is the failure.
        const failure = judging?.failure();
        if (error instanceof HelmCanceledError && failure && !cancelSignal?.aborted) throw failure;
        throw error;
      } finally {
        judging?.stop();
      }
      await waitForHealth(ctx, release, target, attempt.action, ran, helmFrom, cancelSignal);
      return ran;
    });
  } catch (error) {
    if (error instanceof HandedBack) return 'handed-back';
    if (error instanceof FrozenMeanwhile) {
      ctx.log.info({ release: target.key, action: attempt.action }, 'a freeze came while waiting for a helm slot: held before helm');
      return 'frozen';
    }
    if (error instanceof HelmCanceledError) return reportSuperseded(ctx, release, attempt.what);
    if (!(error instanceof HelmError)) throw error;
    // Record what Helm really wrote (a failed revision), even though the action failed.
    const history = await ctx.storage.history(target.namespace, target.releaseName);
    // An RBAC refusal names who was refused what and how to allow it, not helm's stack of errors.
    const refused = error.forbidden;
    const event = refused ? ReleaseEvent.IdentityForbidden : attempt.events.failed;
    const said = refused ? refusedMessage(attempt.what, target.identity, refused, error) : attempt.failedMessage(error.outcome, history);
    // helm's output is redacted as it is read; this guards the whole message as formed.
    const message = redactSecrets(said, desired.secrets);
    const failures = ((attempt.action === 'install' ? started.installFailures : started.upgradeFailures) ?? 0) + 1;
    const final = failureIsFinal(remediationPolicy(release.spec, attempt.action), failures);
    await ctx.status.write(release, failedStatus(attempted, event, message, history, ctx.now(), { final, counter: attempt.action }));
    await ctx.effects().events.record(release, event, message, {
      ...details,
      revision: history.latest?.revision,
      errorExcerpt: redactSecrets(error.stderrExcerpt, desired.secrets),
    });
    return final ? 'failed-final' : 'failed';
  }
  const history = await ctx.storage.afterWrite(target.namespace, target.releaseName, attempt.before, written, {
    labels: request.labels,
    maxHistory: attempt.action === 'upgrade' ? request.maxHistory : 0,
  });
  const revision = history.deployed?.revision ?? history.latest?.revision;
  const message = attempt.succeededMessage(revision);
  // The manifest helm wrote, read once for the inventory and the Event's images (only what they read: manifest-outline.ts).
  const manifest = history.deployed?.manifest;
  const documents = manifest === undefined ? undefined : outlineDocuments(manifest);
  const succeeded = withInventory(succeededStatus(attempted, attempt.events.succeeded, message, history, ctx.now()), documents, {
    name: target.releaseName,
    namespace: target.namespace,
  });
  // Independent writes: the status and the Event (with notify) go out together.
  const [statusWritten] = await Promise.all([
    ctx.status.write(release, testsWanted(release) ? withTestsPending(succeeded, release, ctx.now()) : succeeded),
    ctx.effects().events.record(release, attempt.events.succeeded, message, {
      ...details,
      revision,
      ...eventImages(documents && readableValues(documents)),
    }),
  ]);
  // helm has exited and its status is written: the next check may take this history for a read
  // (bindWritten), unless that check reads the manifest anyway (drift): then nothing is kept.
  const writtenBefore = statusWritten.metadata.resourceVersion;
  if (writtenBefore && !checkNeedsManifest(release)) ctx.settled?.rememberWritten(settledKey(target), history, writtenBefore);
  return 'succeeded';
}

/**
 * An RBAC refusal in words: who may not do what, and how to allow it. helmcrew's own CRD step
 * says which CRD and which install.crds/upgrade.crds policy, in one line of its own: kept.
 */
function refusedMessage(what: string, identity: ReleaseTarget['identity'], refused: ForbiddenRequest, error: HelmError): string {
  const said = identityRefusalMessage(what, identity, refused);
  return error instanceof CrdPolicyError ? `${said} (${error.stderrExcerpt})` : said;
}

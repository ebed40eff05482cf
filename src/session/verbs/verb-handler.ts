import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import type { IntentPatch } from '../../core/kube/helmrelease-api.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import type { CommandOf } from '../grammar/command.js';
import type { Actor } from '../plan/actor.js';
import type { Plan } from '../plan/plan-shape.js';
import type { SingleReleaseVerb } from '../plan/verb-kinds.js';

/**
 * What one verb on one release does, written once for every surface (Slack, terminal, web, and
 * assistants' proposals): its plan, the intent it writes, how its outcome is read back from status,
 * and how the audit names it. The verb's row in src/api/release-verbs.ts says how it is typed,
 * who may use it and which annotations it writes; this says what it means. A new verb is its row,
 * a file like the ones beside this, and a line in handlers.ts.
 */

/** What a plan is made from: the command, the release and Helm's history as read, and the controller's preview when asked for. */
export interface PlanInput<V extends SingleReleaseVerb> {
  command: CommandOf<V>;
  release: HelmRelease;
  history: ReleaseHistory;
  preview?: PreviewResult;
  /** `namespace/name`. */
  key: string;
  /** "revision 3 (unicorn 2.0.0, app 2.0) is deployed", or that nothing is. */
  deployedNow: string;
  /** `reason: …` when one was given. */
  why: string[];
}

/** What an intent is made from: who asked, when, and the request id the controller handles once (for verbs whose row names a prefix). */
export interface IntentInput<V extends SingleReleaseVerb> {
  command: CommandOf<V>;
  actor: Actor;
  now: Date;
  requestId: string | undefined;
}

/** What a verb's outcome is, read from the release's status. */
export interface Outcome {
  done: boolean;
  succeeded: boolean;
  message: string;
}

export interface ReleaseVerbHandler<V extends SingleReleaseVerb> {
  /** Pure: what it will change, in words; not doable (and why) when there is nothing to do. Freezes are added around it. */
  plan(input: PlanInput<V>): Plan;
  /** Pure: the merge patch on the HelmRelease that asks the controller for it (only intent annotations, spec.suspend, spec.chart.version). */
  intent(input: IntentInput<V>): IntentPatch;
  /** Pure: has the controller acted on it yet, and how did it go (read from status only). `pending` is the not-yet answer. */
  outcome(release: HelmRelease, requestId: string | undefined, pending: Outcome, key: string): Outcome;
  /** The audit's words for it ("rollback of web/unicorn to 3"); default `<verb> of <key>`. */
  audit?(command: CommandOf<V>, key: string): string;
}

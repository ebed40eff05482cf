import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseHistory, StoredRelease } from '../../core/helm-storage/release-storage.js';
import { RELEASE_VERBS, type VerbRow } from '../../api/release-verbs.js';
import type { MutatingCommand } from '../grammar/command.js';
import { handlerOf } from '../verbs/handlers.js';
import type { PlanInput, ReleaseVerbHandler } from '../verbs/verb-handler.js';
import type { Plan } from './plan-shape.js';
import type { SingleReleaseVerb } from './verb-kinds.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import { describeHolding, type HoldingFreeze } from '../../core/release/freeze-match.js';
import { gitOpsWarning } from '../../core/release/gitops-owner.js';

/**
 * Pure: what a mutating command will change, in words, before anyone confirms it. A plan that
 * cannot be carried out (no earlier revision, already suspended) says so and cannot be confirmed.
 */

export type { Plan } from './plan-shape.js';

const describe = (r: StoredRelease) => `revision ${r.revision} (${r.chartName} ${r.chartVersion}${r.appVersion ? `, app ${r.appVersion}` : ''})`;
const keyOf = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;
type SingleReleaseCommand = Exclude<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>;
/** A freeze can be broken through for the verbs whose row takes --break-glass (two people approve). */
const takesBreakGlass = (verb: SingleReleaseVerb) => ((RELEASE_VERBS[verb] as VerbRow).flags as readonly string[]).includes('--break-glass');

/**
 * A release command's plan, with what active freezes mean for it: a helm action they hold waits
 * for their end unless two people break the glass (`--break-glass`). `preview` is the
 * controller's answer to "what would the spec (at this version) change" (core/preview): given
 * for upgrade and resume. A rollback's change is read from Helm's records.
 */
export function planReleaseCommand(
  command: SingleReleaseCommand,
  release: HelmRelease,
  history: ReleaseHistory,
  holding: readonly HoldingFreeze[] = [],
  preview?: PreviewResult,
): Plan {
  const plan = planWithoutFreezes(command, release, history, preview);
  const gitops = command.verb === 'upgrade' ? undefined : gitOpsWarning(release);
  const withGitOps = gitops && plan.doable ? { ...plan, warnings: [...plan.warnings, gitops] } : plan;
  if (holding.length === 0 || command.verb === 'suspend' || !plan.doable) {
    return 'breakGlass' in command && command.breakGlass
      ? { ...withGitOps, lines: [...withGitOps.lines, 'no freeze holds this release: --break-glass changes nothing'] }
      : withGitOps;
  }
  const freezes = describeHolding(holding);
  if ('breakGlass' in command && command.breakGlass) {
    const title = `${withGitOps.title} (BREAK-GLASS through freeze ${holding.map((f) => f.name).join(', ')})`;
    return { ...withGitOps, title, lines: [...withGitOps.lines, `BREAK-GLASS through ${freezes}: a second person must approve; audited`] };
  }
  const hint = takesBreakGlass(command.verb) ? '; add --break-glass to go through it now (a second person must approve)' : '';
  return { ...withGitOps, warnings: [...withGitOps.warnings, `held by ${freezes}: the controller does this when the freeze ends${hint}`] };
}

function planWithoutFreezes(command: SingleReleaseCommand, release: HelmRelease, history: ReleaseHistory, preview: PreviewResult | undefined): Plan {
  const deployed = history.deployed;
  const input = {
    command,
    release,
    history,
    ...(preview ? { preview } : {}),
    key: keyOf(release),
    deployedNow: deployed ? `${describe(deployed)} is deployed` : 'nothing is deployed',
    why: command.reason ? [`reason: ${command.reason}`] : [],
  };
  // One call through the verb's own handler (session/verbs/): the table's row says the command's shape, the handler its plan.
  return (handlerOf(command.verb) as ReleaseVerbHandler<SingleReleaseVerb>).plan(input as PlanInput<SingleReleaseVerb>);
}

export { previewLines } from './preview-lines.js';

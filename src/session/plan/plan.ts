import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType } from '../../api/vocabulary.js';
import type { ReleaseHistory, StoredRelease } from '../../core/helm-storage/release-storage.js';
import { chooseRollbackRevision } from '../../core/release/rollback-decision.js';
import type { MutatingCommand } from '../grammar/command.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import { readableDiff } from '../../core/release/readable-diff.js';
import { summarizeReadableDiff } from '../../core/release/readable-diff-text.js';
import { describeHolding, type HoldingFreeze } from '../../core/release/freeze-match.js';
import { gitOpsWarning } from '../../core/release/gitops-owner.js';
import { diffValues, summarizeValuesDifference } from './values-diff.js';

/**
 * Pure: what a mutating command will change, in words, before anyone confirms it. A plan that
 * cannot be carried out (no earlier revision, already suspended) says so and cannot be confirmed.
 */

export interface Plan {
  /** One line: the action on the release(s). */
  title: string;
  lines: string[];
  warnings: string[];
  /** False when there is nothing to confirm: `lines` say why. */
  doable: boolean;
  /** What a long object diff left out of `lines`: posted in a thread under the plan. */
  more?: string[];
}

const describe = (r: StoredRelease) => `revision ${r.revision} (${r.chartName} ${r.chartVersion}${r.appVersion ? `, app ${r.appVersion}` : ''})`;
const keyOf = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;

/**
 * A release command's plan, with what active freezes mean for it: a helm action they hold waits
 * for their end unless two people break the glass (`--break-glass`). `preview` is the
 * controller's answer to "what would the spec (at this version) change" (core/preview): given
 * for upgrade and resume. A rollback's change is read from Helm's records.
 */
export function planReleaseCommand(
  command: Exclude<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>,
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
  const hint =
    command.verb === 'resume' || command.verb === 'retry' || command.verb === 'test'
      ? ''
      : '; add --break-glass to go through it now (a second person must approve)';
  return { ...withGitOps, warnings: [...withGitOps.warnings, `held by ${freezes}: the controller does this when the freeze ends${hint}`] };
}

function planWithoutFreezes(
  command: Exclude<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>,
  release: HelmRelease,
  history: ReleaseHistory,
  preview: PreviewResult | undefined,
): Plan {
  const key = keyOf(release);
  const deployed = history.deployed;
  const now = deployed ? `${describe(deployed)} is deployed` : 'nothing is deployed';
  const why = command.reason ? [`reason: ${command.reason}`] : [];
  switch (command.verb) {
    case 'suspend':
      if (release.spec.suspend) return { title: `suspend ${key}`, lines: [`${key} is already suspended`], warnings: [], doable: false };
      return { title: `suspend ${key}`, lines: [`the controller stops acting on ${key} until resume`, now, ...why], warnings: [], doable: true };
    case 'resume': {
      if (!release.spec.suspend) return { title: `resume ${key}`, lines: [`${key} is not suspended`], warnings: [], doable: false };
      const declared = `${release.spec.chart.name} ${release.spec.chart.version ?? '(newest)'}`;
      const differs = deployed && deployed.chartVersion !== release.spec.chart.version;
      return {
        title: `resume ${key}`,
        lines: [
          `back to the declared spec: ${declared}`,
          now,
          ...(differs ? [`the controller will upgrade ${deployed.chartVersion} → ${release.spec.chart.version}`] : []),
          ...previewLines(preview),
          ...why,
        ],
        warnings: [],
        doable: true,
        ...previewMore(preview),
      };
    }
    case 'upgrade': {
      const gitops = gitOpsWarning(release);
      return {
        title: `upgrade ${key} to ${command.version}`,
        lines: [
          `spec.chart.version: ${release.spec.chart.version ?? '(newest)'} → ${command.version}`,
          now,
          ...(release.spec.suspend ? ['the release is suspended: the controller upgrades on resume'] : []),
          ...previewLines(preview),
          ...why,
        ],
        warnings: gitops ? [gitops] : [],
        doable: release.spec.chart.version !== command.version,
        ...previewMore(preview),
      };
    }
    case 'retry': {
      const title = `retry ${key}`;
      if (release.spec.suspend) return { title, lines: [`${key} is suspended: resume it instead`], warnings: [], doable: false };
      const ready = release.status?.conditions?.find((c) => c.type === ConditionType.Ready);
      const failed = release.status?.lastAttemptFailed === true;
      return {
        title: `retry ${key}: one forced ${deployed ? 'upgrade' : 'install'} of the current spec`,
        lines: [
          now,
          failed ? `the last attempt failed: ${ready?.message ?? ''}` : 'the release is not failing: this makes a new revision of the same chart and values',
          'helmcrew.dev/forceAt: the controller runs helm once, even though the spec did not change',
          ...why,
        ],
        warnings: [],
        doable: true,
      };
    }
    case 'correct': {
      const drifted = release.status?.conditions?.find((c) => c.type === ConditionType.Drifted && c.status === 'True');
      if (!deployed) return { title: `correct ${key}`, lines: [`nothing is deployed for ${key}`], warnings: [], doable: false };
      if (release.spec.suspend) return { title: `correct ${key}`, lines: [`${key} is suspended: resume it first`], warnings: [], doable: false };
      return {
        title: `correct drift of ${key}`,
        lines: [
          drifted ? drifted.message : 'no drift reported yet: the controller looks now and re-applies whatever differs',
          `the drifted objects get revision ${deployed.revision}'s manifest again (server-side apply as helm; no new revision, ignored fields kept)`,
          ...why,
        ],
        warnings: [],
        doable: true,
      };
    }
    case 'test': {
      const title = `test ${key}`;
      if (!deployed) return { title, lines: [`nothing is deployed for ${key}`], warnings: [], doable: false };
      if (release.spec.suspend) return { title, lines: [`${key} is suspended: resume it first`], warnings: [], doable: false };
      return {
        title: `test ${key}: helm test of revision ${deployed.revision}`,
        lines: [
          now,
          "the controller runs the chart's test hooks against the running release once it is in sync (a pending upgrade goes first)",
          'a failure is reported (TestSuccess=False, which hook failed); nothing is rolled back or changed',
          ...why,
        ],
        warnings: [],
        doable: true,
      };
    }
    case 'rollback': {
      const choice = chooseRollbackRevision(history, { id: 'plan', revision: command.revision });
      if (!choice.ok) return { title: `roll back ${key}`, lines: [choice.message], warnings: [], doable: false };
      const { from, to } = choice;
      // The bot cannot read the release's Secrets to hide their values: with any, only paths (and images) are shown.
      const withholdValues = takesSecretValues(release);
      const objects =
        from.manifest !== undefined && to.manifest !== undefined
          ? summarizeReadableDiff(readableDiff(from.manifest, to.manifest, { withholdValues }))
          : undefined;
      return {
        title: `roll back ${key}: revision ${from.revision} → ${to.revision}`,
        ...(objects?.rest.length ? { more: objects.rest } : {}),
        lines: [
          `${describe(from)} → ${describe(to)}`,
          summarizeValuesDifference(diffValues(from.config, to.config)),
          ...(objects?.lines ?? []),
          ...(objects && withholdValues ? ['values not shown: this release takes values from Secrets (or SOPS)'] : []),
          `${key} is suspended so the controller does not undo it; resume returns to the declared spec (${release.spec.chart.name} ${release.spec.chart.version ?? '(newest)'})`,
          ...why,
        ],
        warnings: [],
        doable: true,
      };
    }
  }
}

/** Pure: may the release's rendered objects hold values from Secrets (valuesFrom a Secret, SOPS decryption)? */
export function takesSecretValues(release: HelmRelease): boolean {
  return Boolean(release.spec.decryption) || (release.spec.valuesFrom ?? []).some((ref) => ref.kind === 'Secret');
}

/** The object diff in a plan's lines; when it could not be computed, why (the plan stays doable). */
export function previewLines(preview: PreviewResult | undefined): string[] {
  if (!preview) return [];
  if (!preview.ok) return [`what would change is unknown: ${preview.message}`];
  return preview.lines;
}

function previewMore(preview: PreviewResult | undefined): Pick<Plan, 'more'> {
  return preview?.ok && preview.rest.length > 0 ? { more: preview.rest } : {};
}

import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType } from '../../api/vocabulary.js';
import type { ReleaseHistory, StoredRelease } from '../../core/helm-storage/release-storage.js';
import { chooseRollbackRevision } from '../../core/release/rollback-decision.js';
import type { MutatingCommand } from '../grammar/command.js';
import { gitOpsWarning } from './gitops.js';
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
}

const describe = (r: StoredRelease) => `revision ${r.revision} (${r.chartName} ${r.chartVersion}${r.appVersion ? `, app ${r.appVersion}` : ''})`;
const keyOf = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;

export function planReleaseCommand(command: Exclude<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>, release: HelmRelease, history: ReleaseHistory): Plan {
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
          ...why,
        ],
        warnings: [],
        doable: true,
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
          ...why,
        ],
        warnings: gitops ? [gitops] : [],
        doable: release.spec.chart.version !== command.version,
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
    case 'rollback': {
      const choice = chooseRollbackRevision(history, { id: 'plan', revision: command.revision });
      if (!choice.ok) return { title: `roll back ${key}`, lines: [choice.message], warnings: [], doable: false };
      const { from, to } = choice;
      return {
        title: `roll back ${key}: revision ${from.revision} → ${to.revision}`,
        lines: [
          `${describe(from)} → ${describe(to)}`,
          summarizeValuesDifference(diffValues(from.config, to.config)),
          `${key} is suspended so the controller does not undo it; resume returns to the declared spec (${release.spec.chart.name} ${release.spec.chart.version ?? '(newest)'})`,
          ...why,
        ],
        warnings: [],
        doable: true,
      };
    }
  }
}

export function planFreeze(verb: 'freeze' | 'unfreeze', scopeText: string, affected: HelmRelease[], untouched: HelmRelease[], reason?: string): Plan {
  const names = (list: HelmRelease[]) => list.map(keyOf).join(', ');
  const lines =
    verb === 'freeze'
      ? [
          affected.length ? `suspends ${affected.length}: ${names(affected)}` : 'no release to suspend',
          ...(untouched.length ? [`already suspended, left as they are: ${names(untouched)}`] : []),
        ]
      : [affected.length ? `resumes ${affected.length} frozen: ${names(affected)}` : 'no frozen release here'];
  return { title: `${verb} ${scopeText}`, lines: [...lines, ...(reason ? [`reason: ${reason}`] : [])], warnings: [], doable: affected.length > 0 };
}

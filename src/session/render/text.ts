import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType } from '../../api/vocabulary.js';
import { chartSignatureNote } from '../../core/release/chart-signature.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import { RELEASE_VERBS, type VerbRow } from '../../api/release-verbs.js';
import { diffValues, summarizeValuesDifference } from '../plan/values-diff.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import { readableDiffText } from '../../core/release/readable-diff-text.js';
import type { Plan } from '../plan/plan.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/** Pure plain-text renderings shared by the terminal and Slack (which wraps them in mrkdwn). */

const keyOf = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;
const cond = (r: HelmRelease, type: string) => r.status?.conditions?.find((c) => c.type === type);

/** The help, from the verb table's usage lines (another table: a test's). */
export function renderHelp(topic?: string, table: Readonly<Record<string, VerbRow>> = RELEASE_VERBS): string {
  if (topic) return `usage: ${table[topic]?.usage ?? ''}`;
  const header = '/release commands (a release is name or namespace/name; in a fleet also cluster/namespace/name or --cluster NAME, and list --cluster all):';
  return [header, ...Object.values(table).map((row) => `  ${row.usage}`)].join('\n');
}

export function renderList(releases: HelmRelease[]): string {
  if (releases.length === 0) return 'no releases';
  const rows = [...releases]
    .sort((a, b) => byCodeUnits(keyOf(a), keyOf(b)))
    .map((r) => {
      const ready = cond(r, ConditionType.Ready)?.status ?? 'Unknown';
      const suspended = r.spec.suspend ? ' suspended' : '';
      const version = r.status?.history?.[0]?.chartVersion ?? '-';
      return `${keyOf(r)}  ${r.spec.chart.name} ${version}  ready=${ready}${suspended}`;
    });
  return rows.join('\n');
}

export function renderStatus(release: HelmRelease): string {
  const lines = [
    `${keyOf(release)}: chart ${release.spec.chart.name} ${release.spec.chart.version ?? '(newest)'} declared${release.spec.suspend ? ', SUSPENDED' : ''}`,
  ];
  const latest = release.status?.history?.[0];
  if (latest) lines.push(`revision ${latest.revision}: ${latest.chartName} ${latest.chartVersion} ${latest.status}`);
  const signature = chartSignatureNote(release);
  if (signature) lines.push(signature);
  for (const c of release.status?.conditions ?? []) lines.push(`${c.type}=${c.status} ${c.reason}: ${c.message}`);
  return lines.join('\n');
}

export function renderHistory(release: HelmRelease, history: ReleaseHistory): string {
  if (history.releases.length === 0) return `${keyOf(release)}: no revisions`;
  return [
    `${keyOf(release)} revisions, newest first:`,
    ...history.releases.map(
      (r) => `  ${r.revision}  ${r.status.padEnd(11)} ${r.chartName} ${r.chartVersion}${r.appVersion ? ` (app ${r.appVersion})` : ''}  ${r.lastDeployed ?? ''}`,
    ),
  ].join('\n');
}

/** Deployed against the spec (or a version): chart and which value paths differ, never the values. */
export function renderDiff(release: HelmRelease, history: ReleaseHistory, version?: string): string {
  const deployed = history.deployed;
  if (!deployed) return `${keyOf(release)}: nothing deployed`;
  const wanted = version ?? release.spec.chart.version ?? '(newest)';
  const chart = deployed.chartVersion === wanted ? `chart ${deployed.chartVersion} (same)` : `chart ${deployed.chartVersion} → ${wanted}`;
  const values = version ? 'values: as declared' : summarizeValuesDifference(diffValues(deployed.config, release.spec.values ?? {}));
  return `${keyOf(release)} deployed revision ${deployed.revision} vs ${version ? `version ${version}` : 'spec'}: ${chart}; ${values}`;
}

/** The controller's object diff in full (a `diff` was asked for), or why there is none. */
export function renderObjectDiff(preview: PreviewResult, maxLines = 60): string {
  if (!preview.ok) return `objects: unknown (${preview.message})`;
  // Every object once, in full; an answer from a controller of an earlier version has only its lines.
  const all = preview.diff ? readableDiffText(preview.diff) : [...preview.lines, ...preview.rest];
  const shown = all.slice(0, maxLines);
  return [
    `${preview.from} → ${preview.to}:`,
    ...shown.map((l) => `  ${l}`),
    ...(all.length > maxLines ? [`  … and ${all.length - maxLines} more lines`] : []),
  ].join('\n');
}

export function renderPlan(plan: Plan): string {
  return [
    plan.title,
    // An object diff's fields and lines stand indented under their object, without a bullet.
    ...plan.lines.map((l) => (l.startsWith(' ') ? `    ${l}` : `  • ${l}`)),
    ...plan.warnings.map((w) => `  ⚠ ${w}`),
    ...(plan.more?.length ? ['  more:', ...plan.more.map((l) => `    ${l}`)] : []),
  ].join('\n');
}

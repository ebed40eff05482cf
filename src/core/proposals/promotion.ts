/**
 * A promotion (issue 35): `/release promote web --from staging --to prod` proposes, for the target
 * release, the chart version and the image values the source release runs. Pure: both releases as
 * read (and the chart version each runs) in, the proposal — or why there is none — out. The
 * proposal is approved in chat like any other and applied by the target's controller.
 */
import type { HelmRelease } from '../../api/helmrelease.js';
import { parseDuration } from '../../api/duration.js';
import { IMAGE_UPDATE_DEFAULTS } from '../../api/image-update-defaults.js';
import { parseTargetPath, valueAt } from '../release/values-path.js';
import { proposalId, type Proposal, type ProposedValue } from './proposal.js';

/** One end of a promotion: a release in a cluster, and what it runs. */
export interface PromotionEnd {
  cluster: string;
  release: HelmRelease;
  /** The chart version of its newest deployed revision; undefined when nothing is deployed. */
  runs?: string;
  /** The value in effect at a values path; undefined when none is set or it cannot be read from here. */
  valueAt(path: string): string | undefined;
}

export type PromotionDecision =
  | {
      kind: 'propose';
      proposal: Proposal;
      /** Paths of the target's image updates left as they are, and why (the source sets none there). */
      kept: string[];
    }
  | { kind: 'nothing'; message: string }
  | { kind: 'refused'; message: string };

const keyOf = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;

/** How an end is named to people: `staging/web`, or with its cluster when the two ends' clusters differ (`edge: shop/web`). */
export function placeName(end: Pick<PromotionEnd, 'cluster' | 'release'>, withCluster: boolean): string {
  return withCluster ? `${end.cluster}:${keyOf(end.release)}` : keyOf(end.release);
}

/**
 * The value in effect at `path` as the release's object tells it: the approved override there
 * (status.approvedOverrides), else spec.values. A scalar only: a map or list is no image value.
 */
export function valueInEffect(release: HelmRelease, path: string): string | undefined {
  const override = release.status?.approvedOverrides?.find((entry) => entry.valuesPath === path);
  if (override) return override.value;
  let value: unknown;
  try {
    value = valueAt(release.spec.values ?? {}, parseTargetPath(path));
  } catch {
    return undefined;
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/** The chart version the release's newest deployed revision runs, from its status (newest first); undefined when it has none. */
export function deployedChartVersion(release: HelmRelease): string | undefined {
  return release.status?.history?.find((entry) => entry.status === 'deployed')?.chartVersion;
}

/** The subject a newer promotion of the same target from the same source supersedes an open one on. */
export function promotionSubject(from: Pick<PromotionEnd, 'cluster' | 'release'>, to: Pick<PromotionEnd, 'cluster' | 'release'>): string {
  return `${to.cluster}/${keyOf(to.release)} promotion from ${from.cluster}/${keyOf(from.release)}`;
}

/**
 * What promoting `from` to `to` proposes: the chart version `from` runs, when `to` runs another,
 * and for each path of `to`'s image updates (valuesPath, digestPath) the value in effect at
 * `from`, where it differs. `proposedBy` is the person (`slack:U0123`): with two approvals or
 * more asked, they may not approve it themselves (approval.ts).
 */
export function decidePromotion(from: PromotionEnd, to: PromotionEnd, proposedBy: string, now: number): PromotionDecision {
  const withCluster = from.cluster !== to.cluster;
  const source = placeName(from, withCluster);
  const target = placeName(to, withCluster);
  if (from.cluster === to.cluster && keyOf(from.release) === keyOf(to.release))
    return { kind: 'refused', message: `--from and --to both name ${source}: a promotion goes from one place to another` };
  const [fromChart, toChart] = [from.release.spec.chart, to.release.spec.chart];
  if (fromChart.name !== toChart.name)
    return {
      kind: 'refused',
      message: `${source} runs chart ${fromChart.name} and ${target} chart ${toChart.name}: a promotion carries one chart's version and images`,
    };
  if (from.runs === undefined) return { kind: 'refused', message: `nothing is deployed for ${source}: there is nothing running there to promote` };
  // The controller looks for approved proposals only on releases that take part in them (cost at rest).
  if (!to.release.spec.approval && !to.release.spec.imageUpdates?.length)
    return {
      kind: 'refused',
      message: `${target} takes no proposals: give it spec.approval (approvals asked) or spec.imageUpdates (the images a promotion carries), or set its spec.chart.version`,
    };
  const kept: string[] = [];
  const values: ProposedValue[] = [];
  for (const update of to.release.spec.imageUpdates ?? []) {
    for (const path of update.digestPath ? [update.valuesPath, update.digestPath] : [update.valuesPath]) {
      const wanted = from.valueAt(path);
      if (wanted === undefined) {
        kept.push(`${path}: ${source} sets none that can be read here; left as it is`);
        continue;
      }
      const current = to.valueAt(path);
      if (current !== wanted) values.push({ valuesPath: path, ...(current !== undefined ? { from: current } : {}), to: wanted });
    }
  }
  // A Git chart's version is its Chart.yaml at a commit, not a version to ask for.
  const versioned = !fromChart.git && !toChart.git;
  const chartVersion = versioned && from.runs !== to.runs ? { ...(to.runs !== undefined ? { from: to.runs } : {}), to: from.runs } : undefined;
  if (!chartVersion && values.length === 0) {
    const images = (to.release.spec.imageUpdates ?? []).map((u) => `${u.valuesPath} ${to.valueAt(u.valuesPath) ?? '(chart default)'}`);
    const what = [`chart ${toChart.name} ${to.runs ?? '(not deployed)'}`, ...images].join(', ');
    return { kind: 'nothing', message: `${target} already runs what ${source} runs (${what}): nothing to promote` };
  }
  const release = { cluster: to.cluster, namespace: to.release.metadata.namespace, name: to.release.metadata.name };
  const subject = promotionSubject(from, to);
  const approval = to.release.spec.approval;
  const required = approval?.required ?? 0;
  const changes = [
    ...(chartVersion ? [`chart ${chartVersion.from ?? '(none)'} → ${chartVersion.to}`] : []),
    ...values.map((v) => `${v.valuesPath} ${v.from ?? '(chart default)'} → ${v.to}`),
  ];
  const summary = `promotion from ${source} to ${target}: ${changes.join(', ')}`;
  return {
    kind: 'propose',
    kept,
    proposal: {
      id: proposalId(release, subject, values, chartVersion?.to),
      kind: 'promotion',
      release,
      values,
      ...(chartVersion ? { chartVersion } : {}),
      summary: summary.length > 500 ? `${summary.slice(0, 499)}…` : summary,
      subject,
      facts: {
        required,
        proposedBy,
        expiresAt: now + parseDuration(approval?.expireAfter ?? IMAGE_UPDATE_DEFAULTS.expireAfter),
        ...(approval?.teams?.length ? { teams: [...approval.teams] } : {}),
      },
      // Without spec.approval on the target, a promotion applies on its own, as a new image tag would.
      state: required > 0 ? { phase: 'open', approvers: [] } : { phase: 'approved', approvers: [] },
      createdAt: now,
      // Opened by the bot: the target's controller records ProposalOpened, which becomes the chat message.
      ...(required > 0 ? { unannounced: true as const } : {}),
    },
  };
}

/**
 * The same change asked for again after its proposal closed (rejected, expired, applied, replaced):
 * a new proposal, its id apart from the closed one's (ids are otherwise the change's own, so a
 * second request while it is open finds it).
 */
export function reproposal(proposal: Proposal, now: number): Proposal {
  return { ...proposal, id: proposalId(proposal.release, `${proposal.subject} asked again ${now}`, proposal.values, proposal.chartVersion?.to) };
}

import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { StoredRelease } from '../../core/helm-storage/release-storage.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import { freezesHolding, type HoldingFreeze } from '../../core/release/freeze-match.js';
import { releaseFacts } from '../../core/release/team-releases.js';
import { releaseRow, type ReleaseRow } from './fleet-view.js';
import type { ObjectRow } from '../../core/release/object-rows.js';
import { proposalView, type ProposalView } from './proposals-view.js';
import { originText, timeline, type ReleaseEventRecord, type TimelineEntry } from './timeline.js';
import { valuesView, type ValueRow } from './values-view.js';

export interface ReleaseView {
  row: ReleaseRow;
  declared: { chart: string; version: string; suspended: boolean };
  conditions: Array<{ type: string; status: string; reason: string; message: string; at: string; abnormal: boolean }>;
  /** The last failed helm operation, when the last attempt failed (or a remediation followed one). */
  lastFailure?: { action: string; at: string; message: string };
  holding: HoldingFreeze[];
  timeline: Array<TimelineEntry & { viaText: string }>;
  values: ValueRow[];
  objects: ObjectRow[];
  proposals: ProposalView[];
}

export interface ReleaseReading {
  release: HelmRelease;
  cluster?: string;
  /** Helm's records, newest first (from ReleaseStorage.history): [] when they could not be read. */
  revisions: StoredRelease[];
  events: ReleaseEventRecord[];
  proposals: Proposal[];
  freezes: Freeze[];
  objects: ObjectRow[];
}

// Stalled, Frozen, Drifted, Suspended are abnormal when True; the rest when False.
const ABNORMAL_TRUE = new Set(['Stalled', 'Frozen', 'Drifted', 'Suspended', 'Reconciling']);

/** Pure: the release page from what was read of it. */
export function releaseView(reading: ReleaseReading, now: Date): ReleaseView {
  const { release } = reading;
  const status = release.status ?? {};
  const failedCondition =
    status.conditions?.find((c) => c.type === 'Released' && c.status === 'False') ?? status.conditions?.find((c) => c.type === 'Ready' && c.status === 'False');
  const lastFailure =
    status.lastAttemptFailed && failedCondition
      ? { action: status.lastAttemptedAction ?? 'helm', at: status.lastAttemptedAt ?? failedCondition.lastTransitionTime, message: failedCondition.message }
      : undefined;
  const mine = reading.proposals.filter((p) => p.release.namespace === release.metadata.namespace && p.release.name === release.metadata.name);
  const given = reading.revisions[0]?.config;
  return {
    row: releaseRow(
      release,
      { ...(reading.cluster ? { name: reading.cluster } : {}), freezes: reading.freezes, proposals: mine.filter((p) => p.state.phase === 'open') },
      now,
    ),
    declared: { chart: release.spec.chart.name, version: release.spec.chart.version ?? '(newest)', suspended: release.spec.suspend === true },
    conditions: (status.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      at: c.lastTransitionTime,
      abnormal: ABNORMAL_TRUE.has(c.type) ? c.status === 'True' : c.status === 'False',
    })),
    ...(lastFailure ? { lastFailure } : {}),
    holding: freezesHolding(releaseFacts(release), reading.freezes, [], now),
    timeline: timeline(release, reading.revisions, reading.events, mine).map((entry) => ({ ...entry, viaText: originText(entry.via) })),
    values: valuesView(release, given),
    objects: reading.objects,
    proposals: mine.filter((p) => p.state.phase === 'open').map((p) => proposalView(p)),
  };
}

import { summarizeHistory, type ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import {
  decideRecall,
  recordFingerprint,
  type NamedRecords,
  type RecallDecision,
  type RecordRef,
  type Remembered,
  type Watched,
} from '../reconcile/decide/settled-records.js';
import type { SettledHistoryPort, SettledKey } from '../reconcile/ports/context.js';
import { sharedString, shareStrings } from '../../core/kube/watch/shared-strings.js';

/** A full read at least this often per release, even at rest: lost read rights are still noticed. */
export const DEFAULT_MAX_RECALL_AGE_MS = 60 * 60_000;
/** The API server sends a bookmark about every minute and ends a watch after 5–10: a watch silent longer is not trusted. */
export const MAX_WATCH_SILENCE_MS = 150_000;

interface Entry extends Remembered {
  history: ReleaseHistory;
}

/**
 * The histories the periodic checks of settled releases last read, without their manifests,
 * recalled instead of a LIST while the record watch shows the same records (settled-records.ts).
 * Forgotten as soon as the watch sees one of the release's records change, so memory follows
 * the releases at rest. One per cluster's watches (the leader's); a follower has none.
 */
export class SettledHistories implements SettledHistoryPort {
  private readonly entries = new Map<string, Entry>();
  /** Why checks read instead of recalling, counted (the bench and the tests ask). */
  readonly counts: Record<'recalled' | Extract<RecallDecision, { recall: false }>['why'], number> = {
    recalled: 0,
    'none remembered': 0,
    'watch cannot say': 0,
    'watch silent': 0,
    'records changed': 0,
    'other identity': 0,
    'too old': 0,
  };

  constructor(
    private readonly watched: (namespace: string, releaseName: string) => Watched | undefined,
    private readonly opts: {
      maxAgeMs?: number;
      now?: () => number;
      /** The record watch's names of a release's records (release-record-watch.ts recordNames). */
      names?: (namespace: string, releaseName: string, notOlderThan: string | undefined, withoutSuperseded: boolean) => NamedRecords | undefined;
    } = {},
  ) {}

  recordNames(key: SettledKey, notOlderThan: string | undefined, withoutSuperseded: boolean): NamedRecords | undefined {
    return this.opts.names?.(key.namespace, key.releaseName, notOlderThan, withoutSuperseded);
  }

  recall(key: SettledKey): ReleaseHistory | undefined {
    const id = `${key.namespace}/${key.releaseName}`;
    const entry = this.entries.get(id);
    const decision = decideRecall(entry, this.watched(key.namespace, key.releaseName), {
      identity: key.identity,
      nowMs: this.now(),
      maxAgeMs: this.opts.maxAgeMs ?? DEFAULT_MAX_RECALL_AGE_MS,
      maxSilenceMs: MAX_WATCH_SILENCE_MS,
    });
    if (decision.recall) {
      this.counts.recalled += 1;
      return entry!.history;
    }
    this.counts[decision.why] += 1;
    return undefined;
  }

  /** `records`: those the history was read from, with helm's status label; the superseded ones are left out as the watch leaves them out. */
  remember(key: SettledKey, history: ReleaseHistory, records: readonly RecordRef[]): void {
    this.entries.set(sharedString(`${key.namespace}/${key.releaseName}`), {
      fingerprint: recordFingerprint(records.filter((r) => r.status !== 'superseded')),
      identity: key.identity,
      atMs: this.now(),
      history: settledPart(history),
    });
  }

  /** The watch saw one of the release's records change. */
  forget(namespace: string, releaseName: string): void {
    this.entries.delete(`${namespace}/${releaseName}`);
  }

  /** A watch scope started again ('' = every namespace): nothing it covered is known to be current. */
  forgetScope(scope: string): void {
    if (scope === '') return this.entries.clear();
    for (const id of this.entries.keys()) if (id.startsWith(`${scope}/`)) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }
}

/**
 * What a settled check reads of a history: its records that are not superseded (the check's LIST
 * leaves them out, helm's `status` label says which), without their manifests (most of a record's
 * size; needsManifest says which releases read them). Any read of the whole history gives it too.
 */
function settledPart(history: ReleaseHistory): ReleaseHistory {
  // Kept until the records change: one copy of the namespace, labels and digests for all (shared-strings.ts).
  return shareStrings(
    summarizeHistory(
      history.releases
        .filter((r) => (r.labels?.status ?? r.status) !== 'superseded')
        .map((r) => {
          if (r.manifest === undefined) return r;
          const { manifest: _manifest, ...rest } = r;
          return rest;
        }),
    ),
  );
}

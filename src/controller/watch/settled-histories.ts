import type { ReleaseHistory, StoredRelease } from '../../core/helm-storage/release-storage.js';
import { decideRecall, recordFingerprint, type RecallDecision, type RecordRef, type Remembered, type Watched } from '../reconcile/decide/settled-records.js';
import type { SettledHistoryPort, SettledKey } from '../reconcile/ports/context.js';

/** A full read at least this often per release, even at rest: lost read rights are still noticed. */
export const DEFAULT_MAX_RECALL_AGE_MS = 60 * 60_000;

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
    'watch behind': 0,
    'records changed': 0,
    'other identity': 0,
    'too old': 0,
  };

  constructor(
    private readonly watched: (namespace: string, releaseName: string) => Watched | undefined,
    private readonly opts: { maxAgeMs?: number; now?: () => number } = {},
  ) {}

  recall(key: SettledKey, releaseVersion: string | undefined): ReleaseHistory | undefined {
    const id = `${key.namespace}/${key.releaseName}`;
    const entry = this.entries.get(id);
    const decision = decideRecall(entry, this.watched(key.namespace, key.releaseName), {
      releaseVersion,
      identity: key.identity,
      nowMs: this.now(),
      maxAgeMs: this.opts.maxAgeMs ?? DEFAULT_MAX_RECALL_AGE_MS,
    });
    if (decision.recall) {
      this.counts.recalled += 1;
      return entry!.history;
    }
    this.counts[decision.why] += 1;
    return undefined;
  }

  remember(key: SettledKey, history: ReleaseHistory, records: readonly RecordRef[]): void {
    this.entries.set(`${key.namespace}/${key.releaseName}`, {
      fingerprint: recordFingerprint(records),
      identity: key.identity,
      atMs: this.now(),
      history: withoutManifests(history),
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

/** The history as a check uses it, without the manifests (most of a record's size; needsManifest says who reads them). */
function withoutManifests(history: ReleaseHistory): ReleaseHistory {
  const strip = (r: StoredRelease): StoredRelease => {
    if (r.manifest === undefined) return r;
    const { manifest: _manifest, ...rest } = r;
    return rest;
  };
  const releases = history.releases.map(strip);
  const index = (r: StoredRelease | undefined) => (r ? releases[history.releases.indexOf(r)] : undefined);
  return { releases, latest: index(history.latest), deployed: index(history.deployed) };
}

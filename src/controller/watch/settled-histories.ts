import { summarizeHistory, type ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import {
  beforeStatusWrite,
  bindWritten,
  decideRecall,
  readRightsKnown,
  recordFingerprint,
  type NamedRecords,
  type RecallDecision,
  type RecordRef,
  type Remembered,
  type Watched,
  type WrittenRecords,
} from '../reconcile/decide/settled-records.js';
import type { SettledHistoryPort, SettledKey } from '../reconcile/ports/context.js';
import { sharedString, shareStrings } from '../../core/kube/watch/shared-strings.js';
import { releaseSecretName } from '../../core/release/helm-record-name.js';

/** A full read at least this often per release, even at rest: lost read rights are still noticed. */
export const DEFAULT_MAX_RECALL_AGE_MS = 60 * 60_000;
/** The API server sends a bookmark about every minute and ends a watch after 5–10: a watch silent longer is not trusted. */
export const MAX_WATCH_SILENCE_MS = 150_000;
/** How long a successful read of records by an identity in a namespace vouches for its read rights there. */
export const READ_RIGHTS_MAX_AGE_MS = 5 * 60_000;
/** At most this many (identity, namespace) pairs are remembered; the oldest goes first. */
export const READ_RIGHTS_MAX_ENTRIES = 4096;

/** A remembered history; `written` while it is what our own helm run wrote and the watch has not yet shown it (fingerprint '' until bound). */
interface Entry extends Remembered {
  history: ReleaseHistory;
  written?: WrittenRecords;
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
  /** `identity namespace` → when a read of records there last succeeded (readRightsKnown), oldest first. */
  private readonly rights = new Map<string, number>();

  constructor(
    private readonly watched: (namespace: string, releaseName: string) => Watched | undefined,
    private readonly opts: {
      maxAgeMs?: number;
      now?: () => number;
      /** The record watch's names of a release's records (release-record-watch.ts recordNames). */
      names?: (
        namespace: string,
        releaseName: string,
        notOlderThan: string | undefined,
        withoutSuperseded: boolean,
        rightsKnown: boolean,
      ) => NamedRecords | undefined;
    } = {},
  ) {}

  recordNames(key: SettledKey, notOlderThan: string | undefined, withoutSuperseded: boolean): NamedRecords | undefined {
    const shownAt = this.rights.get(`${key.identity} ${key.namespace}`);
    const rightsKnown = readRightsKnown(shownAt, this.now(), READ_RIGHTS_MAX_AGE_MS);
    return this.opts.names?.(key.namespace, key.releaseName, notOlderThan, withoutSuperseded, rightsKnown);
  }

  /** A read of the release's records as this identity succeeded: it may read records in that namespace. */
  readRightsShown(key: SettledKey): void {
    const id = `${key.identity} ${key.namespace}`;
    this.rights.delete(id);
    this.rights.set(id, this.now());
    if (this.rights.size > READ_RIGHTS_MAX_ENTRIES) this.rights.delete(this.rights.keys().next().value!);
  }

  /**
   * Our own install or upgrade succeeded and its status is written (`writtenBefore`: the
   * HelmRelease's version after that write): its history stands for the next check's read once
   * the watch shows exactly the records it implies (settled-records.ts bindWritten).
   */
  rememberWritten(key: SettledKey, history: ReleaseHistory, writtenBefore: string): void {
    const settled = settledPart(history);
    const records = settled.releases.map((r) => ({ name: releaseSecretName(r.name, r.revision), status: r.labels?.status ?? r.status }));
    this.entries.set(sharedString(`${key.namespace}/${key.releaseName}`), {
      fingerprint: '',
      written: { records, writtenBefore },
      identity: key.identity,
      atMs: this.now(),
      history: settled,
    });
  }

  recall(key: SettledKey): ReleaseHistory | undefined {
    const id = `${key.namespace}/${key.releaseName}`;
    const entry = this.entries.get(id);
    const watched = this.watched(key.namespace, key.releaseName);
    if (entry?.written && watched?.records) {
      const bound = bindWritten(entry.written, watched.records);
      if (bound !== undefined) {
        entry.fingerprint = bound;
        delete entry.written;
      }
    }
    const decision = decideRecall(entry?.written ? undefined : entry, watched, {
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

  /**
   * The watch saw one of the release's records change, at `version`. What our own run wrote is kept
   * through the events of that run's own writes (they may arrive after the status write), which
   * bindWritten checks; any later event forgets it.
   */
  forget(namespace: string, releaseName: string, version?: string): void {
    const id = `${namespace}/${releaseName}`;
    const written = this.entries.get(id)?.written;
    if (!written || !beforeStatusWrite(written, version)) this.entries.delete(id);
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

import { summarizeHistory, type ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import { sharedString } from '../../core/kube/watch/shared-strings.js';
import type { KeptRecord } from './kept-record.js';

/** Revisions a history answers with (helm keeps 10 unless told otherwise). */
export const MAX_REVISIONS = 20;

/** The newest revision's NOTES of one release, and which revision they are of. */
interface Notes {
  revision: number;
  notes?: string;
}

/**
 * What the record watch knows, by release: its records' summaries, and the NOTES of its newest
 * revision only (a release's NOTES are what its current chart says; older ones are dropped as they
 * arrive). No I/O: the watch puts, drops and, after each list, rebuilds it from its cache.
 */
export class RecordIndex {
  /** namespace/release → record Secret name → what is kept of it. */
  private byRelease = new Map<string, Map<string, KeptRecord>>();
  private notesOf = new Map<string, Notes>();

  history(namespace: string, releaseName: string): ReleaseHistory {
    const records = [...(this.byRelease.get(`${namespace}/${releaseName}`)?.values() ?? [])];
    const history = summarizeHistory(records.map((r) => r.summary));
    return history.releases.length > MAX_REVISIONS ? { ...history, releases: history.releases.slice(0, MAX_REVISIONS) } : history;
  }

  names(namespace: string, releaseName: string): string[] {
    return [...(this.byRelease.get(`${namespace}/${releaseName}`)?.keys() ?? [])];
  }

  /** One record as held, by its Secret's name. */
  find(namespace: string, releaseName: string, name: string): KeptRecord | undefined {
    return this.byRelease.get(`${namespace}/${releaseName}`)?.get(name);
  }

  /** The release's records listed as metadata only, not yet read whole (kept-record.ts `pending`). */
  pending(namespace: string, releaseName: string): KeptRecord[] {
    return [...(this.byRelease.get(`${namespace}/${releaseName}`)?.values() ?? [])].filter((r) => r.pending);
  }

  /** The name of the newest revision's record Secret; undefined when none is held. */
  newestName(namespace: string, releaseName: string): string | undefined {
    let newest: KeptRecord | undefined;
    for (const record of this.byRelease.get(`${namespace}/${releaseName}`)?.values() ?? [])
      if (!newest || record.summary.revision > newest.summary.revision) newest = record;
    return newest?.metadata.name;
  }

  /** The newest revision and its NOTES; {} when no record of the release is held. */
  notes(namespace: string, releaseName: string): { revision?: number; notes?: string } {
    const kept = this.notesOf.get(`${namespace}/${releaseName}`);
    return kept ? { revision: kept.revision, ...(kept.notes ? { notes: kept.notes } : {}) } : {};
  }

  /** A record added or changed; its NOTES move here (kept only if it is the newest revision) and leave the cached object. */
  put(obj: KeptRecord): void {
    if (!obj.release) return;
    const key = sharedString(`${obj.metadata.namespace}/${obj.release}`);
    let records = this.byRelease.get(key);
    if (!records) this.byRelease.set(key, (records = new Map<string, KeptRecord>()));
    records.set(obj.metadata.name, obj);
    const newest = this.notesOf.get(key);
    if (!newest || obj.summary.revision >= newest.revision)
      this.notesOf.set(key, { revision: obj.summary.revision, ...(obj.notes ? { notes: obj.notes } : {}) });
    delete obj.notes;
  }

  /** A record deleted; if it was the newest revision its NOTES go too (an older revision's were not kept). */
  drop(obj: KeptRecord): void {
    const key = `${obj.metadata.namespace}/${obj.release}`;
    const records = this.byRelease.get(key);
    records?.delete(obj.metadata.name);
    if (records?.size === 0) this.byRelease.delete(key);
    if (this.notesOf.get(key)?.revision === obj.summary.revision) this.notesOf.delete(key);
  }

  /** Rebuilt from the watch's cache after a list; the NOTES already taken are carried over for their revision. */
  rebuild(all: readonly KeptRecord[]): void {
    const previous = this.notesOf;
    this.byRelease = new Map();
    this.notesOf = new Map();
    for (const obj of all) {
      const had = previous.get(`${obj.metadata.namespace}/${obj.release}`);
      if (obj.notes === undefined && had?.revision === obj.summary.revision && had.notes) obj.notes = had.notes;
      this.put(obj);
    }
  }
}

import type { HelmRelease } from '../../../api/helmrelease.js';
import { ADOPT_RELEASE_ANNOTATION } from '../../../api/annotations.js';
import type { RecordSeen } from '../../../core/helm-storage/release-storage.js';
import { releaseSecretName } from '../../../core/release/helm-record-name.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { serviceAccountUser } from './tenancy.js';

/**
 * When the periodic check of a settled release may reuse the history it read last time instead of
 * LISTing Helm's records again (issue 36: 10,000 releases at rest). Pure: what the watch of the
 * record Secrets' metadata saw, and what was remembered, are handed in.
 */

/** One release record Secret as a read or the watch saw it: its name and version (same version, same content), and helm's status label. */
export type RecordRef = RecordSeen;

/** The identity of a set of records: their names and versions, in one order. */
export function recordFingerprint(records: readonly RecordRef[]): string {
  return records
    .map((r) => `${r.name}@${r.resourceVersion}`)
    .sort()
    .join(',');
}

/**
 * Would this pass use more of the history than a remembered one keeps? The remembered history
 * holds no manifest (it is most of a record's size): drift (`driftWanted`: drift-decision.ts's
 * driftCheckWanted for this release) and a handover read
 * the manifest, so such a release is read as before. Everything else a settled, read-only pass
 * decides from needs the records' chart, values, status and labels, which are kept.
 */
export function needsManifest(release: HelmRelease, driftWanted: boolean): boolean {
  if (driftWanted) return true;
  return release.metadata.annotations?.[ADOPT_RELEASE_ANNOTATION] !== undefined;
}

/** Pure: whose records a remembered history is of — the release, and the identity that read them. */
export function settledKey(target: ReleaseTarget): { namespace: string; releaseName: string; identity: string } {
  return { namespace: target.namespace, releaseName: target.releaseName, identity: target.impersonate ? serviceAccountUser(target.impersonate) : '' };
}

/** What was remembered of the last full read of a release's records. */
export interface Remembered {
  fingerprint: string;
  identity: string;
  atMs: number;
}

/** What the watch of record Secrets says of the release now; undefined when it cannot say (not listed yet, failed, namespace not watched). */
export interface Watched {
  fingerprint: string;
  /** The non-superseded records it holds, with helm's status label (for bindWritten). */
  records?: readonly RecordRef[];
  /** How long since the watch last heard from the API server (a list, a reconnect, an event, a bookmark: the server sends one about every minute). */
  heardAgoMs: number;
}

export type RecallDecision =
  { recall: true } | { recall: false; why: 'none remembered' | 'watch cannot say' | 'watch silent' | 'records changed' | 'other identity' | 'too old' };

/**
 * Pure: may the remembered history stand for a LIST now? Only when the records the watch shows
 * are exactly those read then (same names, same versions: a record helm wrote, changed or
 * deleted since, by helmcrew or by hand, is a difference), the watch has heard from the server
 * lately (a watch that hangs without failing would otherwise hide every change), the same
 * identity read them, and that read is not older than `maxAgeMs` (a full read now and then still
 * notices lost read rights). The records are then as new as the watch: milliseconds behind the
 * API server, as its own watch cache, which answers today's read, is behind etcd.
 */
export function decideRecall(
  remembered: Remembered | undefined,
  watched: Watched | undefined,
  pass: { identity: string; nowMs: number; maxAgeMs: number; maxSilenceMs: number },
): RecallDecision {
  if (!remembered) return { recall: false, why: 'none remembered' };
  if (!watched) return { recall: false, why: 'watch cannot say' };
  if (watched.heardAgoMs > pass.maxSilenceMs) return { recall: false, why: 'watch silent' };
  if (watched.fingerprint !== remembered.fingerprint) return { recall: false, why: 'records changed' };
  if (remembered.identity !== pass.identity) return { recall: false, why: 'other identity' };
  if (pass.nowMs - remembered.atMs >= pass.maxAgeMs) return { recall: false, why: 'too old' };
  return { recall: true };
}

/**
 * What a successful install or upgrade of ours left, remembered without a read: the history helm
 * printed (release-storage.ts afterWrite), the non-superseded records it implies with their status,
 * and `writtenBefore`, the HelmRelease's version after the status write that followed helm's exit.
 */
export interface WrittenRecords {
  records: ReadonlyArray<{ name: string; status: string | undefined }>;
  writtenBefore: string;
}

/**
 * Pure: may the records the watch holds now stand as those our own helm run wrote — then their
 * fingerprint is what a read would have remembered, and the periodic check due within the
 * interval recalls instead of GETting the record it was told of seconds before (issue 50: 377 such
 * checks in a burst of 500). Only when the watch holds exactly the names and status labels the
 * history implies, and every one at a version not newer than `writtenBefore`:
 * - helm exited before the status write was sent, so every record write of our run has an etcd
 *   revision below `writtenBefore`; a record written after it — `helm upgrade`, `rollback`,
 *   `uninstall` by hand, or a kubectl edit — is newer, does not bind, and the check reads it.
 * - Every helm action by hand adds or deletes a record or changes a status label, so one that
 *   came in the milliseconds between helm's exit and the status write shows as other names or
 *   statuses and does not bind either. Only a non-helm edit of a record's body in those
 *   milliseconds is left to the next full read (the remembered history's `maxAgeMs`).
 * - Until it binds, the entry is not trusted: the watch must show helm's records first (events of
 *   our own run may arrive after the status write, so they do not make it forget it). Once bound,
 *   it is an ordinary remembered read: the watch's next event for the release forgets it, and a
 *   restart or relist of the watch forgets everything it covered (recall also needs the watch to
 *   have heard from the server lately), so a record changed later is read by the next check.
 * - The remediation counters are in status, never here: a crash forgets all this and the next
 *   check reads.
 * Non-decimal versions say no.
 */
export function bindWritten(written: WrittenRecords, held: readonly RecordRef[]): string | undefined {
  if (held.length !== written.records.length || !/^\d{1,30}$/.test(written.writtenBefore)) return undefined;
  const bound = BigInt(written.writtenBefore);
  const expected = new Map(written.records.map((r) => [r.name, r.status]));
  for (const record of held) {
    if (!expected.has(record.name) || expected.get(record.name) !== record.status) return undefined;
    if (!/^\d{1,30}$/.test(record.resourceVersion) || BigInt(record.resourceVersion) >= bound) return undefined;
  }
  return recordFingerprint(held);
}

/**
 * Pure: may a record event at `version` be one of our own run's writes (older than the status write
 * that followed it)? Then what the run wrote waits to be bound; any later event (helm by hand, our
 * own uninstall, a delete) means it can never bind, and it is forgotten as a read would be.
 */
export function beforeStatusWrite(written: WrittenRecords, version: string | undefined): boolean {
  if (version === undefined || !/^\d{1,30}$/.test(version) || !/^\d{1,30}$/.test(written.writtenBefore)) return false;
  return BigInt(version) < BigInt(written.writtenBefore);
}

/**
 * Pure: are an identity's read rights on records in a namespace known, from its last successful
 * read there (`shownAtMs`)? Then an install's read need not GET the first record (which must be
 * absent) only to be refused before helm runs: rights lost since are found by helm itself, run as
 * the same identity, within `maxAgeMs` at most.
 */
export function readRightsKnown(shownAtMs: number | undefined, nowMs: number, maxAgeMs: number): boolean {
  return shownAtMs !== undefined && nowMs - shownAtMs >= 0 && nowMs - shownAtMs < maxAgeMs;
}

/**
 * Pure: has a watch that has seen `seenVersion` seen everything up to `wanted`? Then the records
 * it names for a release are all those a LIST "not older than `wanted`" would return, and each
 * can be read by name (release-storage.ts historyOfRecords). resourceVersions are etcd revisions,
 * one counter for the cluster's objects, as the LIST's own "not older than" the HelmRelease's
 * version already assumes; anything that is not a decimal number says no (the caller LISTs).
 */
export function watchCovers(seenVersion: string | undefined, wanted: string | undefined): boolean {
  if (seenVersion === undefined || wanted === undefined) return false;
  if (!/^\d{1,30}$/.test(seenVersion) || !/^\d{1,30}$/.test(wanted)) return false;
  return BigInt(seenVersion) >= BigInt(wanted);
}

/**
 * The records a read by name asks for: `names` each by GET, not older than `notOlderThan`, and
 * `absent`, when given, must not exist (else the caller LISTs).
 */
export interface NamedRecords {
  names: string[];
  absent?: string;
  notOlderThan: string;
}

/**
 * Pure: which records a read "not older than `wanted`" may ask for by name, from what the record
 * watch holds of the release (`held`: every record name it knows, superseded ones included) — or
 * undefined when it must LIST.
 * - The watch has seen `wanted`: its names are the LIST's (watchCovers), read not older than `wanted`.
 * - It has not (its version moves only with Secret events and bookmarks, about a minute apart,
 *   while each status write moves the HelmRelease's ahead — the 10,000 adoption's LISTs): the
 *   names still stand if the next revision's record is absent too. helm names a new record after
 *   the newest revision (latest + 1), so a record created since shows as `absent` present; one
 *   changed since is read new by its GET; one deleted is a 404, and the caller LISTs. They are read
 *   not older than what the watch has seen: the API server's cache of Secrets has that version, so
 *   it answers at once, where asking for `wanted` — a HelmRelease's version, ahead of every Secret
 *   event — made each read wait for the cache's next progress notice from etcd (~100 ms: the
 *   adoption's pace). As new as the watch, as the remembered histories are; that holds while the
 *   watch has heard from the server lately (`heardAgoMs`).
 * - With no record to read by name, the absent one is asked for in either case: its GET is the read
 *   that finds an identity not allowed to read the records (a 403, and the caller's LIST reports it)
 *   — unless that identity's read rights there are known (`rightsKnown`: readRightsKnown), and then
 *   a watch that has seen `wanted` answers alone (an install's first read: no request).
 */
export function namesToRead(
  held: readonly string[],
  releaseName: string,
  watch: { seenVersion: string | undefined; heardAgoMs: number; maxSilenceMs: number },
  wanted: string | undefined,
  keep: (name: string) => boolean = () => true,
  rightsKnown = false,
): NamedRecords | undefined {
  const seen = watch.seenVersion;
  if (seen === undefined || wanted === undefined) return undefined;
  const names = held.filter(keep);
  const covered = watchCovers(seen, wanted);
  // With no record to GET, the absent one's GET is what tells whether the identity may read them at all.
  if (covered && (names.length > 0 || rightsKnown)) return { names, notOlderThan: wanted };
  if (!covered && watch.heardAgoMs > watch.maxSilenceMs) return undefined;
  const absent = nextRecordName(held, releaseName);
  return absent === undefined ? undefined : { names, absent, notOlderThan: covered ? wanted : seen };
}

/** Pure: helm's name for the revision after the newest of `held` (v1 for none); undefined when a name is not helm's for this release. */
export function nextRecordName(held: readonly string[], releaseName: string): string | undefined {
  const prefix = releaseSecretName(releaseName, 0).slice(0, -1); // helm's names: sh.helm.release.v1.<release>.v<revision>
  let newest = 0;
  for (const name of held) {
    const revision = name.startsWith(prefix) ? name.slice(prefix.length) : '';
    if (!/^[1-9]\d{0,8}$/.test(revision)) return undefined;
    newest = Math.max(newest, Number(revision));
  }
  return releaseSecretName(releaseName, newest + 1);
}

import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Team } from '../../api/team.js';
import { summarizeHistory, type ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { TeamApi } from '../../core/kube/team-api.js';
import type { HelmRecordWatch } from './record-watch.js';
import type { SharedReleaseWatch } from './release-watch.js';

/**
 * The API objects' reads served from the shared watch's memory once it has listed (until then, and
 * for anything else — writes included — the API server itself): a call that reads a release, the
 * freezes or the Teams then costs the API server nothing, and a change is seen as soon as the watch
 * hears it. Each is the direct API object with its reads replaced, so it stands wherever that one does.
 * Helm's records come from the web's record watch (record-watch.ts: every record decoded once, when
 * first asked for or as the watch delivers it, its summary kept): a history, or a plan that needs no values, is memory; a
 * plan that compares values (rollback, diff) GETs the release's records by name, not older than
 * what the watch has seen (the API server answers those from its watch cache; a LIST of a
 * namespace's Secrets it would scan). A cache filled on demand, keyed by the HelmRelease's version,
 * was tried first: 1,000 releases read at random never hit it (docs/performance.md).
 */
export interface WatchedReads {
  api: HelmReleaseApi;
  freezes: FreezeApi;
  teams: TeamApi;
  storage: ReleaseStorage;
}

const listed = <T>(items: T[]) => ({ items });

export function watchedReads(
  watch: Pick<SharedReleaseWatch, 'ready' | 'releases' | 'freezes' | 'teams'>,
  direct: WatchedReads,
  records?: Pick<HelmRecordWatch, 'history' | 'filled' | 'records' | 'readEveryRecord'>,
): WatchedReads {
  const releases = () => (watch.ready ? watch.releases() : undefined);
  const api = Object.create(direct.api) as HelmReleaseApi;
  api.get = async (namespace: string, name: string): Promise<HelmRelease | undefined> => {
    const all = releases();
    return all ? all.find((r) => r.metadata.namespace === namespace && r.metadata.name === name) : direct.api.get(namespace, name);
  };
  api.list = async (namespace?: string) => {
    const all = releases();
    return all ? listed(namespace ? all.filter((r) => r.metadata.namespace === namespace) : all) : direct.api.list(namespace);
  };
  const freezes = Object.create(direct.freezes) as FreezeApi;
  freezes.list = async () => {
    const all: Freeze[] | undefined = watch.ready ? watch.freezes() : undefined;
    return all ? listed(all) : direct.freezes.list();
  };
  const teams = Object.create(direct.teams) as TeamApi;
  teams.list = async (labelSelector?: string) => {
    const all: Team[] | undefined = watch.ready && !labelSelector ? watch.teams() : undefined;
    return all ? listed(all) : direct.teams.list(labelSelector);
  };
  const storage = Object.create(direct.storage) as ReleaseStorage;
  storage.history = async (namespace, releaseName, opts = {}) => {
    // Assistants' reads: any release, at random — the watch reads every record whole, in the background.
    records?.readEveryRecord();
    if (opts.summary) await records?.filled(namespace, releaseName);
    const summaries = opts.summary ? records?.history(namespace, releaseName) : undefined;
    if (summaries) return opts.withoutSuperseded ? summarizeHistory(summaries.releases.filter((r) => r.status !== 'superseded')) : summaries;
    const held = records?.records(namespace, releaseName);
    const read = held && (await direct.storage.historyOfRecords(namespace, releaseName, held.names, { ...opts, notOlderThan: held.seenVersion }));
    return read ? read.history : direct.storage.history(namespace, releaseName, opts);
  };
  return { ...direct, api, freezes, teams, storage };
}

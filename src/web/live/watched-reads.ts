import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Team } from '../../api/team.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { TeamApi } from '../../core/kube/team-api.js';
import type { SharedReleaseWatch } from './release-watch.js';

/**
 * The API objects' reads served from the shared watch's memory once it has listed (until then, and
 * for anything else — writes included — the API server itself): a call that reads a release, the
 * freezes or the Teams then costs the API server nothing, and a change is seen as soon as the watch
 * hears it. Each is the direct API object with its reads replaced, so it stands wherever that one does.
 * Helm's records (Secrets) are not watched: history is read from the API server at each call (a
 * cache keyed by the HelmRelease's version was tried: 1,000 releases read at random never hit it,
 * and finding the owner of a record cost more CPU than the LIST — docs/performance.md).
 */
export interface WatchedReads {
  api: HelmReleaseApi;
  freezes: FreezeApi;
  teams: TeamApi;
  storage: ReleaseStorage;
}

const listed = <T>(items: T[]) => ({ items });

export function watchedReads(watch: Pick<SharedReleaseWatch, 'ready' | 'releases' | 'freezes' | 'teams'>, direct: WatchedReads): WatchedReads {
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
  return { ...direct, api, freezes, teams };
}

import type { Proposal } from '../../core/proposals/proposal.js';
import type { Logger } from '../../core/log.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import type { FleetRouting } from '../../session/flow/fleet-routing.js';
import { fleetSectionId, renderFleetCluster } from '../render/fleet-templates.js';
import { fleetView } from '../views/fleet-view.js';
import { liveParts, type LivePage } from './live-parts.js';
import { RemoteFollower, type ChangeSignal, type RemoteReading } from './remote-follower.js';

/** The followers of a fleet's other clusters, one per cluster for every page of this server. */
export class RemoteFollowers {
  private readonly followers = new Map<string, RemoteFollower>();

  constructor(
    private readonly fleet: FleetRouting,
    private readonly signal: (cluster: string) => ChangeSignal,
    private readonly log: Logger,
  ) {}

  of(cluster: string): RemoteFollower {
    let follower = this.followers.get(cluster);
    if (!follower) {
      const parts = async () => {
        const route = await this.fleet.route(cluster);
        if (!route.ok) throw new Error(route.message);
        return route.deps;
      };
      follower = new RemoteFollower({
        cluster,
        releases: async () => (await (await parts()).api.list()).items,
        freezes: async () => (await (await parts()).freezes.list()).items,
        signal: this.signal(cluster),
        log: this.log,
      });
      this.followers.set(cluster, follower);
    }
    return follower;
  }
}

/**
 * A page's parts of the fleet's other clusters, kept live: the fleet page's section of each other
 * cluster it shows, another cluster's release page its summary — rendered for this viewer from the
 * cluster's shared follower at every fresh reading and sent when it changed. Their proposals (Redis,
 * not the agent) are read once, when the page connects. Returns how to stop.
 */
export async function followOtherClusters(opts: {
  page: LivePage;
  fleet: FleetRouting;
  followers: RemoteFollowers;
  viewer: { subject: Subject; teams: readonly TeamPolicy[] };
  now: () => Date;
  send: (id: string, html: string) => void;
}): Promise<() => void> {
  const { page, fleet } = opts;
  if (page.kind === 'release' && page.cluster) {
    const cluster = page.cluster;
    const proposals = await proposalsOf(fleet, cluster, opts.now());
    const own = { kind: 'release' as const, namespace: page.namespace, name: page.name };
    // Its summary as the page rendered it, from the cluster's releases (the banner is read with the page).
    return opts.followers.of(cluster).subscribe((reading) => {
      const summary = liveParts(own, { releases: reading.releases, freezes: reading.freezes, proposals, cluster }, opts.viewer, opts.now())['live-summary'];
      if (summary) opts.send('live-summary', summary);
    });
  }
  if (page.kind !== 'fleet') return () => undefined;
  const members = (await fleet.members()).filter((m) => !m.own && (!page.filters.cluster || page.filters.cluster === m.name));
  const stops = await Promise.all(
    members.map(async (member) => {
      const proposals = await proposalsOf(fleet, member.name, opts.now());
      const render = (reading: RemoteReading) => {
        const view = fleetView([{ name: member.name, ...reading, proposals }], opts.viewer, page.filters, opts.now());
        const section = view.clusters[0];
        if (section) opts.send(fleetSectionId(member.name), renderFleetCluster(section));
      };
      return opts.followers.of(member.name).subscribe(render);
    }),
  );
  return () => {
    for (const stop of stops) stop();
  };
}

/** A cluster's live proposals, from its keyspace in Redis (not its agent): read once when a page connects. */
async function proposalsOf(fleet: FleetRouting, cluster: string, now: Date): Promise<Proposal[]> {
  const route = await fleet.route(cluster);
  return route.ok && route.deps.proposals ? route.deps.proposals.listLive(now.getTime()).catch(() => []) : [];
}

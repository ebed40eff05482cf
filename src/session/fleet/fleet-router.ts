import { FleetFreezeStore } from '../../core/fleet/fleet-freezes.js';
import type { RedisConnection } from '../../core/redis.js';
import { clusterKey, clusterKeyspace } from '../../core/fleet/cluster-keys.js';
import { ProposalStore } from '../../core/proposals/proposal-store.js';
import { FleetCommandClient } from '../../core/fleet/command-client.js';
import { readFleet } from '../../core/fleet/fleet-store.js';
import { shortAge, type FleetCluster } from '../../core/fleet/heartbeat.js';
import type { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import { RequesterLedger } from '../../core/requests/requester-ledger.js';
import { ReleaseOperations } from '../execute/operations.js';
import { QueuedPreviews } from '../execute/preview-client.js';
import type { ClusterDeps, FleetMember, FleetRouting } from '../flow/fleet-routing.js';
import type { FleetKeys } from './fleet-keys.js';
import { remoteCluster } from './remote-cluster.js';

export interface FleetRouterOptions {
  /** The bot's own cluster (HELMCREW_CLUSTER_NAME), driven through its kubeconfig as without a fleet. */
  own: string;
  local: ClusterDeps;
  redis: RedisConnection;
  /** HELMCREW_QUEUE_PREFIX: every cluster's keyspace derives from it. */
  fleetPrefix: string;
  keys: FleetKeys;
  /** The fleet freezes in Redis: the one store the bot reads them from (its own cluster's plans too, bot/slack/app.ts). */
  freezes: FleetFreezeStore;
  /** The Teams (in the bot's own cluster) decide who may, in every cluster. */
  teams: Pick<TeamApi, 'list'>;
  log: Logger;
  timeZone: string;
  queryTimeoutMs: number;
  previewTimeoutMs: number;
  now?: () => number;
}

const unreachable = (c: FleetCluster) =>
  `cluster ${c.name} is unreachable: its agent stopped answering (last heartbeat ${c.lastHeartbeat}, ${shortAge(c.ageMs)} ago)`;

/**
 * The bot's fleet: its own cluster through its kubeconfig, every cluster it holds a key for
 * through that cluster's agent on the shared Redis (remote-cluster.ts). Whether an agent is there
 * is read from the heartbeats (core/fleet/fleet-store.ts) before anything is sent, so a stopped
 * agent is named unreachable since its last heartbeat instead of a time-out.
 */
export class FleetRouter implements FleetRouting {
  readonly own: string;
  private readonly client: FleetCommandClient;
  private readonly remotes = new Map<string, ClusterDeps & { previews: QueuedPreviews }>();

  readonly freezes: FleetFreezeStore;

  constructor(private readonly opts: FleetRouterOptions) {
    this.own = opts.own;
    this.client = new FleetCommandClient(opts.redis, opts.fleetPrefix);
    this.freezes = opts.freezes;
  }

  /** The fleet index's clusters, those the bot holds keys for, and its own. */
  async clusters(): Promise<string[]> {
    const [keyed, beats] = await Promise.all([this.opts.keys.clusters(), this.heartbeats()]);
    return [...new Set([this.own, ...keyed, ...beats.keys()])].sort();
  }

  private async heartbeats(): Promise<Map<string, FleetCluster>> {
    return new Map((await readFleet(this.opts.redis, this.opts.fleetPrefix, (this.opts.now ?? Date.now)())).map((c) => [c.name, c]));
  }

  async members(): Promise<FleetMember[]> {
    const [keyed, beats] = await Promise.all([this.opts.keys.clusters(), this.heartbeats()]);
    const others = keyed.filter((name) => name !== this.own);
    return [
      { name: this.own, own: true },
      ...others.map((name) => {
        const beat = beats.get(name);
        const unavailable = !beat
          ? `cluster ${name} has no agent announced on this Redis (no heartbeat)`
          : beat.state === 'unreachable'
            ? unreachable(beat)
            : undefined;
        return { name, own: false, ...(unavailable ? { unavailable } : {}) };
      }),
    ];
  }

  async route(cluster: string): Promise<{ ok: true; deps: ClusterDeps } | { ok: false; message: string }> {
    if (cluster === this.own) return { ok: true, deps: this.opts.local };
    const member = (await this.members()).find((m) => m.name === cluster);
    if (!member) {
      const known = (await this.members()).map((m) => m.name).join(', ');
      return { ok: false, message: `no cluster "${cluster}" in this bot's fleet (it holds keys for: ${known}); nothing was sent` };
    }
    if (member.unavailable) return { ok: false, message: `${member.unavailable}; nothing was sent` };
    return { ok: true, deps: this.remote(cluster) };
  }

  private remote(cluster: string): ClusterDeps {
    const known = this.remotes.get(cluster);
    if (known) return known;
    const keyspace = clusterKeyspace(this.opts.fleetPrefix, cluster);
    const parts = remoteCluster({
      cluster,
      client: this.client,
      key: () => this.opts.keys.key(cluster),
      queryTimeoutMs: this.opts.queryTimeoutMs,
      commandTimeoutMs: this.opts.queryTimeoutMs,
    });
    // That cluster's controller renders previews from its own queue; who asked is kept where its notify reads it.
    const previews = new QueuedPreviews(this.opts.redis, keyspace, this.opts.previewTimeoutMs);
    const ops = new ReleaseOperations({
      ...parts,
      teams: this.opts.teams,
      // The agent records the Event in its cluster; the bot logs its own line.
      events: { record: () => Promise.resolve() },
      log: this.opts.log,
      now: () => new Date((this.opts.now ?? Date.now)()),
      timeZone: this.opts.timeZone,
      previews,
      requesters: new RequesterLedger(this.opts.redis, keyspace),
      cluster,
    });
    // Its proposals are in its keyspace, which the hub reads (`/release proposals --cluster`).
    const proposals = new ProposalStore(this.opts.redis, clusterKey(keyspace, 'proposals'));
    const { api, freezes, storage, imageValues, events: timelineEvents, objects: releaseObjects } = parts;
    const deps = { ops, api, freezes, storage, previews, proposals, imageValues, timelineEvents, releaseObjects };
    this.remotes.set(cluster, deps);
    return deps;
  }

  async close(): Promise<void> {
    await this.client.close();
    for (const remote of this.remotes.values()) await remote.previews.close();
    this.remotes.clear();
  }
}

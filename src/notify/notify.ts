import { randomUUID } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import type { NotifyConfig } from './config.js';
import { connectKube, slimKubeClients } from '../core/kube/slim-clients.js';
import { TeamApi } from '../core/kube/team-api.js';
import { connectRedis, redactRedisUrl, type RedisConnection } from '../core/redis.js';
import { clusterKey, clusterKeyspace, DEFAULT_CLUSTER, fleetIndexKey, fleetKeyspace } from '../core/fleet/cluster-keys.js';
import { ProposalStore } from '../core/proposals/proposal-store.js';
import { clustersToServe, needsIndex } from './fleet-clusters.js';
import { createLogger, type Logger } from '../core/log.js';
import { drainMailbox, type DrainDeps } from './delivery/drain-mailbox.js';
import { drainBackoff, drainFailureLog, runDrainerJob, type DrainerPorts } from './delivery/drainer-job.js';
import { Mailboxes } from './delivery/mailbox.js';
import { ChannelRateLimiter } from './delivery/rate-limiter.js';
import { UnroutedMarks } from './delivery/unrouted.js';
import { deliveryRetryDelayMs } from './delivery/retry-policy.js';
import { defaultProviders } from './providers/default-providers.js';
import type { ProviderRegistry } from './providers/registry.js';
import { DELIVERY_QUEUE, NOTIFY_QUEUE, type DeliveryJob, type NotifyJob } from './queues.js';
import { runRouterJob, type RouterPorts } from './routing/router-job.js';
import { TeamDirectory } from './team-directory.js';
import { TeamStatusWriter } from './team-status-writer.js';
import { startHealthServer, type ReadinessCheck } from '../core/metrics/health-server.js';
import { watchQueue } from '../core/metrics/queue-metrics.js';
import { redisCheck } from '../core/metrics/redis-check.js';
import { newMetricsRegistry, type Registry } from '../core/metrics/registry.js';
import { meteredProviders, NotifyMetrics } from './metrics/notify-metrics.js';
import { tracedProviders } from './delivery/traced-providers.js';

export interface RunningNotify {
  ready: () => boolean;
  stop: () => Promise<void>;
  /** What its readiness depends on (Teams listed, Redis), for the process's /readyz. */
  readiness: ReadinessCheck[];
}

export interface NotifyOptions {
  /** Providers to deliver through; default: defaultProviders() (webhook, and Slack when configured). */
  providers?: ProviderRegistry;
  /** The process's metrics registry (`helmcrew run`); then that process serves it. Without one, notify serves its own on HEALTH_PORT. */
  registry?: Registry;
  /** Where the default providers read their settings (SLACK_BOT_TOKEN, …): the environment `config` was read from; default process.env. */
  env?: Record<string, string | undefined>;
}

/**
 * notify: routes each published notification to the Teams that subscribed (a "notify" job per
 * happening), files it in one mailbox per (team, channel, release), and drains each mailbox in
 * order through the providers ("notify-delivery" jobs, one per mailbox at a time). Any number of
 * replicas share both queues.
 */
export async function startNotify(config: NotifyConfig, log: Logger = createLogger('notify'), options: NotifyOptions = {}): Promise<RunningNotify> {
  const kube = slimKubeClients(connectKube(config.kubeconfig));
  const teamApi = new TeamApi(kube);
  const directory = new TeamDirectory(teamApi, log, config.teamRefreshMs, config.teamSelector);
  await directory.start();
  const connection = connectRedis(config.redisUrl);
  const registry = options.registry ?? newMetricsRegistry();
  const fleet = config.fleetClusters;
  // A proposal's message is rendered from its record, in the keyspace of the cluster the event came from (issue 35).
  const proposals = (cluster: string | undefined) => {
    if (!fleet) return new ProposalStore(connection, clusterKey(config.queuePrefix, 'proposals'));
    return cluster ? new ProposalStore(connection, clusterKey(clusterKeyspace(config.fleetPrefix, cluster), 'proposals')) : undefined;
  };
  const providers = meteredProviders(
    tracedProviders(options.providers ?? defaultProviders(kube, log, options.env ?? process.env, { ...(fleet ? { fleet: true } : {}), proposals })),
    new NotifyMetrics(registry),
  );
  const shared: LaneShared = {
    config,
    connection,
    directory,
    providers,
    registry,
    status: new TeamStatusWriter(teamApi, log),
    // A fleet notify paces a channel once for every cluster it tells (the fleet's keyspace); one cluster's in its own.
    limiter: new ChannelRateLimiter(connection, fleet ? fleetKeyspace(config.fleetPrefix) : config.queuePrefix, config.ratePerSecond, config.rateBurst),
  };
  const lanes = new Map<string, Lane>();
  const open = (cluster: string, keyspace: string, labelled: boolean) => {
    if (lanes.has(cluster)) return;
    lanes.set(cluster, startLane(shared, cluster, keyspace, labelled, log));
    if (labelled) log.info({ cluster, keyspace }, 'notify serves cluster');
  };
  let fleetTimer: NodeJS.Timeout | undefined;
  let fleetListed = !fleet || !needsIndex(fleet);
  if (!fleet) open(config.cluster, config.queuePrefix, false);
  else {
    const serve = async () => {
      try {
        const indexed = needsIndex(fleet) ? await connection.smembers(fleetIndexKey(config.fleetPrefix)) : [];
        for (const cluster of clustersToServe(fleet, indexed)) open(cluster, clusterKeyspace(config.fleetPrefix, cluster), true);
        fleetListed = true;
      } catch (error) {
        log.warn({ error: error instanceof Error ? error.message : String(error) }, 'could not read the fleet index; serving the clusters known so far');
      }
    };
    await serve();
    const tick = () => {
      fleetTimer = setTimeout(() => void serve().finally(() => fleetTimer && tick()), config.teamRefreshMs);
    };
    tick();
  }

  const readiness: ReadinessCheck[] = [
    { name: 'teams', ready: () => directory.ready },
    ...(fleet ? [{ name: 'fleet', ready: () => fleetListed }] : []),
    redisCheck(connection),
  ];
  const health = !options.registry && config.healthPort ? startHealthServer({ port: config.healthPort, registry, checks: readiness }) : undefined;
  log.info(
    {
      redis: redactRedisUrl(config.redisUrl),
      prefix: config.queuePrefix,
      providers: providers.kinds(),
      teams: directory.teams().length,
      ...(fleet ? { fleet, clusters: [...lanes.keys()] } : {}),
    },
    'notify started',
  );
  return {
    ready: () => directory.ready,
    readiness,
    stop: async () => {
      await health?.close();
      directory.stop();
      clearTimeout(fleetTimer);
      fleetTimer = undefined;
      await Promise.all([...lanes.values()].map((lane) => lane.close()));
      connection.disconnect();
    },
  };
}

/** What every cluster's lane of one notify shares: the Teams, the providers, the channel buckets, one Redis connection. */
interface LaneShared {
  config: NotifyConfig;
  connection: RedisConnection;
  directory: TeamDirectory;
  providers: ProviderRegistry;
  registry: Registry;
  status: TeamStatusWriter;
  limiter: ChannelRateLimiter;
}

interface Lane {
  close: () => Promise<void>;
}

/**
 * One cluster's notifications: its "notify" and "notify-delivery" queues, mailboxes and unrouted
 * marks, all in the cluster's keyspace; each notification is stamped with the cluster it was read
 * from (only that cluster's agents may write there). A single-cluster notify has one lane.
 */
function startLane(shared: LaneShared, cluster: string, keyspace: string, labelled: boolean, parentLog: Logger): Lane {
  const { config, connection, directory } = shared;
  const log = labelled ? parentLog.child({ cluster }) : parentLog;
  const named = labelled || cluster !== DEFAULT_CLUSTER ? cluster : config.clusterName;
  const mailboxes = new Mailboxes(connection, keyspace);
  const unrouted = new UnroutedMarks(connection, keyspace);
  const deliveries = new Queue<DeliveryJob>(DELIVERY_QUEUE, { connection, prefix: keyspace });
  const notifyQueue = new Queue<NotifyJob>(NOTIFY_QUEUE, { connection, prefix: keyspace });
  watchQueue(shared.registry, labelled ? `${cluster}/${NOTIFY_QUEUE}` : NOTIFY_QUEUE, notifyQueue);
  watchQueue(shared.registry, labelled ? `${cluster}/${DELIVERY_QUEUE}` : DELIVERY_QUEUE, deliveries);

  const routerPorts: RouterPorts = {
    directory,
    mailboxes,
    drains: deliveries,
    unrouted,
    log,
    deliveryAttempts: config.deliveryAttempts,
    ...(named ? { cluster: named } : {}),
  };
  const router = new Worker<NotifyJob>(NOTIFY_QUEUE, (job: Job<NotifyJob>) => runRouterJob(routerPorts, job.data), {
    connection,
    prefix: keyspace,
    concurrency: config.concurrency,
    settings: { backoffStrategy: (attemptsMade: number) => deliveryRetryDelayMs(attemptsMade) },
  });

  const deps: DrainDeps = {
    mailboxes,
    unrouted,
    limiter: shared.limiter,
    providers: shared.providers,
    directory,
    status: shared.status,
    log,
    coalesceWindowMs: config.coalesceWindowMs,
    lockMs: config.lockMs,
    now: () => new Date(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...(named ? { cluster: named } : {}),
    statusUrl: config.statusUrl,
  };
  const drainerPorts: DrainerPorts = { drain: (job, lockToken) => drainMailbox(deps, job, lockToken), newLockToken: randomUUID, now: Date.now, log };
  const drainer = new Worker<DeliveryJob>(DELIVERY_QUEUE, (job: Job<DeliveryJob>, token?: string) => runDrainerJob(drainerPorts, job, token), {
    connection,
    prefix: keyspace,
    concurrency: config.concurrency,
    // A killed process's job is taken over after lockMs: short enough that a restart delivers soon.
    lockDuration: config.lockMs,
    stalledInterval: config.lockMs,
    maxStalledCount: 10,
    settings: { backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) => drainBackoff(attemptsMade, error) },
  });

  for (const [name, worker] of [
    ['router', router],
    ['delivery', drainer],
  ] as const) {
    worker.on('error', (error) => log.error({ worker: name, error: error.message }, 'notify worker error'));
  }
  router.on('failed', (job, error) => log.warn({ notification: job?.id, attempt: job?.attemptsMade, error: error.message }, 'routing failed; will retry'));
  drainer.on('failed', (job, error) => {
    const { level, msg } = drainFailureLog(job?.attemptsMade, error, config.deliveryAttempts);
    log[level]({ team: job?.data.team, release: job?.data.release, channel: job?.data.channelKey, attempt: job?.attemptsMade, error: error.message }, msg);
  });
  return {
    close: async () => {
      await router.close();
      await drainer.close();
      await deliveries.close();
      await notifyQueue.close();
    },
  };
}

import { randomUUID } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import type { NotifyConfig } from './config.js';
import { connectKube, slimKubeClients } from '../core/kube/slim-clients.js';
import { TeamApi } from '../core/kube/team-api.js';
import { connectRedis, redactRedisUrl } from '../core/redis.js';
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
  const mailboxes = new Mailboxes(connection, config.queuePrefix);
  const unrouted = new UnroutedMarks(connection, config.queuePrefix);
  const registry = options.registry ?? newMetricsRegistry();
  const providers = meteredProviders(tracedProviders(options.providers ?? defaultProviders(kube, log)), new NotifyMetrics(registry));
  const deliveries = new Queue<DeliveryJob>(DELIVERY_QUEUE, { connection, prefix: config.queuePrefix });
  const notifyQueue = new Queue<NotifyJob>(NOTIFY_QUEUE, { connection, prefix: config.queuePrefix });
  watchQueue(registry, NOTIFY_QUEUE, notifyQueue);
  watchQueue(registry, DELIVERY_QUEUE, deliveries);

  const routerPorts: RouterPorts = { directory, mailboxes, drains: deliveries, unrouted, log };
  const router = new Worker<NotifyJob>(NOTIFY_QUEUE, (job: Job<NotifyJob>) => runRouterJob(routerPorts, job.data), {
    connection,
    prefix: config.queuePrefix,
    concurrency: config.concurrency,
    settings: { backoffStrategy: (attemptsMade: number) => deliveryRetryDelayMs(attemptsMade) },
  });

  const deps: DrainDeps = {
    mailboxes,
    unrouted,
    limiter: new ChannelRateLimiter(connection, config.queuePrefix, config.ratePerSecond, config.rateBurst),
    providers,
    directory,
    status: new TeamStatusWriter(teamApi, log),
    log,
    coalesceWindowMs: config.coalesceWindowMs,
    lockMs: config.lockMs,
    now: () => new Date(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    cluster: config.clusterName,
    statusUrl: config.statusUrl,
  };
  const drainerPorts: DrainerPorts = { drain: (job, lockToken) => drainMailbox(deps, job, lockToken), newLockToken: randomUUID, now: Date.now, log };
  const drainer = new Worker<DeliveryJob>(DELIVERY_QUEUE, (job: Job<DeliveryJob>, token?: string) => runDrainerJob(drainerPorts, job, token), {
    connection,
    prefix: config.queuePrefix,
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
    const { level, msg } = drainFailureLog(job?.attemptsMade, error);
    log[level]({ team: job?.data.team, release: job?.data.release, channel: job?.data.channelKey, attempt: job?.attemptsMade, error: error.message }, msg);
  });

  const readiness: ReadinessCheck[] = [{ name: 'teams', ready: () => directory.ready }, redisCheck(connection)];
  const health = !options.registry && config.healthPort ? startHealthServer({ port: config.healthPort, registry, checks: readiness }) : undefined;
  log.info(
    { redis: redactRedisUrl(config.redisUrl), prefix: config.queuePrefix, providers: providers.kinds(), teams: directory.teams().length },
    'notify started',
  );
  return {
    ready: () => directory.ready,
    readiness,
    stop: async () => {
      await health?.close();
      directory.stop();
      await router.close();
      await drainer.close();
      await deliveries.close();
      await notifyQueue.close();
      connection.disconnect();
    },
  };
}

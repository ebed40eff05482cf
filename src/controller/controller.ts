import type { RedisConnection } from '../core/redis.js';
import type { ControllerConfig } from './config.js';
import { createLogger, type Logger } from '../core/log.js';
import { startHealthServer, type HealthServer } from '../core/metrics/health-server.js';
import { redisCheck } from '../core/metrics/redis-check.js';
import { newMetricsRegistry, type Registry } from '../core/metrics/registry.js';
import { watchQueue } from '../core/metrics/queue-metrics.js';
import { ControllerMetrics } from './metrics/controller-metrics.js';
import { connectKube, slimKubeClients } from '../core/kube/slim-clients.js';
import { controllerNamespace, getOrCreateDigestKey } from '../core/kube/digest-key.js';
import type { ReleaseEventSink } from '../core/events/release-event-sink.js';
import { HelmReleaseApi } from '../core/kube/helmrelease-api.js';
import { CheckLedger } from './queue/check-ledger.js';
import { connectRedis, redactRedisUrl } from '../core/redis.js';
import { startNodeHelmSlots } from './helm/node-helm-slots.js';
import { ReadAhead } from './queue/read-ahead.js';
import { queueLoadOf, RECONCILE_QUEUE, ReconcileQueue, reconcileWorkers, startReconcileWorker } from './queue/reconcile-queue.js';
import { computePreview } from './preview/compute-preview.js';
import { startPreviewWorker } from './preview/preview-worker.js';
import { controllerContext } from './controller-context.js';
import { RunningOperations } from './reconcile/ports/running-operations.js';
import { reconcileReportingErrors } from './reconcile/unexpected-error.js';
import { ValuesDigester } from '../core/release/values-digest.js';
import { FreezeApi } from '../core/kube/freeze-api.js';
import { TeamApi } from '../core/kube/team-api.js';
import { fleetWakeKeys, frozenReleaseKeys } from './watch/frozen-wake.js';
import { queueTriggers } from './queue/queue-triggers.js';
import { recordedPass } from './queue/recorded-pass.js';
import { OutstandingJobs } from './queue/outstanding-jobs.js';
import { prepareWorkDir } from './helm/work-dir.js';
import { FIELD_MANAGER } from '../api/vocabulary.js';
import { FreezeHeldWriter } from './watch/freeze-held-writer.js';
import { FreezeWatch } from './watch/freeze-watch.js';
import { fleetFreezeWatchOf } from './watch/fleet-freeze-watch.js';
import { WithFleetFreezes } from './watch/fleet-freeze-view.js';
import { FleetFreezeStore, freezesOfCluster } from '../core/fleet/fleet-freezes.js';
import { ClusterWatches } from './watch/cluster-watches.js';
import { LeaseElector } from './leader/lease-elector.js';
import { leaseName } from './leader/lease-decision.js';
import { startHeartbeat } from './fleet/heartbeat-loop.js';
import { ReleaseStorage } from '../core/helm-storage/release-storage.js';
import { startCommandWorker } from './fleet/command-worker.js';
import { helmcrewVersion } from '../core/version.js';
import { hostname } from 'node:os';
/** A cluster's heartbeat hash outlives its last beat by this much: a cluster taken away leaves the fleet listing by itself. */
const HEARTBEAT_TTL_MS = 7 * 24 * 3600_000;
import { ApiOutage, probeApiServer } from './queue/api-outage.js';
import { GenerationBroadcast } from './leader/generation-broadcast.js';
import { controllerProposals } from './proposals/controller-proposals.js';

/** Where the controller's happenings go beyond Kubernetes Events; the CLI wires notify's publisher here. */
export interface NotificationSink extends ReleaseEventSink {
  close(): Promise<void>;
}

export interface ControllerOptions {
  log?: Logger;
  /** Made on the controller's own Redis connection; none: Kubernetes Events only. */
  notifications?: (connection: RedisConnection, prefix: string, log: Logger) => NotificationSink;
  /** Where its metrics go; `helmcrew run` passes one registry to every part. Default: a new one. */
  registry?: Registry;
}

export interface RunningController {
  ready: () => boolean;
  stop: () => Promise<void>;
  /** The /healthz, /readyz, /metrics server when HEALTH_PORT is set (other parts in the process add their checks). */
  health?: HealthServer;
}

/** Wires watch → queue → workers → helm. Any number of these share one Redis queue. */
export async function startController(config: ControllerConfig, options: ControllerOptions = {}): Promise<RunningController> {
  const log = options.log ?? createLogger('controller');
  // The slim client, not client-node: importing client-node alone costs ~85 MiB of RSS.
  const rest = connectKube(config.kubeconfig);
  const kube = slimKubeClients(rest);
  const api = new HelmReleaseApi(kube);
  await prepareWorkDir(config.workDir, log);
  const digester = new ValuesDigester(await getOrCreateDigestKey(kube, controllerNamespace(config.controllerNamespace)));
  const operations = new RunningOperations();
  const registry = options.registry ?? newMetricsRegistry();
  const metrics = new ControllerMetrics(registry);
  const connection = connectRedis(config.redisUrl);
  // Every happening becomes a Kubernetes Event and, when wired, a notification.
  const publisher = options.notifications?.(connection, config.queuePrefix, log);
  const queue = new ReconcileQueue(connection, config.queuePrefix);
  const ledger = new CheckLedger(connection, config.queuePrefix, (error) => log.warn({ error: error.message }, 'could not record checks'));
  const outstanding = new OutstandingJobs();
  const { enqueue, requeue, onGeneration } = queueTriggers(queue, operations, log, outstanding);
  // With leader election the leader alone watches and tells every replica of a new generation (a follower cancels a doomed helm).
  const generations = config.leaderElection ? new GenerationBroadcast(connection, config.queuePrefix, log) : undefined;
  await generations?.subscribe(({ key, generation }) => onGeneration(key, generation));
  // One probe per process while the API server is unreachable; its return releases what waits at once.
  const outage = new ApiOutage({ probe: () => probeApiServer(rest), log });
  // Watches and resync run once per cluster: on the leader when leader election is on.
  const watches = new ClusterWatches({
    informers: {
      rest,
      api,
      namespaces: config.namespaces,
      onKey: enqueue,
      onGeneration: (key, generation) => {
        onGeneration(key, generation);
        generations?.publish(key, generation);
      },
      log,
      silenceMs: config.watchSilenceMs,
      onRestart: (cause) => metrics.informerRestarted(cause),
      onWatchReconnect: () => metrics.watchReconnected(),
      onFailure: (error) => void outage.decide(error),
    },
    valuesSources: (releases) => ({ rest, namespaces: config.namespaces, releases, onKey: enqueue, log }),
    records: { rest, namespaces: config.namespaces, log },
    resync: (releases) => ({
      list: releases,
      ...outstanding.resyncGate(ledger),
      onKey: enqueue,
      onError: (error) => log.warn({ error: error.message }, 'resync skipped a tick: could not read the check ledger'),
      onTick: () => metrics.resyncTicked(),
      tickMs: config.resyncTickMs,
      killMarginMs: config.helmKillMarginSeconds * 1000,
    }),
  });
  metrics.countReleases(() => watches.list());
  watchQueue(registry, RECONCILE_QUEUE, queue.raw);
  // Freezes (and their Teams) are watched on every replica, since every worker checks them before helm; one that changes or ends enqueues what it held.
  const freezeApi = new FreezeApi(kube);
  const teamApi = new TeamApi(kube);
  const freezes = new FreezeWatch({
    rest,
    list: { freezes: () => freezeApi.list(), teams: () => teamApi.list() },
    onChange: (reason) => {
      for (const key of frozenReleaseKeys(watches.list())) enqueue(key, reason);
    },
    log,
    onFailure: (error) => void outage.decide(error),
  });
  // Back from an outage: the watches list again before the work that waited runs (registered first).
  outage.whenBack(() => Promise.all([watches.retryNow(), freezes.retryNow()]).then(() => undefined));
  const freezeHolds = new FreezeHeldWriter(freezeApi, FIELD_MANAGER);
  // A named cluster is in a fleet: it also holds the fleet's freezes, and acts only while it can read them.
  const fleetFreezeStore = new FleetFreezeStore(connection, config.fleetPrefix);
  const fleetFreezes = fleetFreezeWatchOf({
    cluster: config.cluster,
    list: () => fleetFreezeStore.list(),
    pollMs: config.fleetFreezeMs,
    onChange: (reason) => fleetWakeKeys(watches.list()).forEach((key) => enqueue(key, reason)),
    log,
  });
  const freezeView = fleetFreezes ? new WithFleetFreezes(freezes, fleetFreezes) : freezes;
  // Proposals (issue 35) live in this cluster's keyspace: the bot counts votes there, passes apply the approved ones.
  const proposals = controllerProposals(connection, config, kube);
  // More passes than helm slots: the next ones read while helm runs (controller-context.ts, helm-slots.ts); fewer after a hand-back.
  const readAhead = new ReadAhead(config.concurrency, reconcileWorkers(config.concurrency, config.readAhead));
  // Replicas on one node share its helm slots when each knows its node (helm/node-helm-slots.ts).
  const nodeSlots = await startNodeHelmSlots(config.nodeHelmSlots, connection, config.queuePrefix, log, metrics);
  const ctx = controllerContext(config, {
    rest,
    kube,
    api,
    digester,
    metrics,
    log,
    publisher,
    operations,
    cache: watches,
    settled: watches.settled,
    freezes: freezeView,
    freezeHolds,
    proposals: proposals.ports,
    queueLoad: queueLoadOf(queue.raw),
    readAhead,
    nodeSlots,
  });
  const images = proposals.watcher(ctx, { releases: () => watches.list(), enqueue }); // once per cluster, on the leader, beside the watches
  const worker = startReconcileWorker({
    connection,
    prefix: config.queuePrefix,
    concurrency: reconcileWorkers(config.concurrency, config.readAhead),
    log,
    reconcile: recordedPass((namespace, name) => reconcileReportingErrors(ctx, namespace, name), ledger),
    onPass: (outcome, seconds) => metrics.reconciled(outcome, seconds),
    requeue,
    outage,
    lockMs: config.reconcileLockMs,
  });
  readAhead.attach(worker);

  // Plans in chat ask what a change would do; helm runs here, so the answer is computed here.
  const previews = startPreviewWorker({
    connection,
    prefix: config.queuePrefix,
    log,
    namespaces: config.namespaces,
    preview: (request) => computePreview(ctx, request),
  });

  // Commands the bot sends this cluster through Redis, signed with its key (core/fleet/signed-command.ts).
  const commands = config.commandKey
    ? startCommandWorker({
        connection,
        prefix: config.queuePrefix,
        cluster: config.cluster,
        key: config.commandKey,
        api,
        storage: new ReleaseStorage(kube),
        freezes: async () => [...(await freezeApi.list()).items, ...(fleetFreezes ? freezesOfCluster(await fleetFreezeStore.list(), config.cluster) : [])],
        namespaces: config.namespaces,
        events: ctx.events,
        rest,
        tenancy: config.tenancy,
        log,
      })
    : undefined;

  await freezes.start();
  await fleetFreezes?.start();
  const elector = config.leaderElection
    ? new LeaseElector({
        rest,
        namespace: controllerNamespace(config.controllerNamespace),
        name: leaseName(config.queuePrefix),
        log,
        leaseDurationMs: config.leaseDurationMs,
        retryMs: config.leaseRetryMs,
        onStartedLeading: () => {
          images.start();
          return watches.start();
        },
        onStoppedLeading: async () => {
          await images.stop();
          await watches.stop();
        },
      })
    : undefined;
  metrics.countLeadership(() => elector?.isLeader ?? true);
  if (elector) elector.start();
  else {
    await watches.start();
    images.start();
  }
  // This replica announces itself to the fleet (`helmcrew fleet`); the pod's name is its host name.
  const heartbeat = startHeartbeat({
    redis: connection,
    fleetPrefix: config.fleetPrefix,
    cluster: config.cluster,
    replica: `${hostname()}-${process.pid}`,
    version: helmcrewVersion(),
    releases: () => watches.list().length,
    intervalMs: config.heartbeatMs,
    ttlMs: HEARTBEAT_TTL_MS,
    log,
  });
  const health = config.healthPort
    ? startHealthServer({
        port: config.healthPort,
        registry,
        checks: [{ name: 'informers', ready: () => watches.ready || !watches.active }, redisCheck(connection)],
      })
    : undefined;
  log.info(
    {
      redis: redactRedisUrl(config.redisUrl),
      prefix: config.queuePrefix,
      cluster: config.cluster,
      fleetCommands: Boolean(commands),
      namespaces: config.namespaces,
      concurrency: config.concurrency,
      tenancy: config.tenancy,
    },
    'controller started',
  );

  return {
    ready: () => watches.ready || !watches.active,
    health,
    stop: async () => {
      heartbeat.stop();
      await health?.close();
      generations?.close(); // draining lets helm in flight finish, as a replica that stopped watching would (deaf to new generations too)
      await elector?.stop();
      await images.stop();
      outage.stop();
      await watches.stop();
      await freezes.stop();
      fleetFreezes?.stop();
      // Let an in-flight reconcile finish: killing helm mid-upgrade leaves a pending release.
      await worker.close();
      nodeSlots?.close();
      await ledger.flush();
      await previews.close();
      await commands?.close();
      await queue.close();
      await publisher?.close();
      connection.disconnect();
    },
  };
}

import type { Redis } from 'ioredis';
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
import { RECONCILE_QUEUE, ReconcileQueue, startReconcileWorker } from './queue/reconcile-queue.js';
import { computePreview } from './preview/compute-preview.js';
import { startPreviewWorker } from './preview/preview-worker.js';
import { controllerContext } from './controller-context.js';
import { RunningOperations } from './reconcile/ports/running-operations.js';
import { reconcileReportingErrors } from './reconcile/unexpected-error.js';
import { ValuesDigester } from '../core/release/values-digest.js';
import { FreezeApi } from '../core/kube/freeze-api.js';
import { TeamApi } from '../core/kube/team-api.js';
import { frozenReleaseKeys } from './watch/frozen-wake.js';
import { queueTriggers } from './queue/queue-triggers.js';
import { recordedPass } from './queue/recorded-pass.js';
import { prepareWorkDir } from './helm/work-dir.js';
import { FIELD_MANAGER } from '../api/vocabulary.js';
import { FreezeHeldWriter } from './watch/freeze-held-writer.js';
import { FreezeWatch } from './watch/freeze-watch.js';
import { ClusterWatches } from './watch/cluster-watches.js';
import { LeaseElector } from './leader/lease-elector.js';
import { leaseName } from './leader/lease-decision.js';

/** Where the controller's happenings go beyond Kubernetes Events; the CLI wires notify's publisher here. */
export interface NotificationSink extends ReleaseEventSink {
  close(): Promise<void>;
}

export interface ControllerOptions {
  log?: Logger;
  /** Made on the controller's own Redis connection; none: Kubernetes Events only. */
  notifications?: (connection: Redis, prefix: string, log: Logger) => NotificationSink;
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
  const ledger = new CheckLedger(connection, config.queuePrefix);
  const { enqueue, requeue, onGeneration } = queueTriggers(queue, operations, log);
  // Watches and resync run once per cluster: on the leader when leader election is on.
  const watches = new ClusterWatches({
    informers: {
      rest,
      api,
      namespaces: config.namespaces,
      onKey: enqueue,
      onGeneration,
      log,
      silenceMs: config.watchSilenceMs,
      onRestart: (cause) => metrics.informerRestarted(cause),
      onWatchReconnect: () => metrics.watchReconnected(),
    },
    valuesSources: (releases) => ({ rest, namespaces: config.namespaces, releases, onKey: enqueue, log }),
    resync: (releases) => ({
      list: releases,
      lastChecked: () => ledger.all(),
      onKey: enqueue,
      onError: (error) => log.warn({ error: error.message }, 'resync skipped a tick: could not read the check ledger'),
      onTick: () => metrics.resyncTicked(),
      tickMs: config.resyncTickMs,
    }),
  });
  metrics.countReleases(() => watches.list());
  watchQueue(registry, RECONCILE_QUEUE, queue.raw);
  // Freezes (and the Teams they may name) are watched on every replica, since every worker checks
  // them before helm; when one changes or ends by itself, every release it held is enqueued at once.
  const freezeApi = new FreezeApi(kube);
  const teamApi = new TeamApi(kube);
  const freezes = new FreezeWatch({
    rest,
    list: { freezes: () => freezeApi.list(), teams: () => teamApi.list() },
    onChange: (reason) => {
      for (const key of frozenReleaseKeys(watches.list())) enqueue(key, reason);
    },
    log,
  });
  const freezeHolds = new FreezeHeldWriter(freezeApi, FIELD_MANAGER);
  const ctx = controllerContext(config, { rest, kube, api, digester, metrics, log, publisher, operations, cache: watches, freezes, freezeHolds });
  const worker = startReconcileWorker({
    connection,
    prefix: config.queuePrefix,
    concurrency: config.concurrency,
    log,
    reconcile: recordedPass((namespace, name) => reconcileReportingErrors(ctx, namespace, name), ledger, log),
    onPass: (outcome, seconds) => metrics.reconciled(outcome, seconds),
    requeue,
  });

  // Plans in chat ask what a change would do; helm runs here, so the answer is computed here.
  const previews = startPreviewWorker({ connection, prefix: config.queuePrefix, log, preview: (request) => computePreview(ctx, request) });

  await freezes.start();
  const elector = config.leaderElection
    ? new LeaseElector({
        rest,
        namespace: controllerNamespace(config.controllerNamespace),
        name: leaseName(config.queuePrefix),
        log,
        leaseDurationMs: config.leaseDurationMs,
        retryMs: config.leaseRetryMs,
        onStartedLeading: () => watches.start(),
        onStoppedLeading: () => watches.stop(),
      })
    : undefined;
  metrics.countLeadership(() => elector?.isLeader ?? true);
  if (elector) elector.start();
  else await watches.start();
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
      await health?.close();
      await elector?.stop();
      await watches.stop();
      await freezes.stop();
      // Let an in-flight reconcile finish: killing helm mid-upgrade leaves a pending release.
      await worker.close();
      await previews.close();
      await queue.close();
      await publisher?.close();
      connection.disconnect();
    },
  };
}

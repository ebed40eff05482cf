import { mkdir } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import type { ControllerConfig } from './config.js';
import { createLogger, type Logger } from '../core/log.js';
import { RepositoryIndexCache } from './charts/repository-index.js';
import { startHealthServer, type HealthServer } from '../core/metrics/health-server.js';
import { redisCheck } from '../core/metrics/redis-check.js';
import { newMetricsRegistry, type Registry } from '../core/metrics/registry.js';
import { watchQueue } from '../core/metrics/queue-metrics.js';
import { ControllerMetrics } from './metrics/controller-metrics.js';
import { HelmClient, removeLeftoverValuesFiles } from './helm/helm-client.js';
import { removeLeftoverPrivateFiles } from './helm/private-files.js';
import { GitChartSources } from './charts/git/git-chart-sources.js';
import { HelmRunner } from './helm/helm-runner.js';
import { helmProcessEnv } from './helm/helm-process-env.js';
import { DEFAULT_RECORD_LIMITS } from '../core/helm-storage/release-record.js';
import { ReleaseStorage } from '../core/helm-storage/release-storage.js';
import { connectKube, slimKubeClients } from '../core/kube/slim-clients.js';
import { IdentityClients } from '../core/kube/identity.js';
import { ClusterObjects } from '../core/kube/cluster-objects.js';
import { DriftDetector } from './drift/drift-detector.js';
import { CrdApplier } from './crds/crd-applier.js';
import { controllerNamespace, getOrCreateDigestKey } from '../core/kube/digest-key.js';
import { KubeEventRecorder } from '../core/kube/event-recorder.js';
import { CompositeEventSink, type ReleaseEventSink } from '../core/events/release-event-sink.js';
import { HelmReleaseApi } from '../core/kube/helmrelease-api.js';
import { CheckLedger } from './queue/check-ledger.js';
import { connectRedis, redactRedisUrl } from '../core/redis.js';
import { RECONCILE_QUEUE, ReconcileQueue, startReconcileWorker } from './queue/reconcile-queue.js';
import { computePreview } from './preview/compute-preview.js';
import { startPreviewWorker } from './preview/preview-worker.js';
import { buildReconcileContext } from './reconcile/build-context.js';
import { RunningOperations } from './reconcile/running-operations.js';
import { reconcileReportingErrors } from './reconcile/unexpected-error.js';
import { ValuesDigester } from '../core/release/values-digest.js';
import { FreezeApi } from '../core/kube/freeze-api.js';
import { TeamApi } from '../core/kube/team-api.js';
import { isFrozenRecorded } from './reconcile/freeze-decision.js';
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
  await mkdir(config.workDir, { recursive: true, mode: 0o700 });
  const leftovers = await removeLeftoverValuesFiles(config.workDir);
  if (leftovers.length > 0) log.warn({ workDir: config.workDir, removed: leftovers.length }, 'removed values files left by a stopped controller');
  const credentialLeftovers = await removeLeftoverPrivateFiles(config.workDir);
  if (credentialLeftovers.length > 0)
    log.warn({ workDir: config.workDir, removed: credentialLeftovers.length }, 'removed credential files left by a stopped controller');
  const helmEnv = helmProcessEnv({ workDir: config.workDir, kubeconfig: config.kubeconfig, goGC: config.helmGoGC });
  const digester = new ValuesDigester(await getOrCreateDigestKey(kube, controllerNamespace(config.controllerNamespace)));
  const operations = new RunningOperations();
  const registry = options.registry ?? newMetricsRegistry();
  const metrics = new ControllerMetrics(registry);
  const connection = connectRedis(config.redisUrl);
  // Every happening becomes a Kubernetes Event and, when wired, a notification.
  const publisher = options.notifications?.(connection, config.queuePrefix, log);
  const queue = new ReconcileQueue(connection, config.queuePrefix);
  const ledger = new CheckLedger(connection, config.queuePrefix);
  const enqueue = (key: string, reason: string) => {
    queue.enqueue(key, reason).catch((error: Error) => log.error({ release: key, error: error.message }, 'could not enqueue'));
  };
  const onGeneration = (key: string, generation: number | undefined) => {
    if (operations.supersede(key, generation))
      log.info({ release: key, action: 'supersede', generation }, 'a newer generation cancels the running helm operation');
  };
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
      for (const release of watches.list()) {
        if (isFrozenRecorded(release)) enqueue(`${release.metadata.namespace}/${release.metadata.name}`, reason);
      }
    },
    log,
  });
  const ctx = buildReconcileContext({
    kube,
    api,
    storage: new ReleaseStorage(kube, digester, { ...DEFAULT_RECORD_LIMITS, maxInflatedBytes: config.maxReleaseRecordBytes }),
    identities: new IdentityClients(kube),
    tenancy: config.tenancy,
    helm: new HelmClient(
      new HelmRunner(config.helmBin, helmEnv, log, (verb, result, seconds) => metrics.helmRan(verb, result, seconds)),
      config.workDir,
      config.kustomizeBin,
    ),
    charts: new RepositoryIndexCache({ policy: config.allowedRepositoryHosts, maxIndexBytes: config.maxIndexBytes, maxCacheBytes: config.indexCacheBytes }),
    gitCharts: new GitChartSources({ gitBin: config.gitBin, workDir: config.workDir, policy: config.allowedRepositoryHosts, log }),
    digester,
    events: new CompositeEventSink(publisher ? [new KubeEventRecorder(kube, log), publisher] : [new KubeEventRecorder(kube, log)]),
    log,
    operations,
    drift: new DriftDetector(new ClusterObjects(rest), config.helmFieldManager),
    crds: new CrdApplier(new ClusterObjects(rest), config.helmFieldManager),
    cache: watches,
    freezes,
  });
  const worker = startReconcileWorker({
    connection,
    prefix: config.queuePrefix,
    concurrency: config.concurrency,
    log,
    reconcile: async (namespace, name) => {
      const result = await reconcileReportingErrors(ctx, namespace, name);
      // Bookkeeping only: if Redis hiccups here, the release is merely due again sooner.
      await (result.action === 'gone' ? ledger.forget(result.key) : ledger.checked(result.key, Date.now())).catch((error: Error) =>
        log.warn({ release: result.key, error: error.message }, 'could not record the check'),
      );
      return result;
    },
    onPass: (outcome, seconds) => metrics.reconciled(outcome, seconds),
    requeue: (key, reason, delayMs) => {
      queue.enqueue(key, reason, delayMs).catch((error: Error) => log.error({ release: key, error: error.message }, 'could not requeue'));
    },
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

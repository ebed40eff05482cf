import { SopsDecrypter } from './sops/sops-decrypter.js';
import { CosignVerifier } from './charts/verification/cosign-verifier.js';
import { NotationVerifier } from './charts/verification/notation-verifier.js';
import type { ControllerConfig } from './config.js';
import type { Logger } from '../core/log.js';
import type { KubeRest } from '../core/kube/rest-client.js';
import type { KubeClients } from '../core/kube/client.js';
import { RepositoryIndexCache } from './charts/repository-index.js';
import { HelmClient } from './helm/helm-client.js';
import { GitChartSources } from './charts/git/git-chart-sources.js';
import { DependencyBuilds } from './helm/dependency-build.js';
import { ProvenanceVerifier } from './helm/provenance-verify.js';
import { ProvenanceChecks } from './charts/verification/provenance-checks.js';
import { HelmRunner } from './helm/helm-runner.js';
import { HelmSlots } from './helm/helm-slots.js';
import { HelmSlotGate } from './helm/helm-slot-gate.js';
import type { QueueLoadReader } from './helm/slot-wait.js';
import type { NodeHelmSlots } from './helm/node-helm-slots.js';
import type { ReadAhead } from './queue/read-ahead.js';
import { helmProcessEnv } from './helm/helm-process-env.js';
import { DEFAULT_RECORD_LIMITS } from '../core/helm-storage/release-record.js';
import { ReleaseStorage } from '../core/helm-storage/release-storage.js';
import { IdentityClients } from '../core/kube/identity.js';
import { ClusterObjects } from '../core/kube/cluster-objects.js';
import { ObjectReader } from '../core/kube/object-reader.js';
import { DriftDetector } from './drift/drift-detector.js';
import { CrdApplier } from './crds/crd-applier.js';
import { ManagedIdentities } from './tenancy/managed-identity.js';
import { KubeEventRecorder } from '../core/kube/event-recorder.js';
import { CompositeEventSink, type ReleaseEventSink } from '../core/events/release-event-sink.js';
import type { HelmReleaseApi } from '../core/kube/helmrelease-api.js';
import type { ValuesDigester } from '../core/release/values-digest.js';
import type { ControllerMetrics } from './metrics/controller-metrics.js';
import type { RunningOperations } from './reconcile/ports/running-operations.js';
import { RemoteClusters } from './targets/remote-clusters.js';
import { KubeconfigHelmRunner } from './helm/kubeconfig-runner.js';
import { buildReconcileContext } from './reconcile/ports/build-context.js';
import { ExitedHelmRuns } from './helm/exited-helm-runs.js';
import type {
  ControllerContext,
  FreezeHoldWriter,
  FreezeView,
  ProposalReads,
  ProposalWrites,
  ReleaseCache,
  SettledHistoryPort,
} from './reconcile/ports/context.js';

/** What the controller's reconcile context is made of beyond its configuration: the parts startController also wires elsewhere. */
export interface ControllerParts {
  rest: KubeRest;
  kube: KubeClients;
  api: HelmReleaseApi;
  digester: ValuesDigester;
  metrics: ControllerMetrics;
  log: Logger;
  /** Notifications, when wired; Kubernetes Events always. */
  publisher: ReleaseEventSink | undefined;
  operations: RunningOperations;
  cache: ReleaseCache;
  /** Settled checks' last histories (watch/settled-histories.ts); none: every check reads its records. */
  settled?: SettledHistoryPort;
  freezes: FreezeView;
  freezeHolds?: FreezeHoldWriter;
  /** Approved proposals (issue 35) read and marked applied by passes. */
  proposals?: { reads: ProposalReads; writes: ProposalWrites };
  /** The reconcile queue's load, for an install or upgrade that finds every helm slot taken (helm/slot-wait.ts); none: it waits. */
  queueLoad?: QueueLoadReader;
  /** Paused after a hand-back, resumed when a helm slot frees (queue/read-ahead.ts). */
  readAhead?: Pick<ReadAhead, 'pause' | 'resume'>;
  /** The node's helm slots, shared with the other replicas there (helm/node-helm-slots.ts); none: this replica's own only. */
  nodeSlots?: Pick<NodeHelmSlots, 'acquire'> | undefined;
}

/** The controller's reconcile context: helm as configured, charts under the host policy, every happening an Event (and a notification). */
export function controllerContext(config: ControllerConfig, parts: ControllerParts): Readonly<ControllerContext> {
  const { rest, kube, api, digester, metrics, log, publisher, operations, cache, settled, freezes, freezeHolds, proposals, queueLoad, readAhead, nodeSlots } =
    parts;
  const helmEnv = helmProcessEnv({ workDir: config.workDir, kubeconfig: config.kubeconfig, goGC: config.helmGoGC });
  const recordLimits = { ...DEFAULT_RECORD_LIMITS, maxInflatedBytes: config.maxReleaseRecordBytes };
  // HELMCREW_CONCURRENCY release-changing helm processes at once, whichever cluster they act on (helm-slots.ts).
  const slots = new HelmSlots(config.concurrency, () => readAhead?.resume());
  const helmRuns = new ExitedHelmRuns();
  const helmRunner = new HelmRunner(
    config.helmBin,
    helmEnv,
    log,
    (verb, result, seconds) => metrics.helmRan(verb, result, seconds),
    slots,
    helmRuns,
    nodeSlots,
  );
  // spec.kubeConfig: the same parts, on the target cluster; helm gets its kubeconfig as a private file.
  const targets = new RemoteClusters({
    policy: { allowExec: config.remoteTargets.allowExec },
    connectTimeoutMs: config.remoteTargets.connectTimeoutMs,
    retryAfterMs: config.remoteTargets.retryAfterMs,
    log,
    build: (targetRest, identities, kubeconfig) => ({
      storage: new ReleaseStorage(identities.forUser(undefined), digester, recordLimits),
      helm: new HelmClient(new KubeconfigHelmRunner(helmRunner, config.workDir, kubeconfig), config.workDir, config.kustomizeBin, config.helmKillMarginSeconds),
      drift: new DriftDetector(new ClusterObjects(targetRest), config.helmFieldManager),
      crds: new CrdApplier(new ClusterObjects(targetRest), config.helmFieldManager),
      objects: new ObjectReader(new ClusterObjects(targetRest)),
    }),
  });
  const objects = new ObjectReader(new ClusterObjects(rest));
  const charts = new RepositoryIndexCache({
    policy: config.allowedRepositoryHosts,
    maxIndexBytes: config.maxIndexBytes,
    maxCacheBytes: config.indexCacheBytes,
  });
  return buildReconcileContext({
    kube,
    objects,
    releaseObjects: objects,
    api,
    storage: new ReleaseStorage(kube, digester, recordLimits),
    identities: new IdentityClients(kube),
    tenancy: config.tenancy,
    managedIdentities: new ManagedIdentities(rest),
    helm: new HelmClient(helmRunner, config.workDir, config.kustomizeBin, config.helmKillMarginSeconds),
    helmRuns,
    charts,
    // helm verify needs no cluster: the home runner serves releases on every cluster.
    provenance: new ProvenanceChecks({
      workDir: config.workDir,
      download: (url, repository, access) => charts.downloadArchive(url, repository, access),
      verifier: new ProvenanceVerifier(helmRunner),
    }),
    gitCharts: new GitChartSources({
      gitBin: config.gitBin,
      workDir: config.workDir,
      policy: config.allowedRepositoryHosts,
      log,
      dependencies: new DependencyBuilds(helmRunner, config.workDir),
    }),
    sops: new SopsDecrypter(config.sopsBin, log),
    cosign: new CosignVerifier({
      cosignBin: config.cosignBin,
      workDir: config.workDir,
      log,
      ...(config.cosignTrustedRoot ? { trustedRoot: config.cosignTrustedRoot } : {}),
    }),
    notation: new NotationVerifier({ bin: config.notationVerifyBin, workDir: config.workDir, log }),
    digester,
    events: new CompositeEventSink(publisher ? [new KubeEventRecorder(kube, log), publisher] : [new KubeEventRecorder(kube, log)]),
    log,
    operations,
    helmSlots: new HelmSlotGate(slots, queueLoad, log, () => readAhead?.pause()),
    drift: new DriftDetector(new ClusterObjects(rest), config.helmFieldManager),
    crds: new CrdApplier(new ClusterObjects(rest), config.helmFieldManager),
    cache,
    ...(settled ? { settled } : {}),
    freezes,
    targets,
    ...(freezeHolds ? { freezeHolds } : {}),
    ...(proposals ? { proposals: proposals.reads, proposalWrites: proposals.writes } : {}),
  });
}

import type { HelmRelease } from '../../api/helmrelease.js';
import type { TenancyPolicy } from '../../core/release/tenancy-policy.js';
import type { Logger } from '../../core/log.js';
import type { RunningOperations } from './running-operations.js';
import type { HoldingFreeze } from '../../core/release/freeze-match.js';
import type { ReleaseFacts } from '../../core/release/team-releases.js';
import type { RepositoryIndexCache } from '../charts/repository-index.js';
import type { GitChartSources } from '../charts/git/git-chart-sources.js';
import type { HelmClient } from '../helm/helm-client.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { KubeClients } from '../../core/kube/client.js';
import type { IdentityClients } from '../../core/kube/identity.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { ValuesDigester } from '../../core/release/values-digest.js';
import type { DriftDetector } from '../drift/drift-detector.js';
import type { CrdApplier } from '../crds/crd-applier.js';
import type { StatusWriter } from './status-writer.js';

/** Everything a reconcile touches, injected so tests can drive it and the clock. */
export interface ReconcileContext {
  /** Clients for what is read on a HelmRelease's behalf; within a pass, its identity's (see reconciler). */
  kube: KubeClients;
  api: HelmReleaseApi;
  storage: ReleaseStorage;
  identities: IdentityClients;
  tenancy: TenancyPolicy;
  helm: HelmClient;
  charts: RepositoryIndexCache;
  /** Charts from Git (spec.chart.git); none: such a HelmRelease is reported, not installed. */
  gitCharts?: GitChartSources;
  /** Keyed values digest shared by all replicas. */
  digester: ValuesDigester;
  events: ReleaseEventSink;
  log: Logger;
  now: () => Date;
  /** The informer's copies of HelmReleases: a settled one is checked without a GET (cached-read.ts). */
  cache?: ReleaseCache;
  /** Compares and corrects live objects against Helm's manifest (spec.driftDetection); none: drift is never looked at. */
  drift?: DriftDetector;
  /** Creates or updates a chart's CRDs before helm (install/upgrade.crds); none: only helm's own install creates CRDs. */
  crds?: CrdApplier;
  /** Installs and upgrades running here, cancelled when a newer generation arrives. */
  operations?: RunningOperations;
  /** The active Freezes (watched): asked before every helm action. None: nothing is ever held. */
  freezes?: FreezeView;
}

/** The context of one pass: acting as the HelmRelease's identity, guarded as its read allows, with the pass's one status writer. */
export interface PassContext extends ReconcileContext {
  status: StatusWriter;
}

/** Where a pass may find the HelmRelease without a request (the informer supervisor). */
export interface ReleaseCache {
  get(namespace: string, name: string): HelmRelease | undefined;
}

/** What a pass asks before a helm action: undefined until Freezes and Teams have been listed (the pass then waits). */
export interface FreezeView {
  holding(release: ReleaseFacts, now: Date): HoldingFreeze[] | undefined;
}

/** Thrown to have the queue try again later with backoff: the cause may clear up by itself. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
}

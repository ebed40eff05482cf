import type { HelmRelease } from '../../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import type { TenancyPolicy } from '../../../core/release/tenancy-policy.js';
import type { Logger } from '../../../core/log.js';
import type { RunningOperations } from './running-operations.js';
import type { HoldingFreeze } from '../../../core/release/freeze-match.js';
import type { ReleaseFacts } from '../../../core/release/team-releases.js';
import type { RepositoryIndexCache } from '../../charts/repository-index.js';
import type { GitChartSources } from '../../charts/git/git-chart-sources.js';
import type { ProvenanceChecks } from '../../charts/verification/provenance-checks.js';
import type { SopsDecrypt } from '../../sops/sops-decrypter.js';
import type { ArtifactVerify } from '../../charts/verification/cosign-verifier.js';
import type { HelmClient } from '../../helm/helm-client.js';
import type { HelmSlotGate } from '../../helm/helm-slot-gate.js';
import type { ReleaseHistory, ReleaseStorage } from '../../../core/helm-storage/release-storage.js';
import type { NamedRecords, RecordRef } from '../decide/settled-records.js';
import type { KubeClients } from '../../../core/kube/client.js';
import type { CoreClient } from '../../../core/kube/kube-clients.js';
import type { IdentityClients } from '../../../core/kube/identity.js';
import type { ReleaseEventSink } from '../../../core/events/release-event-sink.js';
import type { Precondition } from '../../../core/kube/helmrelease-api.js';
import type { ValuesDigester } from '../../../core/release/values-digest.js';
import type { DriftDetector } from '../../drift/drift-detector.js';
import type { CrdApplier } from '../../crds/crd-applier.js';
import type { StatusWriter } from './status-writer.js';
import type { ManagedIdentities } from '../../tenancy/managed-identity.js';
import type { TargetCluster, TargetPolicy } from '../../../core/release/target-cluster.js';
import type { ObjectReader, ObjectReads } from '../../../core/kube/object-reader.js';
import type { Proposal } from '../../../core/proposals/proposal.js';
import type { OpenOutcome } from '../../../core/proposals/proposal-store.js';
import type { ExitedHelmRuns } from '../../helm/exited-helm-runs.js';

/**
 * The ports of a reconcile, as types: what any pass may call (reads, `ReconcileContext`), what
 * changes something (`HelmReleaseWrites`, `Effects`), and the controller's whole set they are cut
 * from (`ControllerContext`, built once by build-context.ts). A pass reaches a write only through
 * `PassContext.releaseWrites()` or `effects()`; a pass from the informer's copy gets
 * implementations of those two that refuse or verify (cached-read.ts). The compiler keeps the rule:
 * a method that is not on a read port cannot be called from one.
 */

/** HelmRelease reads. */
export interface HelmReleaseReads {
  get(namespace: string, name: string): Promise<HelmRelease | undefined>;
  list(namespace?: string): Promise<{ items: HelmRelease[]; metadata?: { resourceVersion?: string } }>;
}

/** HelmRelease writes a pass makes (status only through its StatusWriter). */
export interface HelmReleaseWrites {
  patchStatus(release: HelmRelease, status: HelmReleaseStatus): Promise<HelmRelease>;
  addFinalizer(release: HelmRelease): Promise<HelmRelease>;
  removeFinalizer(release: HelmRelease): Promise<void>;
}

/** The HelmRelease API as the controller holds it: its writes can be made conditional on a resourceVersion. */
export interface HelmReleasePort extends HelmReleaseReads {
  patchStatus(release: HelmRelease, status: HelmReleaseStatus, precondition?: Precondition): Promise<HelmRelease>;
  addFinalizer(release: HelmRelease, precondition?: Precondition): Promise<HelmRelease>;
  removeFinalizer(release: HelmRelease): Promise<void>;
}

/** Secrets and ConfigMaps read for valuesFrom and chart credentials, as the HelmRelease's identity. */
export interface KubeReads {
  core: Pick<CoreClient, 'readNamespacedSecret' | 'readNamespacedConfigMap'>;
}

/** Helm's release records: read, and worked out after helm wrote one (no effect either way). */
export type ReleaseRecordReads = Pick<ReleaseStorage, 'history' | 'historyAndRecords' | 'historyOfRecords' | 'afterWrite'>;

/** Fetching a chart archive: no effect on the cluster. A settled cached pass has none to fetch and refuses. */
export type ChartPull = Pick<HelmClient, 'pullChart'>;

/** What every pass may call: nothing here changes the cluster, Helm's records or the HelmRelease. */
export interface ReconcileContext {
  /** As the HelmRelease's identity within a pass (gate.ts `actingAs`). */
  kube: KubeReads;
  api: HelmReleaseReads;
  storage: ReleaseRecordReads;
  helm: ChartPull;
  /** This process's last lock-taking helm per release, once exited: its pending record is unlocked at once. None: the timeout decides. */
  helmRuns?: Pick<ExitedHelmRuns, 'last'>;
  tenancy: TenancyPolicy;
  charts: Pick<RepositoryIndexCache, 'resolveChart' | 'downloadArchive'>;
  /** Charts from Git (spec.chart.git); none: such a HelmRelease is reported, not installed. */
  gitCharts?: Pick<GitChartSources, 'resolve'>;
  /** spec.chart.verify provider pgp: helm's provenance check, once per chart version and key Secret version. */
  provenance?: Pick<ProvenanceChecks, 'verify'>;
  /** Decrypts SOPS-encrypted valuesFrom documents (spec.decryption); none: such a document is reported, not used. */
  sops?: SopsDecrypt;
  /** cosign: verifies spec.chart.verify (provider cosign) and imageUpdates[].verify (its verdicts cached per digest); none: such a chart is refused. */
  cosign?: ArtifactVerify;
  /** notation (tools/notation-verify): verifies spec.chart.verify and imageUpdates[].verify with provider notation, verdicts kept as cosign's; none: such a chart is refused. */
  notation?: ArtifactVerify;
  /** Keyed values digest shared by all replicas. */
  digester: ValuesDigester;
  log: Logger;
  now: () => Date;
  /** Compares live objects against Helm's manifest (spec.driftDetection); none: drift is never looked at. */
  drift?: Pick<DriftDetector, 'check'>;
  /** The active Freezes (watched): asked before every helm action. None: nothing is ever held. */
  freezes?: FreezeView;
  /** Any object by kind in this cluster, as the HelmRelease's identity: dependsOn of other kinds. None: such a dependency waits, saying so. */
  objects?: ObjectReads;
  /** The same in the release's cluster: the release's objects judged by spec.healthCheckExprs. */
  releaseObjects?: ObjectReads;
  /** Proposals approved in chat (issue 35), read from Redis; none: approved changes are never applied. */
  proposals?: ProposalReads;
}

/** This cluster's proposals as a pass reads them. */
export interface ProposalReads {
  /** The cluster the proposals are kept for (part of a proposal's id). */
  cluster: string;
  /** The approved proposals of one release of this cluster, waiting to be applied (oldest first). */
  approvedFor(namespace: string, name: string): Promise<Proposal[]>;
  /** One proposal, in any state (one HGET): whether a change was proposed already. */
  find(id: string): Promise<Proposal | undefined>;
}

export interface ProposalWrites {
  /** Marks an approved proposal applied once its change is in status; undefined when it was not approved any more. */
  markApplied(id: string): Promise<Proposal | undefined>;
  /** Opens a proposal once (core/proposals/proposal-store.ts), superseding open ones on its subject. */
  open(proposal: Proposal): Promise<OpenOutcome>;
}

/** What changes the cluster or Helm's records, or tells the world. */
export interface Effects {
  helm: Pick<HelmClient, 'install' | 'upgrade' | 'rollback' | 'uninstall' | 'test' | 'showCrds'>;
  storage: Pick<ReleaseStorage, 'markFailed'>;
  events: ReleaseEventSink;
  /** Creates or updates a chart's CRDs before helm (install/upgrade.crds); none: only helm's own install creates CRDs. */
  crds?: Pick<CrdApplier, 'apply'>;
  /** Puts drifted objects back. */
  driftCorrection?: Pick<DriftDetector, 'correct'>;
  /** Adds a held release to Freezes' status (status.held); none: nothing is recorded there. */
  freezeHolds?: FreezeHoldWriter;
  /** Proposals marked applied (issue 35). */
  proposalWrites?: ProposalWrites;
}

/** One pass: its reads, its one status writer, and the two ways to a write (which a cached pass refuses or verifies). */
export interface PassContext extends ReconcileContext {
  status: StatusWriter;
  releaseWrites(): HelmReleaseWrites;
  effects(): Effects;
  /** Installs and upgrades running in this process, cancelled when a newer generation arrives (local bookkeeping, no effect outside). */
  operations?: Pick<RunningOperations, 'begin' | 'supersede'>;
  /** This process's helm slots, asked by an install or upgrade before it says it started (helm-slot-gate.ts); none: helm waits for a slot as it comes. */
  helmSlots?: Pick<HelmSlotGate, 'take' | 'waitFor'>;
  /** Where a successful run's history is remembered for the next check (own cluster only; none for a remote target). */
  settled?: Pick<SettledHistoryPort, 'rememberWritten'>;
}

/** Everything the controller reconciles with, built once (build-context.ts) and never changed. */
export interface ControllerContext extends ReconcileContext {
  kube: KubeClients;
  api: HelmReleasePort;
  storage: ReleaseStorage;
  helm: HelmClient;
  identities: IdentityClients;
  /** Sets up helmcrew's own ServiceAccount of a namespace before a release acts as it; none: assumed in place. */
  managedIdentities?: Pick<ManagedIdentities, 'ensure'>;
  events: ReleaseEventSink;
  drift?: DriftDetector;
  crds?: CrdApplier;
  operations?: RunningOperations;
  helmSlots?: Pick<HelmSlotGate, 'take' | 'waitFor'>;
  /** The informer's copies of HelmReleases: a settled one is checked without a GET (cached-read.ts). */
  cache?: ReleaseCache;
  /** A settled release's last history, recalled instead of a LIST while its records are unchanged (watch/settled-histories.ts). */
  settled?: SettledHistoryPort;
  freezeHolds?: FreezeHoldWriter;
  /** Other clusters a HelmRelease may name in spec.kubeConfig; none: such a HelmRelease is refused. */
  targets?: TargetClusters;
  objects?: ObjectReader;
  releaseObjects?: ObjectReader;
  proposalWrites?: ProposalWrites;
}

/** A cluster a HelmRelease installs into that is not the controller's own (spec.kubeConfig). */
export type RemoteTarget = Extract<TargetCluster, { kind: 'remote' }>;

/**
 * The ports of a pass that act on the release's cluster: helm, Helm's records, drift and CRDs.
 * For a remote target they are built from its kubeconfig; the HelmRelease API, status, Events and
 * notifications, and the values sources always stay the controller's own cluster's.
 */
export interface ClusterPorts {
  /** How the cluster is named in status, Events and logs ("cluster edge (https://…)"). */
  name: string;
  /** How soon a pass that could not reach it is tried again. */
  retryAfterMs: number;
  /** That cluster's API clients, as the controller's kubeconfig user or as an identity impersonated there. */
  identities: IdentityClients;
  storage: ReleaseStorage;
  helm: HelmClient;
  drift?: DriftDetector;
  crds?: CrdApplier;
  /** Objects there by kind (healthCheckExprs). */
  objects?: ObjectReader;
}

/** The remote targets' ports, made once per kubeconfig Secret version (a rotated Secret is a new set). */
export interface TargetClusters {
  /** What a kubeconfig may do on the controller's machine (HELMCREW_ALLOW_KUBECONFIG_EXEC). */
  policy: TargetPolicy;
  /** How soon a release whose target did not answer is tried again. */
  retryAfterMs: number;
  portsFor(target: RemoteTarget): Promise<ClusterPorts>;
}

/** Whose records, read as whom ('' the controller itself): what a remembered history is kept under. */
export interface SettledKey {
  namespace: string;
  releaseName: string;
  identity: string;
}

/** The histories settled checks last read (reconcile/decide/settled-records.ts decides when one stands for a LIST). */
export interface SettledHistoryPort {
  /** The remembered history (its non-superseded records) if the watched records are those it was read from (settled-records.ts). */
  recall(key: SettledKey): ReleaseHistory | undefined;
  remember(key: SettledKey, history: ReleaseHistory, records: readonly RecordRef[]): void;
  /** The release's record Secrets as the record watch names them for a read not older than `notOlderThan` (settled-records.ts namesToRead); undefined when it cannot say. */
  recordNames(key: SettledKey, notOlderThan: string | undefined, withoutSuperseded: boolean): NamedRecords | undefined;
  /** A read of records as `key.identity` in `key.namespace` succeeded (settled-records.ts readRightsKnown). */
  readRightsShown(key: SettledKey): void;
  /** Our own install or upgrade wrote this history; `writtenBefore`: the HelmRelease's version after the status write that followed (settled-records.ts bindWritten). */
  rememberWritten(key: SettledKey, history: ReleaseHistory, writtenBefore: string): void;
}

/** Where a pass may find the HelmRelease without a request (the informer supervisor). */
export interface ReleaseCache {
  get(namespace: string, name: string): HelmRelease | undefined;
}

/** What a pass asks before a helm action: undefined until Freezes and Teams have been listed (the pass then waits). */
export interface FreezeView {
  holding(release: ReleaseFacts, now: Date): HoldingFreeze[] | undefined;
  /** Of these freezes, those whose status (as watched) does not name the release as held in their current period yet. */
  notYetHeld?(names: readonly string[], release: string, now: Date): string[];
  /** Why the freezes cannot be known now, when that is worth telling (a fleet's freezes unreadable in Redis); undefined otherwise. */
  unknown?(): string | undefined;
  /** Reads again now what is polled (the fleet's freezes in Redis), so a helm action never starts on a view older than the freeze. */
  refresh?(): Promise<void>;
}

/** Records on a Freeze's status that it held a release (read fresh, written conditionally; nothing when it is there already). */
export interface FreezeHoldWriter {
  recordHeld(freeze: string, hold: { release: string; action: string }, now: Date): Promise<void>;
}

/** A remote target's kubeconfig the controller cannot connect with (unsupported fields, a failing exec plugin, a missing file): Ready=False KubeConfigInvalid. */
export class KubeconfigUnusable extends Error {
  override name = 'KubeconfigUnusable';
}

/** Thrown to have the queue try again later with backoff: the cause may clear up by itself. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
}

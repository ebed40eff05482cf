import { basename } from 'node:path';
import { MiB, positiveInt, readSharedConfig, SHARED_ENV, type Env, type SharedConfig } from '../core/config/env.js';
import { declareEnv } from '../core/config/registry.js';
import type { TenancyPolicy } from '../core/release/tenancy-policy.js';
import { DEFAULT_ALLOWED_REPOSITORY_HOSTS, type HostPolicy } from './charts/host-policy.js';
import { clusterScopeNamespaces, commandKey, helmGoGC, hostPolicy, nodeName, serviceAccountName } from './config-values.js';

/** The controller's configuration from the environment (docs/configuration.md is generated from CONTROLLER_ENV). */

export const CONTROLLER_ENV = declareEnv(['controller'], {
  KUSTOMIZE_BIN: { default: 'kustomize', meaning: 'kustomize, run by helm’s post-renderer plugin for `spec.postRenderers` and `spec.commonMetadata`' },
  HELMCREW_GIT_BIN: { default: 'git', meaning: 'the git client for `spec.chart.git`' },
  SOPS_BIN: { default: 'sops', meaning: 'sops (getsops/sops v3), run to decrypt SOPS-encrypted `valuesFrom` documents (`spec.decryption`)' },
  COSIGN_BIN: {
    default: 'cosign',
    meaning: 'cosign (sigstore/cosign v3), run to verify signed OCI charts and images (`spec.chart.verify`, `spec.imageUpdates[].verify`)',
  },
  NOTATION_VERIFY_BIN: {
    default: 'notation-verify',
    meaning:
      'notation-verify (tools/notation-verify, on notation-go), run to verify Notary Project signatures on OCI charts and images (`verify.provider: notation`)',
  },
  COSIGN_TRUSTED_ROOT: {
    defaultText: 'none',
    meaning:
      'a Sigstore `trusted_root.json` (your Fulcio, Rekor and timestamp authorities) for keyless cosign verification (`matchOIDCIdentity`); without it cosign uses the public-good instance',
  },
  HELMCREW_HELM_FIELD_MANAGER: {
    defaultText: 'the base name of `HELM_BIN`',
    meaning: 'the field manager helm applies as (helm 4 names it after its binary): drift is compared and corrected as it',
  },
  HELMCREW_HELM_GOGC: {
    defaultText: 'Go’s own (100)',
    meaning:
      'Go’s `GOGC` for every helm process: a percent, `off` or `default` (chart `controller.helmGOGC`); `200` measured 3–21 % less CPU per helm for ~7 MiB more peak memory each',
  },
  HELMCREW_HELM_KILL_MARGIN_SECONDS: {
    default: 60,
    meaning:
      'how long past its own `--timeout` a helm process is left before it is killed; an attempt whose controller vanished is taken over after its timeout plus this',
  },
  HELMCREW_CONCURRENCY: {
    default: 4,
    meaning: 'helm operations at once per replica (with `HELMCREW_READ_AHEAD`, as many reconcile passes again read while helm runs)',
  },
  HELMCREW_READ_AHEAD: {
    default: true,
    meaning:
      'twice `HELMCREW_CONCURRENCY` reconcile passes, so the next ones have read what they need when a helm slot frees; with several replicas on one queue, an install or upgrade that finds every slot taken while nothing is queued goes back to the queue for an idle replica instead of waiting',
  },
  HELMCREW_NODE_NAME: {
    defaultText: 'none',
    meaning:
      'the node this replica runs on (the chart sets the pod’s `spec.nodeName` when it runs more than one replica): replicas on one node then run at most `HELMCREW_NODE_HELM_SLOTS` helm operations at once together, counted in Redis; unset, each replica counts only its own',
  },
  HELMCREW_NODE_HELM_SLOTS: {
    defaultText: '`HELMCREW_CONCURRENCY`',
    meaning:
      'with `HELMCREW_NODE_NAME`: helm operations at once on one node, every replica there together (a replica’s own `HELMCREW_CONCURRENCY` still applies)',
  },
  WATCH_NAMESPACES: { defaultText: 'all', meaning: 'comma-separated namespaces whose HelmReleases are watched' },
  HELMCREW_WORK_DIR: {
    defaultText: '`$TMPDIR/helmcrew`',
    meaning: 'the controller’s private work directory (credentials for helm, post-renderer folders, git checkouts), 0700',
  },
  TMPDIR: { default: '/tmp', meaning: 'where the default work directory goes' },
  HELMCREW_RESYNC_TICK_MS: { default: 5000, meaning: 'how often the resync looks for releases whose `interval` is due' },
  HELMCREW_RECONCILE_LOCK_MS: {
    default: 30_000,
    meaning:
      'how long a reconcile job stays taken by a replica that vanished (killed with its helm) before another takes it over (BullMQ’s lock and stalled-job check; renewed every half of it while the pass runs)',
  },
  HELMCREW_WATCH_SILENCE_MS: { default: 300_000, meaning: 'relist when a watch has been silent this long (a stalled connection looks like a quiet cluster)' },
  HELMCREW_SHUTDOWN_GRACE_SECONDS: {
    default: 300,
    meaning: 'after SIGTERM, how long helm operations in flight get to finish (chart `controller.shutdownGraceSeconds`; the pod’s grace period is this + 30)',
  },
  HELMCREW_LEADER_ELECTION: {
    default: false,
    meaning: 'watches and resync on one replica only, the holder of a Lease (the chart sets `true`: `leaderElection.enabled`)',
  },
  HELMCREW_LEASE_DURATION_SECONDS: { default: 15, meaning: 'the leader Lease’s duration' },
  HELMCREW_LEASE_RETRY_MS: { default: 2000, meaning: 'how often the leader renews the Lease (and a follower tries to take it)' },
  HELMCREW_DEFAULT_SERVICE_ACCOUNT: {
    defaultText: 'none: helmcrew’s own `helmcrew-release` ServiceAccount of the namespace, `admin` there only',
    meaning:
      'a HelmRelease naming no ServiceAccount acts as this ServiceAccount of its own namespace, which you create and grant ([security](security.md#tenancy))',
  },
  HELMCREW_CLUSTER_SCOPE_NAMESPACES: {
    defaultText: 'none',
    meaning:
      'comma-separated namespaces whose HelmReleases naming no ServiceAccount act with the controller’s own rights (cluster-wide charts: CRDs, cert-manager, ingress); `*`: every namespace, as before 0.2 ([security](security.md#tenancy))',
  },
  HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: {
    default: false,
    meaning:
      '`true`: a HelmRelease may reach another namespace: `spec.targetNamespace` and `spec.dependsOn[].namespace`; `false`: both are refused ([security](security.md#tenancy))',
  },
  HELMCREW_ALLOW_KUBECONFIG_EXEC: {
    default: false,
    meaning:
      '`true`: a `spec.kubeConfig` kubeconfig may run an exec plugin or name files on the controller’s disk (it runs or reads something in the controller); `false` refuses it with `KubeConfigRefused` ([security](security.md#remote-target-clusters))',
  },
  HELMCREW_TARGET_CONNECT_TIMEOUT_MS: {
    default: 5000,
    meaning: 'a `spec.kubeConfig` target cluster that accepts no connection within this long is `TargetUnreachable` (no worker waits longer)',
  },
  HELMCREW_TARGET_RETRY_MS: { default: 30_000, meaning: 'how soon a release whose target cluster was unreachable is tried again' },
  HELMCREW_ALLOWED_REPOSITORY_HOSTS: {
    defaultText: 'none: every host is refused until listed',
    meaning:
      'chart repository hosts the controller and its helm and git may contact: host names, `*.domain`, addresses and CIDRs, comma-separated; `*` is any public host; loopback, private and link-local addresses only when listed explicitly ([security](security.md#repository-hosts-and-limits))',
  },
  HELMCREW_MAX_INDEX_BYTES: {
    default: 20 * MiB,
    meaning: 'largest repository `index.yaml` (and chart archive the controller downloads itself); aborted past it',
  },
  HELMCREW_INDEX_CACHE_BYTES: { default: 64 * MiB, meaning: 'all cached chart version lists together (one LRU cache for every worker, 30 s fresh)' },
  HELMCREW_MAX_RELEASE_RECORD_BYTES: { default: 32 * MiB, meaning: 'largest inflated Helm release record decoded; past it `Ready=False ReleaseRecordInvalid`' },
  HELMCREW_HEARTBEAT_SECONDS: {
    default: 10,
    meaning: 'how often this replica announces itself to the fleet (`helmcrew fleet`); silent 3 times as long, it is listed as unreachable',
  },
  HELMCREW_FLEET_FREEZE_MS: {
    default: 2000,
    meaning:
      'how often a named cluster reads the fleet’s freezes (`/release freeze cluster:…`) from Redis; unread for 3 times as long, it runs no helm action (fail closed) ([operations](operations.md#running-a-fleet))',
  },
  HELMCREW_PROPOSALS_TICK_MS: {
    default: 5000,
    meaning:
      'how often the leader looks for image repositories due for a tag list (each `spec.imageUpdates[].interval`), approved proposals to apply and open ones past their expiry ([proposals](proposals.md))',
  },
  HELMCREW_PROPOSALS_RETENTION_HOURS: {
    default: 168,
    meaning:
      'how long the record of a closed proposal (applied, rejected, expired, superseded) stays in Redis after it closed; its chat message stays ([proposals](proposals.md))',
  },
  HELMCREW_COMMAND_KEY: {
    defaultText: 'none (no commands through Redis)',
    meaning:
      'this cluster’s key (a secret, at least 32 characters) for commands the bot sends through Redis: only commands signed with it for `HELMCREW_CLUSTER_NAME` are acted on ([operations](operations.md#running-a-fleet))',
  },
  PATH: { default: '/usr/bin:/bin', meaning: 'passed on to git, whose environment is otherwise empty' },
});

export interface ControllerConfig extends SharedConfig {
  helmBin: string;
  /** kustomize, run by helm's post-renderer plugin for spec.postRenderers and spec.commonMetadata (KUSTOMIZE_BIN). */
  kustomizeBin: string;
  /** The git client for spec.chart.git (HELMCREW_GIT_BIN, default git from PATH). */
  gitBin?: string;
  /** sops, for SOPS-encrypted valuesFrom documents (SOPS_BIN, default sops from PATH). */
  sopsBin: string;
  /** cosign, for signed OCI charts and images (COSIGN_BIN); and the trust root for keyless verification (COSIGN_TRUSTED_ROOT). */
  cosignBin: string;
  cosignTrustedRoot?: string;
  /** tools/notation-verify, for notation-signed OCI charts and images (NOTATION_VERIFY_BIN). */
  notationVerifyBin: string;
  /** The field manager helm's server-side applies are made as: drift is compared and corrected as it (HELMCREW_HELM_FIELD_MANAGER). */
  helmFieldManager: string;
  /** GOGC for every helm process (HELMCREW_HELM_GOGC); undefined: Go's default, a memory-for-CPU trade left to the operator. */
  helmGoGC?: string;
  concurrency: number;
  /** Replicas on one node share this many helm slots (HELMCREW_NODE_NAME, HELMCREW_NODE_HELM_SLOTS; helm/node-helm-slots.ts); none: each replica alone. */
  nodeHelmSlots?: { node: string; limit: number };
  /** Reconcile passes beyond the helm slots, reading while helm runs (HELMCREW_READ_AHEAD; queue/reconcile-queue.ts reconcileWorkers). */
  readAhead: boolean;
  namespaces: string[];
  workDir: string;
  resyncTickMs: number;
  /** BullMQ's job lock and stalled-job check for reconcile jobs: how soon a vanished replica's job is taken over (HELMCREW_RECONCILE_LOCK_MS). */
  reconcileLockMs: number;
  /** How long past its --timeout a helm process is left before it is killed (kill-after.ts). */
  helmKillMarginSeconds: number;
  /** Relist when the watch has been silent this long (a stalled connection looks like a quiet cluster). */
  watchSilenceMs: number;
  healthPort?: number;
  /** After SIGTERM, how long in-flight helm operations get to finish (the chart's terminationGracePeriodSeconds is longer). */
  shutdownGraceMs: number;
  /** Watches and resync on one replica only, chosen through a Lease (HELMCREW_LEADER_ELECTION). */
  leaderElection: boolean;
  leaseDurationMs: number;
  leaseRetryMs: number;
  tenancy: TenancyPolicy;
  /** Chart repository hosts the controller may contact (see host-policy.ts for the syntax). */
  allowedRepositoryHosts: HostPolicy;
  /** spec.kubeConfig: what a target's kubeconfig may do here, and how long an unreachable target may hold a worker. */
  remoteTargets: { allowExec: boolean; connectTimeoutMs: number; retryAfterMs: number };
  /** Largest repository index downloaded, in bytes. */
  maxIndexBytes: number;
  /** Memory all cached repository version lists may take together, in bytes. */
  indexCacheBytes: number;
  /** Largest inflated Helm release record decoded, in bytes. */
  maxReleaseRecordBytes: number;
  /** Where the controller keeps its own objects (the values digest key); default: the pod's namespace. */
  controllerNamespace?: string;
  /** How often this replica writes its heartbeat (core/fleet/heartbeat.ts). */
  heartbeatMs: number;
  /** HELMCREW_COMMAND_KEY: commands through Redis are taken only when set. A secret: never logged. */
  commandKey?: string;
  /** How often a named cluster reads the fleet's freezes (core/fleet/fleet-freezes.ts). */
  fleetFreezeMs: number;
  /** How often the leader's image watcher and proposal follower run (controller/proposals/image-watcher.ts). */
  proposalsTickMs: number;
  /** How long a closed proposal's record is kept (HELMCREW_PROPOSALS_RETENTION_HOURS). */
  proposalsRetentionMs: number;
}

export function readControllerConfig(env: Env = process.env): ControllerConfig {
  const shared = SHARED_ENV.in(env);
  const own = CONTROLLER_ENV.in(env);
  return {
    ...readSharedConfig(env),
    helmBin: shared.text('HELM_BIN'),
    kustomizeBin: own.text('KUSTOMIZE_BIN'),
    gitBin: own.text('HELMCREW_GIT_BIN'),
    sopsBin: own.text('SOPS_BIN'),
    cosignBin: own.text('COSIGN_BIN'),
    ...(own.raw('COSIGN_TRUSTED_ROOT') ? { cosignTrustedRoot: own.raw('COSIGN_TRUSTED_ROOT')! } : {}),
    notationVerifyBin: own.text('NOTATION_VERIFY_BIN'),
    // helm 4 names its field manager after its own binary (filepath.Base(os.Args[0])).
    helmFieldManager: own.raw('HELMCREW_HELM_FIELD_MANAGER') || basename(shared.text('HELM_BIN')),
    helmGoGC: helmGoGC('HELMCREW_HELM_GOGC', own.raw('HELMCREW_HELM_GOGC')),
    helmKillMarginSeconds: own.positiveInt('HELMCREW_HELM_KILL_MARGIN_SECONDS'),
    concurrency: own.positiveInt('HELMCREW_CONCURRENCY'),
    ...nodeHelmSlots(nodeName('HELMCREW_NODE_NAME', own.raw('HELMCREW_NODE_NAME')), env, own.positiveInt('HELMCREW_CONCURRENCY')),
    readAhead: own.boolean('HELMCREW_READ_AHEAD'),
    namespaces: (own.raw('WATCH_NAMESPACES') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    workDir: own.raw('HELMCREW_WORK_DIR') || `${own.text('TMPDIR')}/helmcrew`,
    resyncTickMs: own.positiveInt('HELMCREW_RESYNC_TICK_MS'),
    reconcileLockMs: own.positiveInt('HELMCREW_RECONCILE_LOCK_MS'),
    watchSilenceMs: own.positiveInt('HELMCREW_WATCH_SILENCE_MS'),
    healthPort: shared.raw('HEALTH_PORT') ? positiveInt(env, 'HEALTH_PORT', 8081) : undefined,
    shutdownGraceMs: own.positiveInt('HELMCREW_SHUTDOWN_GRACE_SECONDS') * 1000,
    leaderElection: own.boolean('HELMCREW_LEADER_ELECTION'),
    leaseDurationMs: own.positiveInt('HELMCREW_LEASE_DURATION_SECONDS') * 1000,
    leaseRetryMs: own.positiveInt('HELMCREW_LEASE_RETRY_MS'),
    tenancy: {
      defaultServiceAccount: serviceAccountName('HELMCREW_DEFAULT_SERVICE_ACCOUNT', own.raw('HELMCREW_DEFAULT_SERVICE_ACCOUNT')),
      clusterScopeNamespaces: clusterScopeNamespaces('HELMCREW_CLUSTER_SCOPE_NAMESPACES', own.raw('HELMCREW_CLUSTER_SCOPE_NAMESPACES')),
      allowCrossNamespaceTargets: own.boolean('HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS'),
    },
    allowedRepositoryHosts: hostPolicy('HELMCREW_ALLOWED_REPOSITORY_HOSTS', own.raw('HELMCREW_ALLOWED_REPOSITORY_HOSTS') ?? DEFAULT_ALLOWED_REPOSITORY_HOSTS),
    remoteTargets: {
      allowExec: own.boolean('HELMCREW_ALLOW_KUBECONFIG_EXEC'),
      connectTimeoutMs: own.positiveInt('HELMCREW_TARGET_CONNECT_TIMEOUT_MS'),
      retryAfterMs: own.positiveInt('HELMCREW_TARGET_RETRY_MS'),
    },
    maxIndexBytes: own.positiveInt('HELMCREW_MAX_INDEX_BYTES'),
    indexCacheBytes: own.positiveInt('HELMCREW_INDEX_CACHE_BYTES'),
    maxReleaseRecordBytes: own.positiveInt('HELMCREW_MAX_RELEASE_RECORD_BYTES'),
    controllerNamespace: shared.raw('HELMCREW_NAMESPACE') || undefined,
    heartbeatMs: own.positiveInt('HELMCREW_HEARTBEAT_SECONDS') * 1000,
    commandKey: commandKey(own.raw('HELMCREW_COMMAND_KEY')),
    fleetFreezeMs: own.positiveInt('HELMCREW_FLEET_FREEZE_MS'),
    proposalsTickMs: own.positiveInt('HELMCREW_PROPOSALS_TICK_MS'),
    proposalsRetentionMs: own.positiveInt('HELMCREW_PROPOSALS_RETENTION_HOURS') * 3600_000,
  };
}

/** The node-wide helm limit when the replica knows its node; the limit defaults to one replica's concurrency. */
function nodeHelmSlots(node: string | undefined, env: Env, concurrency: number): Pick<ControllerConfig, 'nodeHelmSlots'> {
  if (!node) return {};
  return { nodeHelmSlots: { node, limit: positiveInt(env, 'HELMCREW_NODE_HELM_SLOTS', concurrency) } };
}

import { basename } from 'node:path';
import { boolean, ConfigError, MiB, positiveInt, readSharedConfig, type Env, type SharedConfig } from '../core/config/env.js';
import type { TenancyPolicy } from '../core/release/tenancy-policy.js';
import { DEFAULT_ALLOWED_REPOSITORY_HOSTS, HostPolicyError, parseHostPolicy, type HostPolicy } from './charts/host-policy.js';
import { validGoGC } from './helm/helm-process-env.js';

/** The controller's configuration from the environment (README "Configuration"). */

export interface ControllerConfig extends SharedConfig {
  helmBin: string;
  /** kustomize, run by helm's post-renderer plugin for spec.postRenderers and spec.commonMetadata (KUSTOMIZE_BIN). */
  kustomizeBin: string;
  /** The git client for spec.chart.git (HELMCREW_GIT_BIN, default git from PATH). */
  gitBin?: string;
  /** The field manager helm's server-side applies are made as: drift is compared and corrected as it (HELMCREW_HELM_FIELD_MANAGER). */
  helmFieldManager: string;
  /** GOGC for every helm process (HELMCREW_HELM_GOGC); undefined: Go's default, a memory-for-CPU trade left to the operator. */
  helmGoGC?: string;
  concurrency: number;
  namespaces: string[];
  workDir: string;
  resyncTickMs: number;
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
  /** Largest repository index downloaded, in bytes. */
  maxIndexBytes: number;
  /** Memory all cached repository version lists may take together, in bytes. */
  indexCacheBytes: number;
  /** Largest inflated Helm release record decoded, in bytes. */
  maxReleaseRecordBytes: number;
  /** Where the controller keeps its own objects (the values digest key); default: the pod's namespace. */
  controllerNamespace?: string;
}

export function readControllerConfig(env: Env = process.env): ControllerConfig {
  return {
    ...readSharedConfig(env),
    helmBin: env.HELM_BIN || 'helm',
    kustomizeBin: env.KUSTOMIZE_BIN || 'kustomize',
    gitBin: env.HELMCREW_GIT_BIN || 'git',
    // helm 4 names its field manager after its own binary (filepath.Base(os.Args[0])).
    helmFieldManager: env.HELMCREW_HELM_FIELD_MANAGER || basename(env.HELM_BIN || 'helm'),
    helmGoGC: helmGoGC(env, 'HELMCREW_HELM_GOGC'),
    concurrency: positiveInt(env, 'HELMCREW_CONCURRENCY', 4),
    namespaces: (env.WATCH_NAMESPACES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    workDir: env.HELMCREW_WORK_DIR || `${env.TMPDIR || '/tmp'}/helmcrew`,
    resyncTickMs: positiveInt(env, 'HELMCREW_RESYNC_TICK_MS', 5000),
    watchSilenceMs: positiveInt(env, 'HELMCREW_WATCH_SILENCE_MS', 5 * 60_000),
    healthPort: env.HEALTH_PORT ? positiveInt(env, 'HEALTH_PORT', 8081) : undefined,
    shutdownGraceMs: positiveInt(env, 'HELMCREW_SHUTDOWN_GRACE_SECONDS', 300) * 1000,
    leaderElection: boolean(env, 'HELMCREW_LEADER_ELECTION', false),
    leaseDurationMs: positiveInt(env, 'HELMCREW_LEASE_DURATION_SECONDS', 15) * 1000,
    leaseRetryMs: positiveInt(env, 'HELMCREW_LEASE_RETRY_MS', 2000),
    tenancy: {
      defaultServiceAccount: serviceAccountName(env, 'HELMCREW_DEFAULT_SERVICE_ACCOUNT'),
      allowCrossNamespaceTargets: boolean(env, 'HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS', true),
    },
    allowedRepositoryHosts: hostPolicy(env, 'HELMCREW_ALLOWED_REPOSITORY_HOSTS'),
    maxIndexBytes: positiveInt(env, 'HELMCREW_MAX_INDEX_BYTES', 20 * MiB),
    indexCacheBytes: positiveInt(env, 'HELMCREW_INDEX_CACHE_BYTES', 64 * MiB),
    maxReleaseRecordBytes: positiveInt(env, 'HELMCREW_MAX_RELEASE_RECORD_BYTES', 32 * MiB),
    controllerNamespace: env.HELMCREW_NAMESPACE || undefined,
  };
}

/** Unset or "default": helm keeps Go's own setting (or the GOGC the controller's environment passes on). */
function helmGoGC(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'default') return undefined;
  const value = validGoGC(raw);
  if (!value) throw new ConfigError(`${name} must be a whole number of percent (e.g. 200), "off" or "default", got "${raw}"`);
  return value;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function serviceAccountName(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > 253 || !DNS_SUBDOMAIN.test(raw)) {
    throw new ConfigError(`${name} must be a ServiceAccount name (lower-case letters, digits, '-' and '.'), got "${raw}"`);
  }
  return raw;
}

function hostPolicy(env: Env, name: string): HostPolicy {
  try {
    return parseHostPolicy(env[name] || DEFAULT_ALLOWED_REPOSITORY_HOSTS);
  } catch (error) {
    if (error instanceof HostPolicyError) throw new ConfigError(`${name}: ${error.message}`);
    throw error;
  }
}

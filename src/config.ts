import { validGoGC } from './controller/helm/helm-process-env.js';
import { DEFAULT_ALLOWED_REPOSITORY_HOSTS, HostPolicyError, parseHostPolicy, type HostPolicy } from './controller/charts/host-policy.js';

/**
 * Configuration from the environment. A bad value stops start-up with one line naming the
 * variable; secrets are never echoed.
 */

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface ControllerConfig {
  kubeconfig?: string;
  redisUrl: string;
  queuePrefix: string;
  helmBin: string;
  /** GOGC for every helm process (HELMCREW_HELM_GOGC); undefined: Go's default, a memory-for-CPU trade left to the operator. */
  helmGoGC?: string;
  concurrency: number;
  namespaces: string[];
  workDir: string;
  resyncTickMs: number;
  /** Relist when the watch has been silent this long (a stalled connection looks like a quiet cluster). */
  watchSilenceMs: number;
  healthPort?: number;
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

/** Operator lock-down for shared clusters (README "Security"). */
export interface TenancyPolicy {
  /**
   * ServiceAccount (in each HelmRelease's own namespace) that a HelmRelease acts as when it
   * names none; unset: such a HelmRelease acts with the controller's own rights.
   */
  defaultServiceAccount?: string;
  /** Whether spec.targetNamespace may name another namespace than the HelmRelease's own. */
  allowCrossNamespaceTargets: boolean;
}

type Env = Record<string, string | undefined>;

/** What every process reads the same way: the cluster, Redis and the queue prefix. */
function sharedConfig(env: Env): { kubeconfig?: string; redisUrl: string; queuePrefix: string } {
  const redisUrl = required(env, 'REDIS_URL');
  if (!/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  return { kubeconfig: env.KUBECONFIG || undefined, redisUrl, queuePrefix: env.HELMCREW_QUEUE_PREFIX || 'helmcrew' };
}

export function readControllerConfig(env: Env = process.env): ControllerConfig {
  return {
    ...sharedConfig(env),
    helmBin: env.HELM_BIN || 'helm',
    helmGoGC: helmGoGC(env, 'HELMCREW_HELM_GOGC'),
    concurrency: positiveInt(env, 'HELMCREW_CONCURRENCY', 4),
    namespaces: (env.WATCH_NAMESPACES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    workDir: env.HELMCREW_WORK_DIR || `${env.TMPDIR || '/tmp'}/helmcrew`,
    resyncTickMs: positiveInt(env, 'HELMCREW_RESYNC_TICK_MS', 5000),
    watchSilenceMs: positiveInt(env, 'HELMCREW_WATCH_SILENCE_MS', 5 * 60_000),
    healthPort: env.HEALTH_PORT ? positiveInt(env, 'HEALTH_PORT', 8081) : undefined,
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

export interface NotifyConfig {
  kubeconfig?: string;
  redisUrl: string;
  queuePrefix: string;
  /** Deliveries in flight at once in this process (each to a different release/channel). */
  concurrency: number;
  /** The same event of the same operation within this window is said once. */
  coalesceWindowMs: number;
  /** Messages per second per channel (Slack: about 1), and the short burst allowed. */
  ratePerSecond: number;
  rateBurst: number;
  /** How often Teams are listed again. */
  teamRefreshMs: number;
  /** How long a crashed process can hold a delivery before another takes it over. */
  lockMs: number;
  /** Serve only Teams matching this label selector; default: every Team. */
  teamSelector?: string;
}

export function readNotifyConfig(env: Env = process.env): NotifyConfig {
  return {
    ...sharedConfig(env),
    concurrency: positiveInt(env, 'HELMCREW_NOTIFY_CONCURRENCY', 16),
    coalesceWindowMs: positiveInt(env, 'HELMCREW_NOTIFY_COALESCE_MS', 10 * 60_000),
    ratePerSecond: positiveNumber(env, 'HELMCREW_NOTIFY_RATE_PER_SECOND', 1),
    rateBurst: positiveInt(env, 'HELMCREW_NOTIFY_RATE_BURST', 1),
    teamRefreshMs: positiveInt(env, 'HELMCREW_TEAM_REFRESH_MS', 5000),
    lockMs: positiveInt(env, 'HELMCREW_NOTIFY_LOCK_MS', 30_000),
    teamSelector: env.HELMCREW_TEAM_SELECTOR || undefined,
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

function positiveNumber(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
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

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
}

const MiB = 1024 * 1024;

function hostPolicy(env: Env, name: string): HostPolicy {
  try {
    return parseHostPolicy(env[name] || DEFAULT_ALLOWED_REPOSITORY_HOSTS);
  } catch (error) {
    if (error instanceof HostPolicyError) throw new ConfigError(`${name}: ${error.message}`);
    throw error;
  }
}

function required(env: Env, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`${name} is not set`);
  return value;
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`${name} must be a positive whole number, got "${raw}"`);
  return value;
}

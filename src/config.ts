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
  concurrency: number;
  namespaces: string[];
  workDir: string;
  resyncTickMs: number;
  /** Relist when the watch has been silent this long (a stalled connection looks like a quiet cluster). */
  watchSilenceMs: number;
  healthPort?: number;
  /** Where the controller keeps its own objects (the values digest key); default: the pod's namespace. */
  controllerNamespace?: string;
}

type Env = Record<string, string | undefined>;

export function readControllerConfig(env: Env = process.env): ControllerConfig {
  const redisUrl = required(env, 'REDIS_URL');
  if (!/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  return {
    kubeconfig: env.KUBECONFIG || undefined,
    redisUrl,
    queuePrefix: env.HELMCREW_QUEUE_PREFIX || 'helmcrew',
    helmBin: env.HELM_BIN || 'helm',
    concurrency: positiveInt(env, 'HELMCREW_CONCURRENCY', 4),
    namespaces: (env.WATCH_NAMESPACES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    workDir: env.HELMCREW_WORK_DIR || `${env.TMPDIR || '/tmp'}/helmcrew`,
    resyncTickMs: positiveInt(env, 'HELMCREW_RESYNC_TICK_MS', 5000),
    watchSilenceMs: positiveInt(env, 'HELMCREW_WATCH_SILENCE_MS', 5 * 60_000),
    healthPort: env.HEALTH_PORT ? positiveInt(env, 'HEALTH_PORT', 8081) : undefined,
    controllerNamespace: env.HELMCREW_NAMESPACE || undefined,
  };
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

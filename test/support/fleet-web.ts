import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { webSurface } from '../../src/cli/compose/web-surface.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import type { Logger } from '../../src/core/log.js';
import type { RedisConnection } from '../../src/core/redis.js';
import { readSessionConfig } from '../../src/session/flow/config.js';
import type { WebRequestContext } from '../../src/web/contract.js';
import { readWebConfig } from '../../src/web/server/config.js';
import { eventually } from './eventually.js';

/**
 * A hub's web pages as `helmcrew web` composes them with the fleet settings, on an unlistened
 * Fastify app (`inject` or `listen`), signed in as `person` by the `x-test-person` header it names,
 * ready once the shared watch has listed. The fleet web tests' one set-up.
 */
export async function fleetWebPages(opts: {
  env: { kubeconfig: string; redisUrl: string };
  redis: RedisConnection;
  settings: Record<string, string>;
  log: Logger;
  person: { name: string; context: () => WebRequestContext };
  links?: Parameters<typeof webSurface>[5];
}): Promise<{ surface: Awaited<ReturnType<typeof webSurface>>; app: FastifyInstance }> {
  const { env, redis, settings, log, person } = opts;
  const surface = await webSurface(
    connectKube(env.kubeconfig),
    redis,
    env.redisUrl,
    readSessionConfig(settings),
    log,
    opts.links,
    {},
    readWebConfig(settings).fleet,
  );
  const app = Fastify();
  await app.register(formbody);
  app.addHook('preHandler', async (request) => {
    if (request.headers['x-test-person'] === person.name) request.web = person.context();
  });
  for (const routes of surface.pages) await routes(app);
  await eventually(() => expect(surface.ready()).toBe(true), { timeoutMs: 30_000 });
  return { surface, app };
}

/** `helmcrew web`'s settings in the hub cluster `home` with the fleet's (what readWebConfig and readSessionConfig read); sign-in settings that are never used. */
export function hubWebSettings(
  env: { kubeconfig: string; redisUrl: string },
  fleet: { fleetPrefix: string; keysDir: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    REDIS_URL: env.redisUrl,
    KUBECONFIG: env.kubeconfig,
    HELMCREW_QUEUE_PREFIX: fleet.fleetPrefix,
    HELMCREW_CLUSTER_NAME: 'home',
    HELMCREW_FLEET_KEYS_DIR: fleet.keysDir,
    HELMCREW_FLEET_TIMEOUT_SECONDS: '20',
    HELMCREW_WEB_URL: 'http://127.0.0.1:8080',
    HELMCREW_OIDC_ISSUER_URL: 'http://127.0.0.1:9',
    HELMCREW_OIDC_CLIENT_ID: 'helmcrew',
    HELMCREW_OIDC_CLIENT_SECRET: 'unused',
    ...extra,
  };
}

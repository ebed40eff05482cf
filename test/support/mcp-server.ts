import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { mcpDeps } from '../../src/cli/compose/mcp-surface.js';
import type { ClientNodeKubeClients } from '../../src/core/kube/client.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger, type Logger } from '../../src/core/log.js';
import { mcpRoute } from '../../src/mcp/http-route.js';
import { teamPolicy } from '../../src/session/authz/policy-types.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { ReleaseSession } from '../../src/session/flow/release-session.js';
import { TokenStore } from '../../src/session/tokens/token-store.js';
import { ReleaseEventWatch } from '../../src/web/live/event-watch.js';
import { HelmRecordWatch } from '../../src/web/live/record-watch.js';
import { SharedReleaseWatch } from '../../src/web/live/release-watch.js';
import { watchedReads } from '../../src/web/live/watched-reads.js';
import { releaseEventReader } from '../../src/web/pages/kube-reads.js';
import { buildWebServer } from '../../src/web/server/server.js';

export interface McpTestServer {
  /** `/mcp` on the web server, with its sign-in hook: a bearer token, not a browser session. */
  mcpUrl: URL;
  tokens: TokenStore;
  redis: Redis;
  /** The release session the assistants' calls go through (its reads from the web's watches). */
  session: ReleaseSession;
  close(): Promise<void>;
}

/**
 * The web server with `/mcp` mounted as `helmcrew web` mounts it (cli/compose/web-surface.ts):
 * releases, Teams, helm's records and the Events about releases read from the web's watches, the
 * tokens in Redis under `keyspace`. For the assistants' tests (mcp.test.ts, mcp-relay.test.ts).
 */
export async function serveMcp(
  env: { redisUrl: string; kubeconfig: string },
  kube: ClientNodeKubeClients,
  keyspace: string,
  registry: Registry,
): Promise<McpTestServer> {
  const redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
  const tokens = new TokenStore(redis, keyspace);
  const log = createLogger('mcp-test', 'warn');
  const rest = connectKube(env.kubeconfig);
  const direct = releaseOperations(kube, log, 'helmcrew-mcp-test');
  const shared = new SharedReleaseWatch({
    rest,
    list: { releases: () => direct.api.list(), freezes: () => direct.freezes.list(), teams: () => direct.teams.list() },
    log,
  });
  const records = new HelmRecordWatch({ rest, log });
  const releaseEvents = new ReleaseEventWatch({ rest, log });
  await Promise.all([shared.start(), records.start(), releaseEvents.start()]);
  const parts = releaseOperations(kube, log, 'helmcrew-mcp-test', { reads: (reads) => watchedReads(shared, reads, records) });
  const session = new ReleaseSession({ ...parts, outcomeTimeoutMs: 30_000 });
  const deps = mcpDeps({
    rest,
    redis,
    keyspace,
    session,
    api: parts.api,
    teamApi: parts.teams,
    webUrl: 'http://127.0.0.1:8080',
    registry,
    log,
    events: async (ns, name) => releaseEvents.events(ns, name) ?? releaseEventReader(rest)(ns, name),
    newestNotes: (ns, releaseName) => {
      const held = records.notes(ns, releaseName);
      return held.known ? held : undefined;
    },
  });
  const { web, mcpUrl } = await listenMcp(env, kube, redis, keyspace, deps, log);
  return {
    mcpUrl,
    tokens,
    redis,
    session,
    close: async () => {
      await web.close();
      redis.disconnect();
      await Promise.all([shared.stop(), records.stop(), releaseEvents.stop()]);
    },
  };
}

/** The web server (its sign-in hook, its headers) on 127.0.0.1, a free port, with `pages` mounted as `helmcrew web` mounts them; `/mcp`'s address on it. */
export async function listenWeb(
  env: { redisUrl: string },
  kube: ClientNodeKubeClients,
  redis: Parameters<typeof buildWebServer>[1]['redis'],
  keyspace: string,
  pages: Parameters<typeof buildWebServer>[1]['pages'],
  log: Logger,
): Promise<{ web: FastifyInstance; mcpUrl: URL }> {
  const web = await buildWebServer(
    {
      listen: { host: '127.0.0.1', port: 0 },
      publicUrl: 'http://127.0.0.1:8080',
      secureCookies: false,
      providers: [],
      sessionSeconds: 600,
      loginRateLimitPerMinute: 20,
      trustProxy: false,
      redisUrl: env.redisUrl,
      keyPrefix: keyspace,
    },
    { redis, teams: async () => (await new TeamApi(kube).list()).items.map(teamPolicy), log, pages },
  );
  await web.listen({ host: '127.0.0.1', port: 0 });
  return { web, mcpUrl: new URL(`http://127.0.0.1:${(web.server.address() as { port: number }).port}/mcp`) };
}

/** `/mcp` alone over `deps`, as the CLI mounts it (listenWeb). */
export function listenMcp(
  env: { redisUrl: string },
  kube: ClientNodeKubeClients,
  redis: Redis,
  keyspace: string,
  deps: Parameters<typeof mcpRoute>[0],
  log: Logger,
): Promise<{ web: FastifyInstance; mcpUrl: URL }> {
  return listenWeb(env, kube, redis, keyspace, [mcpRoute(deps)], log);
}

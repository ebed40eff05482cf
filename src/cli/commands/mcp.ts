import { readFileSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import { checkedRedisUrl, SHARED_ENV, type Env } from '../../core/config/env.js';
import { SlackUserGroups } from '../../core/slack/user-groups.js';
import { connectKube, slimKubeClients } from '../../core/kube/slim-clients.js';
import { createLogger } from '../../core/log.js';
import { connectRedis } from '../../core/redis.js';
import { serveStdio } from '../../mcp/stdio.js';
import { readWebUrl } from '../../core/links/web-url.js';
import { releaseOperations } from '../../session/execute/wiring.js';
import { readSessionConfig } from '../../session/flow/config.js';
import { ReleaseSession } from '../../session/flow/release-session.js';
import { assistantSlack, mcpDeps } from '../compose/mcp-surface.js';

const USAGE = 'usage: helmcrew mcp --token-file <file holding a token from `helmcrew token create`>';

/** Slack through the bot's token, when set (as the web reads it): proposals posted in the Teams' channels, the person's groups and email. */
function slackOf(env: Env) {
  const shared = SHARED_ENV.in(env);
  const token = shared.raw('SLACK_BOT_TOKEN');
  if (!token) return undefined;
  const apiUrl = shared.raw('SLACK_API_URL');
  const web = new WebClient(token, apiUrl ? { slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {});
  return assistantSlack(web, new SlackUserGroups(web));
}

/**
 * `helmcrew mcp --token-file F`: the assistants' tools over stdio (docs/mcp.md), acting as the
 * token's person against the cluster (KUBECONFIG) and Redis (REDIS_URL). Proposals land in the same
 * plan store the web and Slack approve from. Logs go to stderr; stdout is the protocol's.
 */
export async function mcpCommand(args: string[], env: Env = process.env): Promise<number> {
  if (args.length !== 2 || args[0] !== '--token-file') {
    console.error(USAGE);
    return 2;
  }
  const token = readFileSync(args[1]!, 'utf8').trim();
  const config = readSessionConfig(env);
  const log = createLogger('mcp');
  const redis = connectRedis(checkedRedisUrl(env), { maxRetriesPerRequest: 3 });
  const rest = connectKube(config.kubeconfig);
  // No previews: a plan's object diff needs the controller's queue; the plan's own lines still say what changes.
  const parts = releaseOperations(slimKubeClients(rest), log, 'helmcrew-mcp', { timeZone: config.timeZone });
  const session = new ReleaseSession({ ...parts, outcomeTimeoutMs: config.outcomeTimeoutMs });
  try {
    const slack = slackOf(env);
    const served = await serveStdio(
      mcpDeps({ rest, redis, keyspace: config.keyPrefix, session, api: parts.api, webUrl: readWebUrl(env), log, ...(slack ? { slack } : {}) }),
      token,
    );
    if ('refused' in served) {
      console.error(`helmcrew mcp: ${served.refused}`);
      return 1;
    }
    await served.closed;
    return 0;
  } finally {
    redis.disconnect();
  }
}

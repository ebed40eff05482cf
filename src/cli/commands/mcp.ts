import { readFileSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import { checkedRedisUrl, SHARED_ENV, type Env } from '../../core/config/env.js';
import { SlackUserGroups } from '../../core/slack/user-groups.js';
import { connectKube, slimKubeClients } from '../../core/kube/slim-clients.js';
import { createLogger } from '../../core/log.js';
import { connectRedis } from '../../core/redis.js';
import { serveStdio } from '../../mcp/stdio.js';
import { relayStdio } from '../../mcp/stdio-relay.js';
import { readWebUrl } from '../../core/links/web-url.js';
import { releaseOperations } from '../../session/execute/wiring.js';
import { readSessionConfig } from '../../session/flow/config.js';
import { ReleaseSession } from '../../session/flow/release-session.js';
import { assistantSlack, mcpDeps } from '../compose/mcp-surface.js';

const USAGE =
  'usage: helmcrew mcp --token-file <file holding a token> [--url <the web server, e.g. https://helmcrew.example.org>]\n' +
  "  with --url: relayed to that server's /mcp (the desktop needs only the token);\n" +
  '  without: served here, against KUBECONFIG and REDIS_URL';

/** Pure: the command line's token file and web server, or undefined when it is not one. */
export function mcpArgs(args: string[]): { tokenFile: string; url?: URL } | undefined {
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const [name, value] = [args[i]!, args[i + 1]];
    if ((name !== '--token-file' && name !== '--url') || value === undefined || options.has(name)) return undefined;
    options.set(name, value);
  }
  const tokenFile = options.get('--token-file');
  if (!tokenFile) return undefined;
  const url = options.get('--url');
  if (url === undefined) return { tokenFile };
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
    return { tokenFile, url: new URL('/mcp', parsed) };
  } catch {
    return undefined;
  }
}

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
 * `helmcrew mcp --token-file F [--url U]`: the assistants' tools over stdio (docs/mcp.md). With
 * --url, relayed to the web server's /mcp as the token's person; without, served here, acting as the
 * token's person against the cluster (KUBECONFIG) and Redis (REDIS_URL). Proposals land in the same
 * plan store the web and Slack approve from. Logs go to stderr; stdout is the protocol's.
 */
export async function mcpCommand(args: string[], env: Env = process.env): Promise<number> {
  const parsed = mcpArgs(args);
  if (!parsed) {
    console.error(USAGE);
    return 2;
  }
  const token = readFileSync(parsed.tokenFile, 'utf8').trim();
  if (parsed.url) {
    const relay = await relayStdio(parsed.url, token, createLogger('mcp'));
    await relay.closed;
    return 0;
  }
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

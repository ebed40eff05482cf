import type { TeamSpec } from '../../src/api/team.js';
import { startBot, type RunningBot } from '../../src/bot/slack/app.js';
import { readBotConfig } from '../../src/bot/slack/config.js';
import type { KubeClients } from '../../src/core/kube/client.js';
import { createLogger } from '../../src/core/log.js';
import { freePort } from '../../src/dev/free-port.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { testEnv } from './fixtures.js';

/** What a file of one /release verb over signed Slack requests talks to. */
export interface SlackTeamBot {
  slack: FakeSlack;
  bot: RunningBot;
  /** The bot's Events API URL (HTTP mode), where signed requests go. */
  events: string;
  /** The signing secret those requests are signed with. */
  secret: string;
  stop(): Promise<void>;
}

/**
 * The bot in HTTP mode on a free 127.0.0.1 port, talking to `slack` (the local fake) and working
 * the queue under `queuePrefix`; `events` is where signed requests go.
 */
export async function startHttpBot(
  slack: FakeSlack,
  opts: { token: string; secret: string; queuePrefix: string; env?: Record<string, string> },
): Promise<{ bot: RunningBot; events: string }> {
  const { env } = testEnv();
  const bot = await startBot(
    readBotConfig({
      SLACK_BOT_TOKEN: opts.token,
      SLACK_SIGNING_SECRET: opts.secret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(await freePort()),
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: opts.queuePrefix,
      ...opts.env,
    }),
    createLogger('bot', process.env.LOG_LEVEL ?? 'warn'),
  );
  return { bot, events: `http://127.0.0.1:${bot.port}/slack/events` };
}

/**
 * The local fake Slack with Alice and Mallory in one channel, a Team (labelled for this run) that
 * gives Alice these verbs in the namespace, and a bot in HTTP mode on the test controller's queue.
 */
export async function startSlackTeamBot(opts: {
  kube: KubeClients;
  namespace: string;
  queuePrefix: string;
  team: string;
  channel: { id: string; name: string };
  verbs: NonNullable<TeamSpec['permissions']>[number]['verbs'];
  /** The Team's namespaces when not just `namespace`; `any` leaves them out (every namespace, `list` of all). */
  namespaces?: string[] | 'any';
  /** More of the bot's settings (a fleet: HELMCREW_CLUSTER_NAME, HELMCREW_FLEET_KEYS_DIR). */
  env?: Record<string, string>;
  /** More permissions of the same Team (a fleet: a verb granted only in some clusters). */
  morePermissions?: NonNullable<TeamSpec['permissions']>;
}): Promise<SlackTeamBot> {
  const secret = 'test-signing-secret';
  const token = 'xoxb-test-token';
  const slack = await startFakeSlack({
    tokens: [token],
    users: ['UALICE', 'UMALLORY'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
    channels: [opts.channel],
  });
  await createTeam(opts.kube, opts.team, {
    members: { slackUsers: ['UALICE'] },
    permissions: [
      { ...(opts.namespaces === 'any' ? {} : { namespaces: opts.namespaces ?? [opts.namespace] }), verbs: opts.verbs },
      ...(opts.morePermissions ?? []),
    ],
  });
  const { bot, events } = await startHttpBot(slack, { token, secret, queuePrefix: opts.queuePrefix, ...(opts.env ? { env: opts.env } : {}) });
  return {
    slack,
    bot,
    events,
    secret,
    stop: async () => {
      await bot.stop();
      await slack.stop();
      await deleteTeam(opts.kube, opts.team);
    },
  };
}

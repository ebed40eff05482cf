import type { KubeConfig } from '@kubernetes/client-node';
import { startBot } from '../../bot/slack/app.js';
import { readBotConfig } from '../../bot/slack/config.js';
import { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../core/kube/client.js';
import { PlanAction } from '../../core/slack/action-ids.js';
import { chartVersions } from '../../dev/unicorn-versions.js';
import type { Logger } from '../../core/log.js';
import { freePort } from '../../dev/free-port.js';
import { servedColor } from '../../dev/releases.js';
import { buttonClick, postSigned, slashCommand, type FakeSlack, type FakeMessage } from '../../dev/fake-slack/index.js';
import { ALICE, INCIDENT_CHANNEL } from './demo-slack.js';

export interface ChatStoryOptions {
  kubeConfig: KubeConfig;
  /** The controller's queue prefix, which the bot shares. */
  queuePrefix: string;
  kubeconfigPath: string;
  redisUrl: string;
  namespace: string;
  say: (line: string) => void;
  log: Logger;
  /** The demo's fake Slack, the one notify posts to: the bot's messages land beside notify's. */
  slack: FakeSlack;
  /** Called once each action's outcome is on the page (to show what notify said of it). */
  afterAction?: (action: 'rollback' | 'resume') => Promise<void>;
}

const SECRET = 'demo-signing-secret';

/**
 * The chat part of the demo: the real bot (Bolt, HTTP mode) answers signed slash commands and
 * button clicks from Alice, on call in the `unicorn-oncall` Team (demo-slack.ts), with the demo's fake Slack
 * playing Slack. `/release rollback unicorn to 2` brings blue back and holds it; `/release
 * resume unicorn` returns to the declared green.
 */
export async function tellChatStory(opts: ChatStoryOptions): Promise<{ afterRollback?: string; afterResume?: string }> {
  const { say, namespace, slack } = opts;
  const bot = await startBot(
    readBotConfig({
      SLACK_BOT_TOKEN: slack.token,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(await freePort()),
      REDIS_URL: opts.redisUrl,
      KUBECONFIG: opts.kubeconfigPath,
      // The controller's prefix: plans ask it what a change would do (core/preview).
      HELMCREW_QUEUE_PREFIX: opts.queuePrefix,
    }),
    opts.log,
  );
  const events = `http://127.0.0.1:${bot.port}/slack/events`;
  try {
    say(`\n▶ chat: the /release bot (Bolt, HTTP mode on ${events}); Alice (${ALICE}) is on call, in #${INCIDENT_CHANNEL.name}`);
    // The newest kept revision that served blue (revisions add up when the demo runs again).
    const blue = chartVersions.find((v) => v.color === 'blue')!.version;
    const history = await new ReleaseStorage(makeKubeClients(opts.kubeConfig)).history(namespace, 'unicorn');
    const blueRevision = history.releases.find((r) => r.chartVersion === blue && r.status === 'superseded')?.revision;
    if (!blueRevision) throw new Error('no blue revision is kept to roll back to');
    const rollback = await command(slack, events, `rollback ${namespace}/unicorn to ${blueRevision} --reason "green confuses the customers"`, say);
    await confirm(slack, events, rollback, say);
    const afterRollback = await servedColor(opts.kubeConfig, namespace, 'unicorn');
    say(`  page:       the unicorn is ${afterRollback}; the release is suspended, so the controller leaves it there`);
    await opts.afterAction?.('rollback');
    const resume = await command(slack, events, `resume ${namespace}/unicorn`, say);
    await confirm(slack, events, resume, say);
    const afterResume = await servedColor(opts.kubeConfig, namespace, 'unicorn');
    say(`  page:       the unicorn is ${afterResume} again, as declared`);
    await opts.afterAction?.('resume');
    return { afterRollback, afterResume };
  } finally {
    await bot.stop();
  }
}

async function command(slack: FakeSlack, url: string, text: string, say: (line: string) => void): Promise<string | undefined> {
  say(`  Alice:      /release ${text}`);
  const request = slashCommand(slack, text, ALICE, INCIDENT_CHANNEL.id);
  const ack = await postSigned(url, request.form, { secret: SECRET });
  say(`  bot:        acknowledged in ${ack.ms.toFixed(0)} ms (HTTP ${ack.status})`);
  const reply = (await slack.replyOn(request.responseUrl)) as Reply;
  for (const block of reply.blocks ?? []) if (block.type === 'section') say(`  bot (only Alice sees this):\n${indent(block.text?.text ?? '')}`);
  return reply.blocks?.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === PlanAction.Confirm)?.value;
}

/** Alice presses Confirm; the bot's audit message in the channel is edited to the outcome. */
async function confirm(slack: FakeSlack, url: string, planId: string | undefined, say: (line: string) => void): Promise<void> {
  if (!planId) throw new Error('the bot offered no Confirm button');
  const before = new Set(slack.messages(INCIDENT_CHANNEL.id).map((m) => m.ts));
  say('  Alice:      presses Confirm');
  await postSigned(url, buttonClick(slack, PlanAction.Confirm, planId, ALICE, INCIDENT_CHANNEL.id).form, { secret: SECRET });
  const outcome = (m: FakeMessage) => !before.has(m.ts) && /:white_check_mark:|:x:/.test(m.text);
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const done = slack.messages(INCIDENT_CHANNEL.id).find(outcome);
    if (done) {
      say(`  #${INCIDENT_CHANNEL.name}:\n${indent(done.text)}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the bot posted no outcome within 180 s');
}

type Reply = { blocks?: Array<{ type: string; text?: { text: string }; elements?: Array<{ action_id: string; value: string }> }> };

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `              ${line.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')}`)
    .join('\n');
}

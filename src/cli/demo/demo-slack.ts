/**
 * Slack in the demo: one local fake Slack for all of it. Two Teams (the unicorn team hears
 * everything in the demo namespace, on-call only its failures) with notify delivering to it, and
 * #incident where Alice talks to the /release bot; the story shows the messages read back from
 * the fake's record.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, TEAM_KIND, TEAM_PLURAL } from '../../api/vocabulary.js';
import { readNotifyConfig } from '../../notify/config.js';
import { makeKubeClients } from '../../core/kube/client.js';
import { serverSideApply } from '../../core/kube/server-side-apply.js';
import { startFakeSlack, type FakeSlack } from '../../dev/fake-slack/index.js';
import type { Logger } from '../../core/log.js';
import { startNotify, type RunningNotify } from '../../notify/notify.js';
import { defaultProviders } from '../../notify/providers/default-providers.js';
import { messageLine, slackTranscript } from './slack-transcript.js';

const DEMO_LABEL = 'helmcrew.dev/demo';
export const DEMO_CHANNELS = ['unicorn-releases', 'oncall'] as const;
/** Alice, on call; she uses /release in #incident (chat-story.ts). */
export const ALICE = 'U0ALICE';
export const INCIDENT_CHANNEL = { id: 'C0INCIDENT', name: 'incident' } as const;

export interface DemoSlack {
  slack: FakeSlack;
  /**
   * Waits until the team channel holds `operations` messages, the newest showing an outcome, and
   * Slack has been quiet a moment; then says each message that is new or changed.
   */
  sayNewMessages(say: (line: string) => void, operations: number): Promise<void>;
  sayTranscript(say: (line: string) => void): void;
  stop(): Promise<void>;
}

/** The release pages' Slack app in the demo: the fake Slack signs Alice in with it. */
export const DEMO_OIDC_CLIENT = { clientId: 'helmcrew-demo-web', clientSecret: 'demo-only-not-a-secret' };

export async function startDemoSlack(opts: {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  redisUrl: string;
  queuePrefix: string;
  namespace: string;
  log: Logger;
}): Promise<DemoSlack> {
  const slack = await startFakeSlack({
    users: [{ id: ALICE, name: 'alice' }],
    channels: [...DEMO_CHANNELS.map((name) => ({ name })), INCIDENT_CHANNEL],
    // Sign in with Slack on the release pages the demo ends with (demo-web.ts).
    oidcClients: [DEMO_OIDC_CLIENT],
  });
  const teams = [
    { name: 'unicorn-team', spec: { subscriptions: [{ namespaces: [opts.namespace] }], channels: [{ slack: '#unicorn-releases' }] } },
    // On call hears the failures and may act from chat: Alice is its member (chat-story.ts).
    {
      name: 'unicorn-oncall',
      spec: {
        subscriptions: [{ namespaces: [opts.namespace], severity: 'error' }],
        channels: [{ slack: '#oncall' }],
        members: { slackUsers: [ALICE] },
        permissions: [{ namespaces: [opts.namespace], verbs: ['status', 'history', 'suspend', 'resume', 'rollback'] }],
      },
    },
  ];
  for (const team of teams) {
    await serverSideApply(opts.kubeConfig, `/apis/${API_GROUP}/${API_VERSION}/${TEAM_PLURAL}/${team.name}`, {
      apiVersion: `${API_GROUP}/${API_VERSION}`,
      kind: TEAM_KIND,
      metadata: { name: team.name, labels: { [DEMO_LABEL]: 'unicorn' } },
      spec: team.spec,
    });
  }
  const kube = makeKubeClients(opts.kubeConfig);
  const notify: RunningNotify = await startNotify(
    readNotifyConfig({
      KUBECONFIG: opts.kubeconfigPath,
      REDIS_URL: opts.redisUrl,
      HELMCREW_QUEUE_PREFIX: opts.queuePrefix,
      HELMCREW_TEAM_SELECTOR: `${DEMO_LABEL}=unicorn`,
      HELMCREW_TEAM_REFRESH_MS: '1000',
    }),
    opts.log,
    { providers: defaultProviders(kube, opts.log, { SLACK_BOT_TOKEN: slack.token, SLACK_API_URL: slack.apiUrl }) },
  );
  const said = new Map<string, string>();

  return {
    slack,
    async sayNewMessages(say, operations) {
      const settled = () => {
        const messages = slack.messages(DEMO_CHANNELS[0]);
        const newest = messages.at(-1);
        return messages.length >= operations && newest !== undefined && !/: (Resumed · )?(Installing|Upgrading)\b/.test(newest.text);
      };
      let calls = slack.calls().length;
      let quietSince = Date.now();
      // Generous: under a loaded CI machine notify's delivery can lag the page by many seconds.
      const deadline = Date.now() + 60_000;
      while ((!settled() || Date.now() - quietSince < 1500) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        if (slack.calls().length !== calls) {
          calls = slack.calls().length;
          quietSince = Date.now();
        }
      }
      for (const channel of DEMO_CHANNELS) {
        for (const message of slack.messages(channel)) {
          const line = messageLine(message);
          if (said.get(message.ts) === line) continue;
          said.set(message.ts, line);
          say(`  slack:      #${channel.padEnd(17)} ${line}`);
        }
      }
    },
    sayTranscript(say) {
      for (const channel of [...DEMO_CHANNELS, INCIDENT_CHANNEL.name]) {
        for (const line of slackTranscript(channel, slack.messages(channel), (ts) => slack.replies(channel, ts), slack.ephemerals(channel))) say(line);
      }
    },
    async stop() {
      await notify.stop();
      await slack.stop();
    },
  };
}

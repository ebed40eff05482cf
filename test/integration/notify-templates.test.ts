import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { FakeMSTeams } from '../../src/dev/fake-msteams/index.js';
import { FakePagerDuty } from '../../src/dev/fake-pagerduty/index.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams, notificationFor } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';

const TOKEN = 'xoxb-notify-templates-token';
const TEMPLATE = '[{{cluster}}] {{outcome}}: {{namespace}}/{{release}} {{fromVersion}} → {{toVersion}}';

/**
 * Issue 21: one Team, one template, three services: the cluster name and the template's wording
 * reach Slack, Teams and PagerDuty through a real notify process. A channel whose template does
 * not parse gets the default message and one warning on the Team's status; a channel without a
 * template still says which cluster it comes from.
 */
describe('message templates and the cluster name', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-tmpl');
  const subscribed = uniqueName('tmplns');
  const teams = new FakeMSTeams();
  const pagerduty = new FakePagerDuty();
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(run, 'test-cluster'), log: createLogger('test', 'warn') });
  let slack: FakeSlack;
  let ns: string;
  let notify: ResultPromise;

  beforeAll(async () => {
    await teams.start();
    await pagerduty.start();
    slack = await startFakeSlack({ tokens: [TOKEN], channels: [{ name: 'tmpl' }, { name: 'plain' }] });
    ns = await freshNamespace(kubeConfig, 'tmplsecrets');
    const secret = (name: string, data: Record<string, string>) =>
      kube.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, namespace: ns }, stringData: data } });
    await secret('teams-good', { url: teams.url('/good') });
    await secret('teams-broken', { url: teams.url('/broken') });
    await secret('pd', { 'routing-key': randomBytes(16).toString('hex') });
    const ref = (name: string) => ({ secretRef: { namespace: ns, name } });
    await createTeam(kube, run, `${run}-web`, {
      subscriptions: [{ namespaces: [subscribed] }],
      channels: [
        { slack: '#tmpl', template: TEMPLATE },
        { slack: '#plain' },
        { msteams: ref('teams-good'), template: TEMPLATE },
        { msteams: ref('teams-broken'), template: '{{#release}} never closed' },
        { pagerduty: ref('pd'), template: TEMPLATE },
      ],
    });
    notify = spawnNotify(env, run, join(await mkdtemp(join(tmpdir(), 'helmcrew-tmpl-')), 'notify.log'), {
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_API_URL: slack.apiUrl,
      HELMCREW_PAGERDUTY_URL: pagerduty.url,
      HELMCREW_CLUSTER_NAME: 'test-cluster',
    });
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await publisher.close();
    redis.disconnect();
    await slack?.stop();
    await teams.stop();
    await pagerduty.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
  });

  it('renders into Slack, Teams and PagerDuty; a broken template falls back with one warning', async () => {
    const rendered = `[test-cluster] Upgrade failed: ${subscribed}/unicorn 1.0.0 → 4.0.0`;
    const failed = { ...notificationFor({ namespace: subscribed, name: 'unicorn' }, 'UpgradeFailed', 'unicorn:op1'), fromVersion: '1.0.0', toVersion: '4.0.0' };
    await publisher.publish(failed);
    const slackText = (channel: string) =>
      slack
        .messages(channel)
        .map((m) => JSON.stringify(m.blocks ?? m.attachments ?? m.text))
        .join('\n');
    const done = () =>
      slack.messages('tmpl').length > 0 &&
      slack.messages('plain').length > 0 &&
      teams.cards('/good').length > 0 &&
      teams.cards('/broken').length > 0 &&
      pagerduty.alerts.alerts.length > 0;
    await teams.waitFor(done, 60_000, 'every channel to be told');

    expect(slackText('tmpl')).toContain(rendered);
    expect(JSON.stringify(teams.cards('/good')[0])).toContain(rendered);
    expect((pagerduty.alerts.alerts[0]!.log[0]!.event.payload as { summary: string }).summary).toContain(rendered);
    // No template: the default message, which still names the cluster.
    expect(slackText('plain')).toContain(failed.message);
    expect(slackText('plain')).toContain('test-cluster');
    // Broken template: the default message, and the warning on the Team, once.
    const broken = JSON.stringify(teams.cards('/broken')[0]);
    expect(broken).toContain(failed.message);
    expect(broken).not.toContain('never closed');
    expect(broken).toContain('test-cluster');
    const api = new TeamApi(kube);
    let warnings: string[] = [];
    await teams.waitFor(
      () => {
        void api
          .get(`${run}-web`)
          .then((team) => (warnings = (team?.status?.channels ?? []).flatMap((c) => (c.warning ? [`${c.channel}: ${c.warning}`] : []))));
        return warnings.length > 0;
      },
      30_000,
      'the warning on the Team',
    );
    expect(warnings).toEqual([`msteams (Secret ${ns}/teams-broken#url): template not used (Unclosed section "release" at 25); the default message is sent`]);
  });
});

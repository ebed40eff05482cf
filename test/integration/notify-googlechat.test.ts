import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { FakeGoogleChat } from '../../src/dev/fake-googlechat/index.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams, notificationFor, TEST_LABEL } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

/**
 * Issue 34: a `helmcrew notify` process posts to a Google Chat space through its incoming webhook
 * (the local fake), whose URL — it carries the webhook's key and token — is in a Secret. An
 * operation is one card (its start is not posted); a release's cards stay in one thread, another
 * release has its own; a 429 is retried; a webhook whose token is wrong is a permanent error on its
 * Team. Neither the key nor the token appears in a log, a card or a Team.
 */
describe('Google Chat: a card per operation, a thread per release', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-gchat');
  const secrets = { key: `AIza${randomBytes(16).toString('hex')}`, token: randomBytes(24).toString('base64url') };
  const chat = new FakeGoogleChat();
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(run, 'test-cluster'), log: createLogger('test', 'warn') });
  const subscribed = uniqueName('gchatns');
  let ns: string;
  let badToken: string;
  let logFile: string;
  let notify: ResultPromise;

  beforeAll(async () => {
    await chat.start();
    const url = chat.addWebhook('AAAAreleases', secrets);
    const revoked = new URL(chat.addWebhook('AAAAother'));
    badToken = randomBytes(24).toString('base64url');
    revoked.searchParams.set('token', badToken);
    ns = await freshNamespace(kubeConfig, 'gchathook');
    for (const [name, value] of [
      ['chat', url],
      ['revoked', revoked.toString()],
    ] as [string, string][])
      await kube.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, namespace: ns }, stringData: { url: value } } });
    await createTeam(kube, run, `${run}-web`, {
      subscriptions: [{ namespaces: [subscribed] }],
      channels: [{ googlechat: { secretRef: { namespace: ns, name: 'chat' } } }],
    });
    await createTeam(kube, run, `${run}-revoked`, {
      subscriptions: [{ namespaces: [subscribed], releases: ['other'] }],
      channels: [{ googlechat: { secretRef: { namespace: ns, name: 'revoked' } } }],
    });
    logFile = join(await mkdtemp(join(tmpdir(), 'helmcrew-gchat-')), 'notify.log');
    notify = spawnNotify(env, run, logFile, { HELMCREW_CLUSTER_NAME: 'test-cluster', HELMCREW_STATUS_URL: 'https://status.example.test/{namespace}/{name}' });
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await publisher.close();
    redis.disconnect();
    await chat.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
  });

  it('a release’s failure and recovery share a thread, another release has its own; a 429 is retried; the URL stays secret', async () => {
    const unicorn = { namespace: subscribed, name: 'unicorn' };
    const other = { namespace: subscribed, name: 'other' };
    chat.throttleNext(1);
    await publisher.publish(notificationFor(unicorn, 'UpgradeStarted', 'unicorn:op1'));
    await publisher.publish({ ...notificationFor(unicorn, 'UpgradeFailed', 'unicorn:op1'), errorExcerpt: 'Error: <timed out>' });
    await publisher.publish(notificationFor(other, 'InstallSucceeded', 'other:op1'));
    await chat.waitFor(() => chat.messages('AAAAreleases').length >= 2, 60_000, 'the first two cards');
    await publisher.publish({ ...notificationFor(unicorn, 'UpgradeSucceeded', 'unicorn:op2'), fromVersion: '1.0.0', toVersion: '2.0.0' });
    await chat.waitFor(() => chat.messages('AAAAreleases').length >= 3, 60_000, 'the recovery card');

    const messages = chat.messages('AAAAreleases');
    const titles = messages.map((m) => (m.body.cardsV2 as { card: { header: { title: string } } }[])[0]!.card.header.title);
    expect(titles.filter((t) => t.includes('unicorn'))).toEqual([`Upgrade failed · unicorn in ${subscribed}`, `Upgraded · unicorn in ${subscribed}`]);
    expect(titles.filter((t) => t.includes('other'))).toEqual([`Installed · other in ${subscribed}`]);
    const threadOf = (name: string) => new Set(messages.filter((m) => JSON.stringify(m.body).includes(` · ${name} in `)).map((m) => m.thread));
    expect(threadOf('unicorn').size).toBe(1);
    expect(threadOf('other').size).toBe(1);
    expect([...threadOf('unicorn')][0]).not.toBe([...threadOf('other')][0]);
    expect(messages.find((m) => m.thread === [...threadOf('unicorn')][0])!.threadKey).toBe(`helmcrew/test-cluster/${subscribed}/unicorn`);
    expect(JSON.stringify(messages[titles.indexOf(`Upgrade failed · unicorn in ${subscribed}`)]!.body)).toContain('Error: &lt;timed out&gt;');
    expect(chat.posts.filter((p) => p.status === 429).length).toBeGreaterThanOrEqual(1);

    // The revoked webhook: 401 from Chat, a permanent error on its Team, without the URL's secrets.
    const teams = await eventually(
      async () => {
        const listed = (await new TeamApi(kube).list(`${TEST_LABEL}=${run}`)).items;
        expect(listed.find((t) => t.metadata.name === `${run}-revoked`)?.status?.channels?.[0]?.errorCode).toBe('http_401');
        return listed;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const revoked = teams.find((t) => t.metadata.name === `${run}-revoked`)!.status!.channels![0]!;
    expect(revoked.channel).toBe(`googlechat (Secret ${ns}/revoked#url)`);
    expect(revoked.lastError).toMatch(
      /^Google Chat at http:\/\/127\.0\.0\.1:\d+ refused the card: HTTP 401 UNAUTHENTICATED: Request had invalid authentication credentials\.$/,
    );

    const log = await readFile(logFile, 'utf8');
    const written = JSON.stringify(teams);
    const cards = chat.posts.map((p) => p.raw).join('\n');
    for (const value of [secrets.key, secrets.token, badToken]) {
      expect(log).not.toContain(value);
      expect(written).not.toContain(value);
      expect(cards).not.toContain(value);
    }
  });
});

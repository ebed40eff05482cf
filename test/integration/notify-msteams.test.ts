import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_GROUP, API_VERSION, TEAM_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { FakeMSTeams } from '../../src/dev/fake-msteams/index.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { adaptiveCardValidator } from '../support/adaptive-card-schema.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams, notificationFor } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';

/**
 * Issue 21: a `helmcrew notify` process posts to a Teams Workflows webhook (the local fake) whose
 * URL, a credential, is in a Secret. An upgrade is one Adaptive Card (its start is not posted),
 * valid against the schema version it declares, with a link to the release's status; a 429 is
 * waited out; the URL's token appears in no log and not on the Team.
 */
describe('Microsoft Teams: one Adaptive Card per operation', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-teams');
  const token = randomBytes(16).toString('hex');
  const teams = new FakeMSTeams({ retryAfterSeconds: 1 });
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(run, 'test-cluster'), log: createLogger('test', 'warn') });
  const subscribed = uniqueName('teamsns');
  let ns: string;
  let logFile: string;
  let notify: ResultPromise;

  beforeAll(async () => {
    await teams.start();
    ns = await freshNamespace(kubeConfig, 'teamshook');
    await kube.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'teams', namespace: ns }, stringData: { url: teams.url(`/workflows/${token}`) } },
    });
    await createTeam(kube, run, `${run}-web`, {
      subscriptions: [{ namespaces: [subscribed] }],
      channels: [{ msteams: { secretRef: { namespace: ns, name: 'teams' } } }],
    });
    logFile = join(await mkdtemp(join(tmpdir(), 'helmcrew-teams-')), 'notify.log');
    notify = spawnNotify(env, run, logFile, { HELMCREW_STATUS_URL: 'https://status.example.test/{namespace}/{name}', HELMCREW_CLUSTER_NAME: 'test-cluster' });
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await publisher.close();
    redis.disconnect();
    await teams.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
  });

  it('an upgrade is one valid card with a status link; a 429 is waited out; the URL stays secret', async () => {
    const path = `/workflows/${token}`;
    teams.throttleNext(1);
    const release = { namespace: subscribed, name: 'unicorn' };
    const started = notificationFor(release, 'UpgradeStarted', 'unicorn:op1');
    const upgraded = { ...notificationFor(release, 'UpgradeSucceeded', 'unicorn:op1'), fromVersion: '1.0.0', toVersion: '2.0.0', revision: 2 };
    await publisher.publish(started);
    await publisher.publish(upgraded);
    await teams.waitFor(() => teams.cards(path).length >= 1, 60_000, 'the upgrade card');
    // Proves that nothing more happens: a late duplicate or a stray delivery would show up now.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    expect(teams.posts.map((p) => p.status)).toEqual([429, 202]);
    const cards = teams.cards(path);
    expect(cards).toHaveLength(1);
    const [card] = cards;
    const validate = adaptiveCardValidator(card!.version as string);
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
    const text = JSON.stringify(card);
    for (const part of [`Upgraded · unicorn in ${subscribed}`, 'unicorn 1.0.0 → 2.0.0', 'test-cluster']) expect(text).toContain(part);
    expect(card!.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Status', url: `https://status.example.test/${subscribed}/unicorn` }]);

    expect(await readFile(logFile, 'utf8')).not.toContain(token);
    const team = await kube.custom.getClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, name: `${run}-web` });
    expect(JSON.stringify(team)).not.toContain(token);
  });
});

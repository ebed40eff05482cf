import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueuedPreviews } from '../../src/session/execute/preview-client.js';
import { connectRedis } from '../../src/core/redis.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/**
 * Issue 33: controllers of different scopes may share one queue prefix; a preview is computed only
 * by a controller that watches the release's namespace (it acts there with that namespace's
 * identity and tenancy rules), never by one that happens to take the question first.
 */
describe('a preview is computed by a controller that serves the namespace', () => {
  const { env, kubeConfig } = testEnv();
  const prefix = uniqueName('hc-preview');
  const redis = connectRedis(env.redisUrl);
  const previews = new QueuedPreviews(redis, prefix, 4000);
  let served: string;
  let other: string;
  const replicas: TestController[] = [];
  const start = async (namespace: string) => {
    const ctl = await startTestController([namespace], { HELMCREW_QUEUE_PREFIX: prefix });
    replicas.push(ctl);
    return ctl;
  };

  beforeAll(async () => {
    served = await freshNamespace(kubeConfig, 'preview');
    other = await freshNamespace(kubeConfig, 'elsewhere');
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await previews.close();
    redis.disconnect();
    await Promise.all([served, other].map((namespace) => deleteNamespace(kubeConfig, namespace)));
  });

  it('a controller of another namespace does not answer; the one that serves it does', async () => {
    // Installed by the controller that serves the namespace, then stopped: only the other one listens.
    const owner = await start(served);
    const release = helmReleaseObject(served, 'asked', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } });
    await waitForReconciled(kubeConfig, served, 'asked', await applyHelmRelease(kubeConfig, release));
    await owner.stop();
    replicas.splice(replicas.indexOf(owner), 1);

    const stranger = await start(other);
    const unanswered = await previews.preview({ namespace: served, name: 'asked', version: '2.0.0' });
    expect(unanswered).toEqual({ ok: false, message: 'no controller answered within 4 s' });
    expect(await stranger.helm.count('upgrade')).toBe(0);

    await start(served);
    // A controller just started may need longer than the 4 s the question waits (CI under load): ask again until it answers.
    await eventually(
      async () => expect(await previews.preview({ namespace: served, name: 'asked', version: '2.0.0' })).toMatchObject({ ok: true, to: 'unicorn 2.0.0' }),
      {
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );
    expect(await stranger.helm.count('upgrade')).toBe(0);
  });
});

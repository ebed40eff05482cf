import { describe, expect, it } from 'vitest';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** Issue 5: the operator's allow-list of repository hosts, on a controller configured with one. */
describe('repository allow-list', () => {
  const { env, kubeConfig } = testEnv();
  const allowed = 'charts.example.com,localhost';
  const { namespace } = namespaceWithController('allow', { HELMCREW_ALLOWED_REPOSITORY_HOSTS: allowed });
  const port = new URL(env.chartRepoUrl).port;

  it('a listed host name installs; the same server by an unlisted address is refused', async () => {
    const byName = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'by-name', { chart: { repository: `http://localhost:${port}`, name: 'unicorn', version: '1.0.0' } }),
    );
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'by-address', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }),
    );

    const installed = await waitForReconciled(kubeConfig, namespace, 'by-name', byName);
    expect(installed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    const refused = await waitForReadyCondition(kubeConfig, namespace, 'by-address', 'RepositoryNotAllowed');
    expect(refused).toMatchObject({
      status: 'False',
      message: `repository ${env.chartRepoUrl} is not allowed: 127.0.0.1 is the loopback address 127.0.0.1, refused unless listed by exact name or address; HELMCREW_ALLOWED_REPOSITORY_HOSTS (chart value repositories.allowedHosts) allows it`,
    });
  }, 120_000);
});

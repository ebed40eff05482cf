import { describe, expect, it } from 'vitest';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** Issue 5, small things: a helm timeout says it timed out, after how long, and on what. */
describe('helm timeout', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace } = namespaceWithController('timeout');

  it('an install whose pods can never be scheduled reports the timeout, not "failed: (no output)"', async () => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unschedulable', {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' },
        timeout: '3s',
        // No node has a thousand CPUs: the pod stays Pending and helm waits until its timeout.
        values: { resources: { requests: { cpu: '1000', memory: '16Mi' } } },
      }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'unschedulable', generation, 120_000);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(ready?.message).toMatch(/^Helm install of unicorn@1\.0\.0 timed out after 3s waiting for the release's resources to become ready \(spec\.timeout\)/);
    expect(ready?.message).not.toContain('(no output)');
  }, 150_000);
});

// A whole local environment (devUp) with helmcrew's CRDs applied: what the integration tests'
// global set-up and every benchmark start from.
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig, makeKubeClients } from '../../core/kube/client.js';
import { applyCrds } from '../../core/kube/crd-installer.js';
import { FreezeApi } from '../../core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { TeamApi } from '../../core/kube/team-api.js';
import { devUp, type DevEnvironment, type DevOptions } from '../environment.js';
import { pollUntil } from './poll.js';

export async function startEnvironmentWithCrds(opts: DevOptions): Promise<{ env: DevEnvironment; kubeConfig: KubeConfig }> {
  const env = await devUp(opts);
  const kubeConfig = loadKubeConfig(env.kubeconfig);
  await applyCrds(kubeConfig);
  await waitForCustomObjectsServed(kubeConfig);
  return { env, kubeConfig };
}

/**
 * An Established CRD is not yet served: right after it, the API server can answer 429 "storage is
 * (re)initializing" for its objects. Waits until HelmReleases, Teams and Freezes can be listed, so the
 * first test of a run does not meet that.
 */
async function waitForCustomObjectsServed(kubeConfig: KubeConfig, timeoutMs = 60_000): Promise<void> {
  const kube = makeKubeClients(kubeConfig);
  const releases = new HelmReleaseApi(kube);
  const teams = new TeamApi(kube);
  const freezes = new FreezeApi(kube);
  let lastError = '';
  await pollUntil(
    async () => {
      try {
        await Promise.all([releases.list(), teams.list(), freezes.list()]);
        return true;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        return undefined;
      }
    },
    { timeoutMs, intervalMs: 500 },
    () => `HelmReleases, Teams and Freezes could not be listed within ${timeoutMs / 1000}s after their CRDs were established: ${lastError}`,
  );
}

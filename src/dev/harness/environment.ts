// A whole local environment (devUp) with helmcrew's CRDs applied: what the integration tests'
// global set-up and every benchmark start from.
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig, makeKubeClients } from '../../core/kube/client.js';
import { applyCrds } from '../../core/kube/crd-installer.js';
import { FreezeApi } from '../../core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { TeamApi } from '../../core/kube/team-api.js';
import { devUp, type DevOptions } from '../environment.js';
import type { DevEnvironment } from '../env-file.js';
import { pollUntil } from './poll.js';

export async function startEnvironmentWithCrds(opts: DevOptions): Promise<{ env: DevEnvironment; kubeConfig: KubeConfig }> {
  const env = await devUpRetryingTakenPorts(opts);
  const kubeConfig = loadKubeConfig(env.kubeconfig);
  await applyCrds(kubeConfig);
  await waitForCustomObjectsServed(kubeConfig);
  return { env, kubeConfig };
}

/**
 * Free ports are picked before the servers bind them: another process on the machine can take
 * one in between ("bind: address already in use"). devUp stops what it started on failure, so
 * a fresh try picks new ports.
 */
async function devUpRetryingTakenPorts(opts: DevOptions, attempts = 3): Promise<DevEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await devUp(opts);
    } catch (error) {
      if (attempt >= attempts || !/address already in use/.test(error instanceof Error ? error.message : String(error))) throw error;
      opts.log.warn({ attempt }, 'a port picked for the environment was taken meanwhile; starting again on new ports');
    }
  }
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

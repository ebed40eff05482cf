import type { KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';

type Condition = NonNullable<NonNullable<HelmRelease['status']>['conditions']>[number];

/**
 * Polls until the HelmRelease's Ready condition has `reason`, calling `onTick` on each poll (to
 * sample memory, say). Returns the condition; fails with the last status seen.
 */
export async function waitForReadyReason(
  kc: KubeConfig,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs = 60_000,
  onTick?: () => void,
): Promise<Condition> {
  const api = new HelmReleaseApi(makeKubeClients(kc));
  const deadline = Date.now() + timeoutMs;
  let last: HelmRelease | undefined;
  while (Date.now() < deadline) {
    onTick?.();
    last = await api.get(namespace, name);
    const ready = last?.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.reason === reason) return ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${namespace}/${name} never had Ready reason ${reason} within ${timeoutMs / 1000}s; last status: ${JSON.stringify(last?.status)}`);
}

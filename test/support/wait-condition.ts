import type { KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import type { Condition } from '../../src/api/helmrelease-status.js';
import { waitForReadyReason as waitForReady } from '../../src/dev/harness/index.js';

export { waitForGone } from '../../src/dev/harness/index.js';

/** Waits until the HelmRelease's Ready condition has `reason`; returns the object with that condition as `ready`. */
export async function waitForReadyReason(
  kc: KubeConfig,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs = 60_000,
): Promise<HelmRelease & { ready: Condition }> {
  const { release, ready } = await waitForReady(kc, namespace, name, reason, { timeoutMs });
  return { ...release, ready };
}

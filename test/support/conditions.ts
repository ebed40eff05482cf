import type { KubeConfig } from '@kubernetes/client-node';
import type { Condition } from '../../src/api/helmrelease-status.js';
import { waitForReadyReason as waitForReady } from '../../src/dev/harness/index.js';

/**
 * Polls (every 100 ms) until the HelmRelease's Ready condition has `reason`, calling `onTick` on
 * each poll (to sample memory, say). Returns the condition; fails with the last status seen.
 */
export async function waitForReadyReason(
  kc: KubeConfig,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs = 60_000,
  onTick?: () => void,
): Promise<Condition> {
  const { ready } = await waitForReady(kc, namespace, name, reason, { timeoutMs, intervalMs: 100, onTick });
  return ready;
}

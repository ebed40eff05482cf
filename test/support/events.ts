import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';

/**
 * The "type reason" of each Event about one object, once all of `expected` are among them.
 * A pass writes the HelmRelease's status before it sends the Event of the same outcome, so a
 * test that has just seen the status must wait a moment for the Event.
 */
export async function waitForEvents(kc: KubeConfig, namespace: string, name: string, expected: string[], timeoutMs = 10_000): Promise<string[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items.map((e) => `${e.type} ${e.reason}`);
    if (expected.every((e) => seen.includes(e)) || Date.now() > deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

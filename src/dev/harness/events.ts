// Kubernetes Events about one object, as "type reason" strings.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';

/** The "type reason" of each Event about the object named `name` in `namespace`. */
export async function eventReasons(kc: KubeConfig, namespace: string, name: string): Promise<string[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const { items } = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
  return items.map((e) => `${e.type} ${e.reason}`);
}

/**
 * The "type reason" of each Event about one object, once all of `expected` are among them, or
 * what there is when the time is up (the caller asserts). A pass writes the HelmRelease's status
 * before it sends the Event of the same outcome, so a test that has just seen the status must wait
 * a moment for the Event.
 */
export async function waitForEvents(kc: KubeConfig, namespace: string, name: string, expected: string[], timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await eventReasons(kc, namespace, name);
    if (expected.every((e) => seen.includes(e)) || Date.now() > deadline) return seen;
    await sleep(200);
  }
}

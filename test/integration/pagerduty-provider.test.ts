import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { severityOf, type ReleaseEvent } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FakePagerDuty } from '../../src/dev/fake-pagerduty/index.js';
import { PermanentDeliveryError, RetryableDeliveryError, type ReleaseNotification } from '../../src/notify/contract.js';
import { PagerDutyProvider } from '../../src/notify/providers/pagerduty/pagerduty-provider.js';
import { SecretSigningKeys } from '../../src/notify/providers/webhook.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { notificationFor } from '../support/notify-fixtures.js';

/**
 * The PagerDuty provider against the local PagerDuty, reading its routing key from a real
 * Secret: 202 delivered, 400 refused for good (PagerDuty's reason on the Team, not the key),
 * 429 retried after the server's Retry-After, a missing Secret named.
 */
describe('PagerDuty provider', () => {
  const { kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const good = randomBytes(16).toString('hex');
  const pagerduty = new FakePagerDuty({ retryAfterSeconds: 7 });
  let ns: string;
  let provider: PagerDutyProvider;
  const channel = (name: string, key?: string) => ({ kind: 'pagerduty' as const, secretRef: { namespace: ns, name, ...(key ? { key } : {}) } });
  const event = (name: ReleaseEvent): ReleaseNotification => ({
    ...notificationFor({ namespace: ns, name: 'unicorn' }, name, 'op1'),
    severity: severityOf(name),
  });
  const refusal = async (promise: Promise<void>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as Error,
    );

  beforeAll(async () => {
    await pagerduty.start();
    ns = await freshNamespace(kubeConfig, 'pdprov');
    const secret = (name: string, data: Record<string, string>) =>
      kube.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, namespace: ns }, stringData: data } });
    await secret('good', { 'routing-key': good });
    await secret('short', { pd: 'not-32-characters' });
    provider = new PagerDutyProvider(new SecretSigningKeys(kube.core, 0), { url: pagerduty.url });
  });
  afterAll(async () => {
    await pagerduty.stop();
    await deleteNamespace(kubeConfig, ns);
  });

  it('202: triggers, then resolves the same alert; other events send nothing', async () => {
    await provider.deliver(event('UpgradeFailed'), channel('good'));
    await provider.deliver(event('UpgradeStarted'), channel('good'));
    await provider.deliver(event('UpgradeSucceeded'), channel('good'));
    expect(pagerduty.requests.map((r) => [r.status, r.applied?.outcome])).toEqual([
      [202, 'opened'],
      [202, 'resolved'],
    ]);
    expect(pagerduty.alerts.byDedupKey(`helmcrew/${ns}/unicorn`)).toHaveLength(1);
  });

  it('400: refused for good with PagerDuty’s reason, never the key', async () => {
    const error = await refusal(provider.deliver(event('UpgradeFailed'), channel('short', 'pd')));
    expect(error).toBeInstanceOf(PermanentDeliveryError);
    expect((error as PermanentDeliveryError).code).toBe('pagerduty_invalid_event');
    expect(error!.message).toMatch(/HTTP 400: Event object is invalid: Length of 'routing_key' is incorrect/);
    expect(error!.message).not.toContain('not-32-characters');
  });

  it('429: retried after the Retry-After PagerDuty sent', async () => {
    pagerduty.throttleNext(1);
    const error = await refusal(provider.deliver(event('UpgradeFailed'), channel('good')));
    expect(error).toBeInstanceOf(RetryableDeliveryError);
    expect((error as RetryableDeliveryError).retryAfterMs).toBe(7000);
    await provider.deliver(event('UpgradeFailed'), channel('good'));
    expect(pagerduty.requests.at(-1)!.status).toBe(202);
  });

  it('a missing Secret or key is named, permanently', async () => {
    const error = await refusal(provider.deliver(event('UpgradeFailed'), channel('absent')));
    expect(error).toBeInstanceOf(PermanentDeliveryError);
    expect(error!.message).toBe(`the routing key (Secret ${ns}/absent, key routing-key) does not exist`);
  });
});

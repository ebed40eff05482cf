import { describe, expect, it } from 'vitest';
import { PermanentDeliveryError, type SecretRef } from '../../src/notify/contract.js';
import { channelSecretText } from '../../src/notify/providers/channel-secret.js';
import type { SigningKeys } from '../../src/notify/providers/webhook.js';

/** Secrets in memory: `namespace/name/key` → value. */
const keysOf = (values: Record<string, string>): SigningKeys => ({
  read: async (ref: SecretRef, defaultKey?: string) => {
    const value = values[`${ref.namespace ?? 'default'}/${ref.name}/${ref.key ?? defaultKey}`];
    return value === undefined ? undefined : Buffer.from(value);
  },
});

describe('channelSecretText: a channel credential from its Secret', () => {
  it('reads the default key, trimmed (a URL pasted with its newline)', async () => {
    const keys = keysOf({ 'team-a/teams-hook/url': 'https://hooks.example/abc\n' });
    await expect(channelSecretText(keys, { namespace: 'team-a', name: 'teams-hook' }, 'url', 'the Workflows webhook URL')).resolves.toBe(
      'https://hooks.example/abc',
    );
  });

  it('reads the key the channel names instead of the default', async () => {
    const keys = keysOf({ 'default/pd/routing': 'R0UT1NG', 'default/pd/routingKey': 'wrong' });
    await expect(channelSecretText(keys, { name: 'pd', key: 'routing' }, 'routingKey', 'the routing key')).resolves.toBe('R0UT1NG');
  });

  it.each([
    ['missing', {}],
    ['empty', { 'ops/pd/routingKey': '  \n' }],
  ])('a %s credential is refused for good, naming the Secret and key', async (_case, values) => {
    const refused = await channelSecretText(keysOf(values), { namespace: 'ops', name: 'pd' }, 'routingKey', 'the routing key').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PermanentDeliveryError);
    expect((refused as Error).message).toBe('the routing key (Secret ops/pd, key routingKey) does not exist');
  });
});

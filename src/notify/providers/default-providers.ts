import type { KubeClients } from '../../core/kube/client.js';
import { SHARED_ENV } from '../../core/config/env.js';
import { controllerNamespace } from '../../core/kube/digest-key.js';
import type { Logger } from '../../core/log.js';
import { AlertmanagerProvider } from './alertmanager/alertmanager-provider.js';
import { GoogleChatProvider } from './googlechat/googlechat-provider.js';
import { IncidentIoProvider } from './incidentio/incidentio-provider.js';
import { MSTeamsProvider, readMSTeamsConfig } from './msteams/msteams-provider.js';
import { PagerDutyProvider, readPagerDutyConfig } from './pagerduty/pagerduty-provider.js';
import { ProviderRegistry } from './registry.js';
import { createSlackProvider, readSlackConfig, type ProposalRecordsFor } from './slack/index.js';
import { SecretSigningKeys, WebhookProvider } from './webhook.js';

/**
 * The providers a notify process starts with. The generic webhook needs nothing but the API
 * server (its keys are in Secrets). The Slack provider registers when SLACK_BOT_TOKEN is set
 * (SLACK_API_URL for a proxy or the local fake); its message references live in ConfigMaps.
 * Without it, a Team's Slack channel gets the permanent error `provider_not_configured` on its status.
 * PagerDuty needs nothing but its routing keys (in Secrets); HELMCREW_PAGERDUTY_URL moves its endpoint.
 * Microsoft Teams needs its Workflows webhook URLs (in Secrets); HELMCREW_STATUS_URL adds a status link.
 * Alertmanager needs its URL on the channel (a bearer token, when needed, in a Secret).
 * incident.io needs its alert source's URL on the channel and its token in a Secret; Google Chat
 * its incoming webhook URL in a Secret.
 */
export function defaultProviders(
  kube: KubeClients,
  log: Logger,
  env: Record<string, string | undefined> = process.env,
  /** A fleet notify: the releases' namespaces are in other clusters, so Slack's references are kept in notify's own namespace. */
  options: { fleet?: boolean; proposals?: ProposalRecordsFor } = {},
): ProviderRegistry {
  const registry = new ProviderRegistry()
    .register(new WebhookProvider(new SecretSigningKeys(kube.core)))
    .register(new PagerDutyProvider(new SecretSigningKeys(kube.core), readPagerDutyConfig(env)))
    .register(new MSTeamsProvider(new SecretSigningKeys(kube.core), readMSTeamsConfig(env)))
    .register(new AlertmanagerProvider(new SecretSigningKeys(kube.core), readMSTeamsConfig(env)))
    .register(new IncidentIoProvider(new SecretSigningKeys(kube.core), readMSTeamsConfig(env)))
    .register(new GoogleChatProvider(new SecretSigningKeys(kube.core), readMSTeamsConfig(env)));
  const slack = readSlackConfig(env);
  if (slack)
    registry.register(
      createSlackProvider(
        slack,
        kube,
        log.child({ provider: 'slack' }),
        options.fleet ? controllerNamespace(SHARED_ENV.in(env).raw('HELMCREW_NAMESPACE') || undefined) : undefined,
        options.proposals,
      ),
    );
  return registry;
}

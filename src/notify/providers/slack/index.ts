/** The Slack provider and what the notify process and the bot plug into. */
import type { KubeClients } from '../../../core/kube/client.js';
import type { Logger } from '../../../core/log.js';
import type { SlackConfig } from './config.js';
import { ConfigMapMessageStore, FixedNamespaceStore, FLEET_MAX_ENTRIES, FLEET_SLACK_MESSAGES_CONFIGMAP } from './message-store.js';
import { SlackProvider } from './slack-provider.js';
import type { ProposalRecordsFor } from './proposal-view.js';

export { ReleaseAction, RELEASE_ACTION_IDS, releaseActionValue, parseReleaseActionValue } from '../../../core/slack/action-ids.js';
export { readSlackConfig, type SlackConfig } from './config.js';
export { ConfigMapMessageStore, MemoryMessageStore, SLACK_MESSAGES_CONFIGMAP, type SlackMessageStore } from './message-store.js';
export { renderOperationMessage, renderThreadReply, phaseOf, PHASE_COLOR } from './render.js';
export { SlackProvider, type SlackChannelRef, type SlackProviderOptions } from './slack-provider.js';
export { toDeliveryError, classifySlackCode } from './slack-errors.js';
export type { ProposalRecords, ProposalRecordsFor } from './proposal-view.js';

/**
 * The production wiring: references kept in a ConfigMap per HelmRelease namespace, or, for a fleet
 * notify (`ownNamespace`: the releases' namespaces are in other clusters), in one ConfigMap of its own namespace.
 */
export function createSlackProvider(config: SlackConfig, kube: KubeClients, log: Logger, ownNamespace?: string, proposals?: ProposalRecordsFor): SlackProvider {
  const store = ownNamespace
    ? new FixedNamespaceStore(new ConfigMapMessageStore(kube, FLEET_MAX_ENTRIES, FLEET_SLACK_MESSAGES_CONFIGMAP), ownNamespace)
    : new ConfigMapMessageStore(kube);
  return new SlackProvider({ config, store, log, ...(proposals ? { proposals } : {}) });
}

import type { ChannelRef, NotificationProvider } from '../contract.js';

/**
 * The providers notify delivers through, keyed by ChannelRef kind. Open: a provider for a new
 * kind registers here (the Slack provider when SLACK_BOT_TOKEN is set), nothing else changes.
 */
export class ProviderRegistry {
  private readonly providers = new Map<ChannelRef['kind'], NotificationProvider>();

  register<C extends ChannelRef>(provider: NotificationProvider<C>): this {
    this.providers.set(provider.kind, provider);
    return this;
  }

  get(kind: ChannelRef['kind']): NotificationProvider | undefined {
    return this.providers.get(kind);
  }

  kinds(): ChannelRef['kind'][] {
    return [...this.providers.keys()];
  }
}

import { inSpan } from '../../core/tracing/tracing.js';
import { StepAsideError, type ChannelRef, type NotificationProvider } from '../contract.js';
import { ProviderRegistry } from '../providers/registry.js';
import { deliveryResult } from '../metrics/notify-metrics.js';

/**
 * The same providers, each delivery its own trace when tracing is on (docs/operations.md#traces):
 * the provider, the event, the release and the Team, never the channel's address (a webhook URL
 * can hold a token). A delivery stepping aside for its rate limit is not a failure.
 */
export function tracedProviders(providers: ProviderRegistry): ProviderRegistry {
  const traced = new ProviderRegistry();
  for (const kind of providers.kinds()) {
    const provider = providers.get(kind);
    if (provider) traced.register(tracedProvider(provider));
  }
  return traced;
}

function tracedProvider(provider: NotificationProvider): NotificationProvider<ChannelRef> {
  return {
    kind: provider.kind,
    ...(provider.pacesItself ? { pacesItself: true } : {}),
    deliver: (notification, channel, team, pace) =>
      inSpan(
        'notify.deliver',
        {
          'helmcrew.provider': provider.kind,
          'helmcrew.event': notification.event,
          'helmcrew.release': `${notification.release.namespace}/${notification.release.name}`,
          'helmcrew.team': team,
          'helmcrew.notification': notification.id,
        },
        async (span) => {
          try {
            await provider.deliver(notification, channel, team, pace);
            span.set({ 'helmcrew.result': 'success' });
          } catch (error) {
            span.set({ 'helmcrew.result': error instanceof StepAsideError ? 'stepped-aside' : deliveryResult(error) });
            throw error;
          }
        },
        { root: true, kind: 'client', notAFailure: (error) => error instanceof StepAsideError },
      ),
  };
}

import { Counter, Histogram, type Registry } from 'prom-client';
import { PermanentDeliveryError, RetryableDeliveryError, StepAsideError, type ChannelRef, type NotificationProvider } from '../contract.js';
import { ProviderRegistry } from '../providers/registry.js';

export type DeliveryResult = 'success' | 'retryable' | 'permanent' | 'error';

/** Pure: how a provider call ended, from what it threw (a closed set of label values). */
export function deliveryResult(error: unknown): DeliveryResult {
  if (error === undefined) return 'success';
  if (error instanceof PermanentDeliveryError) return 'permanent';
  if (error instanceof RetryableDeliveryError) return 'retryable';
  return 'error';
}

const CALL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SINCE_EVENT_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/** Notify's metrics: per provider kind (slack, webhook), never per team, channel or release. */
export class NotifyMetrics {
  private readonly deliveries: Counter<'provider' | 'result'>;
  private readonly callDuration: Histogram<'provider' | 'result'>;
  private readonly sinceEvent: Histogram<'provider'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.deliveries = new Counter({
      name: 'helmcrew_notify_deliveries_total',
      help: 'Notification deliveries attempted, by provider and result (success, retryable, permanent, error).',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.callDuration = new Histogram({
      name: 'helmcrew_notify_delivery_duration_seconds',
      help: 'How long one call to the provider took, by provider and result.',
      labelNames: ['provider', 'result'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.sinceEvent = new Histogram({
      name: 'helmcrew_notify_delivery_latency_seconds',
      help: 'From the happening to its delivery (queueing, rate limits and retries included), by provider.',
      labelNames: ['provider'],
      buckets: SINCE_EVENT_BUCKETS,
      registers,
    });
  }

  delivered(provider: string, result: DeliveryResult, callSeconds: number, sinceEventSeconds?: number): void {
    this.deliveries.inc({ provider, result });
    this.callDuration.observe({ provider, result }, callSeconds);
    if (result === 'success' && sinceEventSeconds !== undefined && Number.isFinite(sinceEventSeconds) && sinceEventSeconds >= 0)
      this.sinceEvent.observe({ provider }, sinceEventSeconds);
  }
}

/** The same providers, each call counted and timed. */
export function meteredProviders(providers: ProviderRegistry, metrics: NotifyMetrics): ProviderRegistry {
  const metered = new ProviderRegistry();
  for (const kind of providers.kinds()) {
    const provider = providers.get(kind);
    if (provider) metered.register(meteredProvider(provider, metrics));
  }
  return metered;
}

function meteredProvider(provider: NotificationProvider, metrics: NotifyMetrics): NotificationProvider<ChannelRef> {
  return {
    kind: provider.kind,
    ...(provider.pacesItself ? { pacesItself: true } : {}),
    deliver: async (notification, channel, team, pace) => {
      const started = Date.now();
      try {
        await provider.deliver(notification, channel, team, pace);
        metrics.delivered(provider.kind, 'success', (Date.now() - started) / 1000, (Date.now() - Date.parse(notification.at)) / 1000);
      } catch (error) {
        // Waiting for a rate-limit slot is not a delivery that ended.
        if (error instanceof StepAsideError) throw error;
        metrics.delivered(provider.kind, deliveryResult(error), (Date.now() - started) / 1000);
        throw error;
      }
    },
  };
}

import type { HelmRelease } from '../../api/helmrelease.js';
import { isProgressEvent, severityOf, type ReleaseEvent } from '../../api/vocabulary.js';
import type { Logger } from '../log.js';
import type { ReleaseEventSink } from '../events/release-event-sink.js';
import type { KubeClients } from './client.js';
import { KUBE_ENV } from './kube-env.js';

const MAX_EVENT_MESSAGE = 1024;

/**
 * Kubernetes Events on the HelmRelease (`kubectl describe` shows them): outcomes, not the start of
 * an operation (isProgressEvent). Failure to record is logged, never fatal.
 */
export class KubeEventRecorder implements ReleaseEventSink {
  constructor(
    private readonly kube: KubeClients,
    private readonly log: Logger,
    private readonly component = 'helmcrew-controller',
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(release: HelmRelease, event: ReleaseEvent, message: string): Promise<void> {
    if (isProgressEvent(event)) return;
    const { namespace, name, uid, resourceVersion } = release.metadata;
    const time = this.now();
    try {
      await this.kube.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: { apiVersion: release.apiVersion, kind: release.kind, name, namespace, uid, resourceVersion },
          reason: event,
          message: message.slice(0, MAX_EVENT_MESSAGE),
          type: severityOf(event) === 'error' ? 'Warning' : 'Normal',
          source: { component: this.component },
          firstTimestamp: time,
          lastTimestamp: time,
          count: 1,
          reportingComponent: this.component,
          reportingInstance: KUBE_ENV.in(process.env).raw('HOSTNAME') ?? KUBE_ENV.fallback('HOSTNAME'),
        },
      });
    } catch (error) {
      this.log.warn({ release: `${namespace}/${name}`, event, err: error }, 'could not record Kubernetes Event');
    }
  }
}

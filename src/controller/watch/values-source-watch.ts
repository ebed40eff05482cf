import type { KubernetesObject } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Logger } from '../../core/log.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import { makeMetadataInformer } from './metadata-informer.js';
import { releasesUsingValuesSource, valuesSourceChanged } from './values-source-map.js';

type SourceKind = 'ConfigMap' | 'Secret';
const PLURAL: Record<SourceKind, string> = { ConfigMap: 'configmaps', Secret: 'secrets' };
/**
 * Helm's own release records (label owner=helm) are never a values source, and every helm
 * operation writes two or three of them: leaving them out spares the API server those watch
 * events and this process their handling and memory.
 */
export const NOT_HELM_RECORDS = 'owner!=helm';

/**
 * Watches the metadata of ConfigMaps and Secrets and enqueues the HelmReleases whose valuesFrom (or
 * chart secretRef / certSecretRef) names one that changed, so a change is applied within seconds,
 * not at the next interval.
 * Errors restart the informer with backoff; a failing watch only delays, it never stops the controller.
 */
export class ValuesSourceWatch {
  private readonly watches: KeptWatch[] = [];
  private readonly versions = new Map<string, string | undefined>();

  constructor(
    private readonly opts: {
      rest: KubeRest;
      namespaces: string[];
      releases: () => HelmRelease[];
      onKey: (key: string, reason: string) => void;
      log: Logger;
    },
  ) {}

  async start(): Promise<void> {
    const scopes = this.opts.namespaces.length > 0 ? this.opts.namespaces : [''];
    for (const scope of scopes) for (const kind of ['ConfigMap', 'Secret'] as const) this.watches.push(this.watchOf(kind, scope));
    await Promise.all(this.watches.map((watch) => watch.start()));
  }

  /** The API server answers again: watches waiting out a backoff restart now. */
  async retryNow(): Promise<void> {
    await Promise.all(this.watches.map((watch) => watch.retryNow()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.watches.map((watch) => watch.stop()));
  }

  private watchOf(kind: SourceKind, scope: string): KeptWatch {
    const path = scope ? `/api/v1/namespaces/${scope}/${PLURAL[kind]}` : `/api/v1/${PLURAL[kind]}`;
    const watch: KeptWatch = new KeptWatch({
      make: () => makeMetadataInformer(this.opts.rest, path, NOT_HELM_RECORDS),
      wire: (informer, current) => {
        // Until the first list is done, an add is what was there before, not a change (valuesSourceChanged).
        const handle = (event: 'add' | 'update' | 'delete') => (obj: KubernetesObject) => {
          if (current()) this.seen(kind, event, watch.synced, obj);
        };
        informer.on('add', handle('add'));
        informer.on('update', handle('update'));
        informer.on('delete', handle('delete'));
      },
      onFailure: (error, delayMs, repeated) =>
        this.opts.log[repeated ? 'debug' : 'warn'](
          { kind, scope: scope || 'all namespaces', delayMs, error: apiErrorMessage(error) },
          'valuesFrom watch failed; restarting',
        ),
    });
    return watch;
  }

  private seen(kind: SourceKind, event: 'add' | 'update' | 'delete', synced: boolean, obj: KubernetesObject): void {
    const namespace = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    const id = `${kind}/${namespace}/${name}`;
    const version = obj.metadata?.resourceVersion;
    const changed = valuesSourceChanged(event, synced, this.versions.get(id), version);
    if (event === 'delete') this.versions.delete(id);
    else this.versions.set(id, version);
    if (!changed) return;
    for (const key of releasesUsingValuesSource(kind, namespace, name, this.opts.releases()))
      this.opts.onKey(key, `${kind} ${name} ${event} (valuesFrom or chart credentials)`);
  }
}

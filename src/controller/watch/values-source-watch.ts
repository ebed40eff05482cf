import type { KubernetesObject } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Logger } from '../../core/log.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { retryDelayMs } from '../queue/retry-policy.js';
import { RestartTimers } from './restart-timers.js';
import { makeMetadataInformer, type MetadataInformer } from './metadata-informer.js';
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
  private readonly informers: Array<{ kind: SourceKind; scope: string; informer?: MetadataInformer; synced: boolean; failures: number }> = [];
  private readonly versions = new Map<string, string | undefined>();
  private readonly restarts = new RestartTimers<(typeof this.informers)[number]>();
  private stopped = false;

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
    for (const scope of scopes) for (const kind of ['ConfigMap', 'Secret'] as const) this.informers.push({ kind, scope, synced: false, failures: 0 });
    await Promise.all(this.informers.map((slot) => this.startSlot(slot)));
  }

  /** The API server answers again: watches waiting out a backoff restart now. */
  retryNow(): Promise<void> {
    return this.restarts.now();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.restarts.clear();
    await Promise.all(
      this.informers.map(async (slot) => {
        await slot.informer?.stop().catch(() => undefined);
      }),
    );
  }

  private async startSlot(slot: (typeof this.informers)[number]): Promise<void> {
    if (this.stopped) return;
    const path = slot.scope ? `/api/v1/namespaces/${slot.scope}/${PLURAL[slot.kind]}` : `/api/v1/${PLURAL[slot.kind]}`;
    const informer = makeMetadataInformer(
      this.opts.rest,
      path,
      () => {
        if (slot.informer !== informer) return;
        slot.synced = true;
        slot.failures = 0;
      },
      NOT_HELM_RECORDS,
    );
    slot.informer = informer;
    slot.synced = false;
    const current = () => slot.informer === informer && !this.stopped;
    const handle = (event: 'add' | 'update' | 'delete') => (obj: KubernetesObject) => {
      if (current()) this.seen(slot.kind, event, slot.synced, obj);
    };
    informer.on('add', handle('add'));
    informer.on('update', handle('update'));
    informer.on('delete', handle('delete'));
    informer.on('error', (error) => {
      if (current()) this.restartLater(slot, error);
    });
    try {
      await informer.start();
    } catch (error) {
      if (current()) this.restartLater(slot, error);
    }
  }

  private restartLater(slot: (typeof this.informers)[number], error: unknown): void {
    const stale = slot.informer;
    slot.informer = undefined;
    void stale?.stop().catch(() => undefined);
    slot.failures += 1;
    const delay = retryDelayMs(slot.failures, 1000, 30_000);
    this.opts.log.warn(
      { kind: slot.kind, scope: slot.scope || 'all namespaces', delayMs: delay, error: apiErrorMessage(error) },
      'valuesFrom watch failed; restarting',
    );
    this.restarts.later(slot, delay, () => this.startSlot(slot));
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

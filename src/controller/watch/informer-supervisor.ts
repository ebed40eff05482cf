import { makeInformer, type Informer, type KubeConfig, type KubernetesObject, type ObjectCache } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../api/vocabulary.js';
import type { Logger } from '../../log.js';
import { apiErrorMessage } from '../kube/errors.js';
import type { HelmReleaseApi } from '../kube/helmrelease-api.js';
import { releaseKey } from '../reconcile/release-target.js';
import { retryDelayMs } from '../queue/retry-policy.js';
import { seenState, shouldEnqueueOnUpdate, type SeenState } from './enqueue-policy.js';

// client-node types timestamps as Date, but custom objects arrive as plain JSON (strings).
type HelmReleaseInformer = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
const asRelease = (obj: KubernetesObject) => obj as unknown as HelmRelease;

export interface InformerSupervisorOptions {
  kubeConfig: KubeConfig;
  api: HelmReleaseApi;
  /** Watch these namespaces only; all namespaces when empty. */
  namespaces: string[];
  onKey: (key: string, reason: string) => void;
  log: Logger;
  /** Relist when nothing at all was heard for this long (a silently stalled watch). */
  silenceMs?: number;
  now?: () => number;
}

/**
 * Keeps HelmRelease informers running: client-node's informer does not restart itself after
 * most errors, so this restarts it with backoff, relists when it has been silent too long, and
 * reports ready only after every informer's first list.
 */
export class InformerSupervisor {
  private readonly informers = new Map<string, HelmReleaseInformer>();
  private readonly seen = new Map<string, SeenState>();
  private readonly synced = new Set<string>();
  private readonly failures = new Map<string, number>();
  private lastHeard: number;
  private watchdog?: NodeJS.Timeout;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly opts: InformerSupervisorOptions) {
    this.now = opts.now ?? Date.now;
    this.lastHeard = this.now();
  }

  async start(): Promise<void> {
    const scopes = this.opts.namespaces.length > 0 ? this.opts.namespaces : [''];
    for (const scope of scopes) this.informers.set(scope, this.makeInformer(scope));
    await Promise.all([...this.informers.entries()].map(([scope, informer]) => this.startOne(scope, informer)));
    const silenceMs = this.opts.silenceMs ?? 5 * 60_000;
    this.watchdog = setInterval(() => void this.checkSilence(silenceMs), Math.min(silenceMs, 30_000));
    this.watchdog.unref();
  }

  get ready(): boolean {
    return this.informers.size > 0 && this.synced.size === this.informers.size;
  }

  /** Everything the informers currently hold: the periodic resync walks this. */
  list(): HelmRelease[] {
    return [...this.informers.values()].flatMap((informer) => informer.list().map(asRelease));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    await Promise.all([...this.informers.values()].map((informer) => informer.stop().catch(() => undefined)));
  }

  private makeInformer(scope: string): HelmReleaseInformer {
    const base = `/apis/${API_GROUP}/${API_VERSION}`;
    const path = scope ? `${base}/namespaces/${scope}/${HELMRELEASE_PLURAL}` : `${base}/${HELMRELEASE_PLURAL}`;
    const informer = makeInformer<KubernetesObject>(this.opts.kubeConfig, path, async () => {
      const list = await this.opts.api.list(scope || undefined);
      return list as never;
    });
    // Handlers only enqueue: an exception here would become an unhandled rejection.
    informer.on('add', (obj) => this.observe(asRelease(obj), 'add'));
    informer.on('update', (obj) => this.observe(asRelease(obj), 'update'));
    informer.on('delete', (obj) => this.seen.delete(releaseKey(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '')));
    informer.on('connect', () => {
      this.lastHeard = this.now();
      this.failures.set(scope, 0);
    });
    informer.on('error', (error) => this.restartLater(scope, error));
    return informer;
  }

  private observe(release: HelmRelease, reason: 'add' | 'update'): void {
    this.lastHeard = this.now();
    const key = releaseKey(release.metadata.namespace, release.metadata.name);
    const next = seenState(release);
    const enqueue = reason === 'add' || shouldEnqueueOnUpdate(this.seen.get(key), next);
    this.seen.set(key, next);
    if (enqueue) this.opts.onKey(key, reason);
  }

  private async startOne(scope: string, informer: HelmReleaseInformer): Promise<void> {
    try {
      await informer.start();
    } catch (error) {
      this.restartLater(scope, error);
      return;
    }
    this.synced.add(scope);
    this.lastHeard = this.now();
    this.opts.log.info({ scope: scope || 'all namespaces', objects: informer.list().length }, 'informer synced');
  }

  private restartLater(scope: string, error: unknown): void {
    if (this.stopped) return;
    const attempt = (this.failures.get(scope) ?? 0) + 1;
    this.failures.set(scope, attempt);
    const delay = retryDelayMs(attempt, 1000, 30_000);
    this.opts.log.warn({ scope: scope || 'all namespaces', attempt, delayMs: delay, error: apiErrorMessage(error) }, 'informer failed; restarting');
    setTimeout(() => void this.restart(scope), delay).unref();
  }

  private async restart(scope: string): Promise<void> {
    const informer = this.informers.get(scope);
    if (!informer || this.stopped) return;
    await informer.stop().catch(() => undefined);
    try {
      await informer.start();
      this.synced.add(scope);
      this.lastHeard = this.now();
    } catch (error) {
      this.restartLater(scope, error);
    }
  }

  private async checkSilence(silenceMs: number): Promise<void> {
    if (this.stopped || this.now() - this.lastHeard < silenceMs) return;
    this.opts.log.info({ silentForMs: this.now() - this.lastHeard }, 'no watch activity for a while; relisting');
    this.lastHeard = this.now();
    await Promise.all([...this.informers.keys()].map((scope) => this.restart(scope)));
  }
}

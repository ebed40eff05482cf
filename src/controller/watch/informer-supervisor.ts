import type { KubernetesObject } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../api/vocabulary.js';
import type { Logger } from '../../core/log.js';
import { apiErrorMessage, isNotFound } from '../../core/kube/errors.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { releaseKey } from '../../core/release/release-target.js';
import { isRepeatedOutageFailure, watchRestartDelayMs } from '../../core/kube/watch/restart-delay.js';
import { seenState, shouldEnqueueOnUpdate, type SeenState } from './enqueue-policy.js';
import { isReadyAtGeneration } from '../../core/release/reconciled.js';
import { dependantsToWake } from '../reconcile/decide/dependency-decision.js';
import { DependantsIndex } from './dependants-index.js';
import { ListWatch, restWatch } from '../../core/kube/watch/list-watch.js';
import { listInPages, type ListPage } from '../../core/kube/watch/paged-list.js';
import { RestartTimers } from './restart-timers.js';
import { sharedString, shareStrings } from '../../core/kube/watch/shared-strings.js';
import { withoutBookkeeping } from '../../core/kube/watch/cache-trim.js';

type HelmReleaseInformer = ListWatch<KubernetesObject>;
const asRelease = (obj: KubernetesObject) => obj as unknown as HelmRelease;

/** HelmReleases a page of the informer's list: ~1.3 MB of JSON at a time. */
const RELEASE_PAGE = 500;

export const HELMRELEASE_CRD_NAME = `${HELMRELEASE_PLURAL}.${API_GROUP}`;

/** A 404 on the list means the API server does not serve HelmReleases: say so, and the fix. */
export const CRD_MISSING_MESSAGE =
  `the HelmRelease CRD (${HELMRELEASE_CRD_NAME}) is not installed in this cluster; install it with \`helmcrew crds apply\` ` +
  `(or the helm/helmcrew chart, which ships it) — retrying with backoff`;

export interface InformerSupervisorOptions {
  rest: KubeRest;
  api: HelmReleaseApi;
  /** Watch these namespaces only; all namespaces when empty. */
  namespaces: string[];
  onKey: (key: string, reason: string) => void;
  /** A new generation of a release was seen (cancels an operation running for an older one). */
  onGeneration?: (key: string, generation: number | undefined) => void;
  log: Logger;
  /** Relist when nothing at all was heard for this long (a silently stalled watch). */
  silenceMs?: number;
  /** HelmReleases a page of the list (default RELEASE_PAGE). */
  listPageSize?: number;
  now?: () => number;
  /** An informer is started anew (metrics). */
  onRestart?: (cause: 'error' | 'silence') => void;
  /** A watch connection was opened again after the server ended one (metrics). */
  onWatchReconnect?: () => void;
  /** An informer failed (the API server may be unreachable: the outage probe is told). */
  onFailure?: (error: unknown) => void;
}

/**
 * Keeps HelmRelease informers running: a ListWatch reports a failed watch once and stops, so
 * this replaces it with backoff, relists when it has been silent too long, and reports ready
 * only after every informer's first list.
 */
export class InformerSupervisor {
  private readonly informers = new Map<string, HelmReleaseInformer>();
  private readonly seen = new Map<string, SeenState>();
  private readonly readyAtGeneration = new Map<string, boolean>();
  private readonly dependsOn = new DependantsIndex();
  private readonly synced = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly restarts = new RestartTimers<string>();
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
    await Promise.all(scopes.map((scope) => this.startFresh(scope)));
    const silenceMs = this.opts.silenceMs ?? 5 * 60_000;
    this.watchdog = setInterval(() => void this.checkSilence(silenceMs), Math.max(250, Math.min(silenceMs / 2, 30_000)));
    this.watchdog.unref();
  }

  get ready(): boolean {
    return this.informers.size > 0 && this.synced.size === this.informers.size;
  }

  /** Everything the informers currently hold: the periodic resync walks this. */
  list(): HelmRelease[] {
    return [...this.informers.values()].flatMap((informer) => informer.list().map(asRelease));
  }

  /** The informer's copy of one HelmRelease (it may lag the server by a watch event). */
  get(namespace: string, name: string): HelmRelease | undefined {
    const informer = this.informers.get(this.opts.namespaces.length > 0 ? namespace : '');
    const obj = informer?.get(name, namespace);
    return obj ? asRelease(obj) : undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.restarts.clear();
    await Promise.all([...this.informers.values()].map((informer) => informer.stop().catch(() => undefined)));
  }

  private makeInformer(scope: string): HelmReleaseInformer {
    const base = `/apis/${API_GROUP}/${API_VERSION}`;
    const path = scope ? `${base}/namespaces/${scope}/${HELMRELEASE_PLURAL}` : `${base}/${HELMRELEASE_PLURAL}`;
    // Each (re)start gets a fresh informer; events from a replaced one (its own abort on stop,
    // say) are ignored, so a restart cannot trigger another restart.
    const current = () => this.informers.get(scope) === informer && !this.stopped;
    const list = async () => {
      // In pages, each trimmed as it arrives: 10,000 releases in one response were ~25 MB of JSON
      // parsed at once, the top of a starting controller's memory (docs/performance.md).
      const listed = await listInPages(
        async (page) => (await this.opts.api.listPage(page, scope || undefined)) as unknown as ListPage<KubernetesObject>,
        keptOfRelease,
        this.opts.listPageSize ?? RELEASE_PAGE,
      );
      if (current()) this.listed(scope, listed.items.length);
      return listed as unknown as { items: KubernetesObject[]; metadata?: { resourceVersion?: string } };
    };
    const informer: HelmReleaseInformer = new ListWatch<KubernetesObject>(list, restWatch(this.opts.rest, path), keptOfRelease);
    // Handlers only enqueue: an exception here would become an unhandled rejection.
    informer.on('add', (obj) => current() && this.observe(asRelease(obj), 'add'));
    informer.on('update', (obj) => current() && this.observe(asRelease(obj), 'update'));
    informer.on('delete', (obj) => {
      if (!current()) return;
      const key = releaseKey(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
      this.seen.delete(key);
      this.readyAtGeneration.delete(key);
      this.dependsOn.delete(key);
    });
    const heard = () => {
      if (current()) this.lastHeard = this.now();
    };
    let connections = 0;
    informer.on('connect', () => {
      heard();
      if (current() && connections++ > 0) this.opts.onWatchReconnect?.();
    });
    informer.on('bookmark', heard);
    informer.on('error', (error) => current() && this.restartLater(scope, error));
    return informer;
  }

  private observe(release: HelmRelease, reason: 'add' | 'update'): void {
    this.lastHeard = this.now();
    const key = sharedString(releaseKey(release.metadata.namespace, release.metadata.name));
    const next = seenState(release);
    const previous = this.seen.get(key);
    if (previous && previous.generation !== next.generation) this.opts.onGeneration?.(key, next.generation);
    const enqueue = reason === 'add' || shouldEnqueueOnUpdate(previous, next);
    this.seen.set(key, next);
    this.dependsOn.set(key, release);
    if (enqueue) this.opts.onKey(key, reason);
    this.wakeDependants(release, key, reason, previous !== undefined && previous.generation !== next.generation);
  }

  /** dependsOn: releases waiting on this one are enqueued at once, not at their next backoff. */
  private wakeDependants(release: HelmRelease, key: string, reason: 'add' | 'update', specChanged: boolean): void {
    const ready = isReadyAtGeneration(release);
    const wasReady = this.readyAtGeneration.get(key);
    this.readyAtGeneration.set(key, ready);
    const wake = dependantsToWake(reason, specChanged, wasReady, ready);
    if (wake === 'none') return;
    const dependants = wake === 'chain' ? this.dependsOn.chainDependantsOf(key) : this.dependsOn.dependantsOf(key);
    const why = `dependency ${key} ${ready ? 'ready' : reason === 'add' ? 'appeared' : 'changed'}`;
    for (const dependant of dependants) this.opts.onKey(dependant, why);
  }

  /**
   * Replaces the scope's informer with a new one and starts it. Its first list reports every
   * object as added, so everything is reconciled once after an outage: level-based and cheap,
   * since a release in sync starts no helm.
   */
  private async startFresh(scope: string): Promise<void> {
    const previous = this.informers.get(scope);
    const informer = this.makeInformer(scope);
    this.informers.set(scope, informer);
    await previous?.stop().catch(() => undefined);
    if (this.stopped) return;
    try {
      await informer.start();
    } catch (error) {
      if (this.informers.get(scope) === informer) this.restartLater(scope, error);
    }
  }

  private listed(scope: string, objects: number): void {
    this.failures.set(scope, 0);
    this.lastHeard = this.now();
    if (!this.synced.has(scope)) this.opts.log.info({ scope: scope || 'all namespaces', objects }, 'informer synced');
    this.synced.add(scope);
  }

  /**
   * The API server answers again: informers waiting out a restart backoff start now, not at a
   * backoff step grown during the outage (a change made meanwhile is seen at their first list).
   */
  async retryNow(): Promise<void> {
    // Restarts waiting out a backoff run now; informers that reconnected while the server was still
    // starting list again too (a watch opened then was seen to miss an update for good: bench api-restart).
    const waiting = new Set([...this.informers.keys()].filter((scope) => this.restarts.has(scope)));
    await Promise.all([this.restarts.now(), ...[...this.informers.keys()].filter((scope) => !waiting.has(scope)).map((scope) => this.startFresh(scope))]);
  }

  private restartLater(scope: string, error: unknown): void {
    if (this.stopped || this.restarts.has(scope)) return;
    this.opts.onFailure?.(error);
    const attempt = (this.failures.get(scope) ?? 0) + 1;
    this.failures.set(scope, attempt);
    const delay = watchRestartDelayMs(attempt, error);
    this.opts.onRestart?.('error');
    const fields = { scope: scope || 'all namespaces', attempt, delayMs: delay };
    if (isNotFound(error)) this.opts.log.error({ ...fields, crd: HELMRELEASE_CRD_NAME }, CRD_MISSING_MESSAGE);
    else this.opts.log[isRepeatedOutageFailure(attempt, error) ? 'debug' : 'warn']({ ...fields, error: apiErrorMessage(error) }, 'informer failed; restarting');
    this.restarts.later(scope, delay, () => this.startFresh(scope));
  }

  private async checkSilence(silenceMs: number): Promise<void> {
    if (this.stopped || this.now() - this.lastHeard < silenceMs) return;
    this.opts.log.info({ silentForMs: this.now() - this.lastHeard }, 'no watch activity for a while; relisting on new connections');
    this.lastHeard = this.now();
    this.opts.rest.resetConnections();
    this.opts.onRestart?.('silence');
    await Promise.all([...this.informers.keys()].map((scope) => this.startFresh(scope)));
  }
}

const kept = new WeakSet<KubernetesObject>();

/**
 * What the informer keeps of a HelmRelease: no managedFields or last-applied copy (cache-trim.ts),
 * its repeated strings shared (shared-strings.ts). The paged list keeps each as it arrives and the
 * informer keeps what it is given: one already kept is not walked again.
 */
export function keptOfRelease(obj: KubernetesObject): KubernetesObject {
  if (kept.has(obj)) return obj;
  const trimmed = shareStrings(withoutBookkeeping(obj));
  kept.add(trimmed);
  return trimmed;
}

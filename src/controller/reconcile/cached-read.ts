import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType, FINALIZER } from '../../api/vocabulary.js';
import { findCondition } from '../status/conditions.js';
import type { ReconcileContext } from './context.js';

/**
 * The steady state reads from the informer's cache instead of GETting the HelmRelease. A cached
 * copy can lag the server by a watch event, so it is trusted for one conclusion only: "nothing to
 * change". A pass that starts from the cache runs on a read-only context; the first write or helm
 * process it would start aborts it, and the pass is redone from a fresh GET.
 */

/** Where a pass may find the HelmRelease without a request (the informer supervisor). */
export interface ReleaseCache {
  get(namespace: string, name: string): HelmRelease | undefined;
}

/** Thrown by the read-only context when a pass from the cache wants to act. */
export class FreshReadNeeded extends Error {
  override name = 'FreshReadNeeded';
}

/**
 * Pure: does this copy look settled — its generation reconciled and Ready, nothing in progress,
 * not being deleted or suspended? Only then is a pass from the cache worth trying: a spec change
 * (generation ahead of observedGeneration) would need a fresh read anyway.
 */
export function looksSettled(release: HelmRelease): boolean {
  const { metadata, status } = release;
  if (metadata.deletionTimestamp || release.spec?.suspend) return false;
  if (!metadata.finalizers?.includes(FINALIZER)) return false;
  if (!status || status.observedGeneration !== metadata.generation) return false;
  const ready = findCondition(status.conditions, ConditionType.Ready);
  if (ready?.status !== 'True' || ready.observedGeneration !== metadata.generation) return false;
  return findCondition(status.conditions, ConditionType.Reconciling)?.status !== 'True' && findCondition(status.conditions, ConditionType.Stalled)?.status !== 'True';
}

/** Methods a pass from the cache may call: reads only. Anything else (unknown methods included) aborts it. */
const READS: Partial<Record<keyof ReconcileContext, ReadonlySet<string>>> = {
  api: new Set(['get', 'list']),
  storage: new Set(['history']),
  helm: new Set(),
  events: new Set(),
};

/** The same context with every writer (API writes, helm, Events) replaced by a FreshReadNeeded thrower. */
export function readOnlyContext(ctx: ReconcileContext): ReconcileContext {
  const guarded = { ...ctx };
  for (const [field, allowed] of Object.entries(READS) as Array<[keyof ReconcileContext, ReadonlySet<string>]>) {
    (guarded as Record<string, unknown>)[field] = guard(ctx[field] as object, field, allowed);
  }
  return guarded;
}

function guard<T extends object>(target: T, field: string, allowed: ReadonlySet<string>): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function') return value;
      if (typeof prop === 'string' && allowed.has(prop)) return (value as (...args: unknown[]) => unknown).bind(obj);
      return () => {
        throw new FreshReadNeeded(`${field}.${String(prop)} from a cached read`);
      };
    },
  });
}

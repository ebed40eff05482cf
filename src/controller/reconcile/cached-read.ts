import type { HelmRelease } from '../../api/helmrelease.js';
import { outcomeAtGeneration } from '../../core/release/reconciled.js';
import { ConditionType, FINALIZER } from '../../api/vocabulary.js';
import { findCondition } from '../status/conditions.js';
import type { ReconcileContext } from './context.js';
import { isConflict } from '../../core/kube/errors.js';

/**
 * Passes start from the informer's copy of the HelmRelease instead of a GET. A cached copy can lag
 * the server by a watch event, so it is trusted in two ways only:
 * - a settled copy, for one conclusion: "nothing to change". That pass runs on a read-only
 *   context; the first write or helm process it would start aborts it (FreshReadNeeded).
 * - any other copy, up to its first write: that write carries the copy's resourceVersion, so the
 *   server refuses it (409) when the copy was stale. Nothing with an effect may come before it.
 * Either way an aborted pass is redone from a fresh GET.
 */

/** Thrown by a guarded context when a pass from the cache wants to act on a copy not proven current. */
export class FreshReadNeeded extends Error {
  override name = 'FreshReadNeeded';
}

/**
 * Pure: does this copy look settled — its generation reconciled and Ready, nothing in progress,
 * not being deleted or suspended? Only then is a pass from the cache worth trying: a spec change
 * (generation ahead of observedGeneration) would need a fresh read anyway.
 */
export function looksSettled(release: HelmRelease): boolean {
  const { metadata } = release;
  if (metadata.deletionTimestamp || release.spec?.suspend) return false;
  if (!metadata.finalizers?.includes(FINALIZER)) return false;
  if (outcomeAtGeneration(release) !== 'ready') return false;
  return findCondition(release.status?.conditions, ConditionType.Stalled)?.status !== 'True';
}

/** Methods a pass from the cache may call: reads only. Anything else (unknown methods included) aborts it. */
const READS: Partial<Record<keyof ReconcileContext, ReadonlySet<string>>> = {
  api: new Set(['get', 'list']),
  storage: new Set(['history']),
  helm: new Set(),
  events: new Set(),
  // Checking drift reads and dry-runs; correcting it changes the cluster.
  drift: new Set(['check']),
};

/** The same context with every writer (API writes, helm, Events) replaced by a FreshReadNeeded thrower. */
export function readOnlyContext(ctx: ReconcileContext): ReconcileContext {
  return guardedContext(ctx, (field, method) => (READS[field]?.has(method) ? 'call' : 'abort'));
}

/** HelmRelease writes that can carry a resourceVersion precondition (HelmReleaseApi). */
const VERIFYING_WRITES: ReadonlySet<string> = new Set(['patchStatus', 'addFinalizer']);

/**
 * The same context for a pass from a copy that is not settled (a new spec, a first install): until
 * its first HelmRelease write succeeds, only reads and fetching a chart archive (no effect on the
 * cluster) go through; that write is made conditional on `resourceVersion`, and a conflict aborts
 * the pass. After it, the copy was the server's state at that write, and the pass goes on as usual.
 */
export function verifiedFirstWriteContext(ctx: ReconcileContext, resourceVersion: string): ReconcileContext {
  let verified = false;
  return guardedContext(ctx, (field, method) => {
    if (verified || READS[field]?.has(method) || (field === 'helm' && method === 'pullChart')) return 'call';
    if (field !== 'api' || !VERIFYING_WRITES.has(method)) return 'abort';
    return async (call) => {
      try {
        const result = await call({ resourceVersion });
        verified = true;
        return result;
      } catch (error) {
        if (isConflict(error)) throw new FreshReadNeeded(`api.${method} on a cached copy older than the server's`);
        throw error;
      }
    };
  });
}

/** What a guard does with one method: call it, abort the pass, or call it with a precondition. */
type MethodRule = 'call' | 'abort' | ((call: (precondition: { resourceVersion: string }) => Promise<unknown>) => Promise<unknown>);

function guardedContext(ctx: ReconcileContext, rule: (field: keyof ReconcileContext, method: string) => MethodRule): ReconcileContext {
  const guarded = { ...ctx };
  for (const field of Object.keys(READS) as Array<keyof ReconcileContext>) {
    if (ctx[field]) (guarded as Record<string, unknown>)[field] = guard(ctx[field] as object, field, rule);
  }
  return guarded;
}

function guard<T extends object>(target: T, field: keyof ReconcileContext, rule: (field: keyof ReconcileContext, method: string) => MethodRule): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(obj);
      return (...args: unknown[]) => {
        // Decided at the call, not when the method is looked up: the first write unlocks the rest.
        const how = rule(field, prop);
        if (how === 'call') return method(...args);
        if (how === 'abort') throw new FreshReadNeeded(`${field}.${prop} from a cached read`);
        return how((precondition) => method(...args, precondition) as Promise<unknown>);
      };
    },
  });
}

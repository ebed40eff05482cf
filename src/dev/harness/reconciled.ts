// Waiting for the controller: one release reconciled at a generation, a whole namespace's releases
// at theirs, a Ready reason, a deletion. "Reconciled at a generation" is core's predicate
// (isReconciledAt / outcomeAtGeneration), never a copy of it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Condition } from '../../api/helmrelease-status.js';
import { ConditionType } from '../../api/vocabulary.js';
import { makeKubeClients } from '../../core/kube/client.js';
import { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { isReconciledAt, outcomeAtGeneration } from '../../core/release/reconciled.js';
import { pollUntil, type PollOptions } from './poll.js';

function releases(kc: KubeConfig): HelmReleaseApi {
  return new HelmReleaseApi(makeKubeClients(kc));
}

/** Waits until the controller has finished with `generation`: Ready is True or False (not Unknown) for it. */
export async function waitForReconciled(kc: KubeConfig, namespace: string, name: string, generation: number, timeoutMs = 120_000): Promise<HelmRelease> {
  const api = releases(kc);
  let last: HelmRelease | undefined;
  return pollUntil(
    async () => {
      last = await api.get(namespace, name);
      return last && isReconciledAt(last, generation) ? last : undefined;
    },
    { timeoutMs },
    () => `${namespace}/${name} generation ${generation} was not reconciled within ${timeoutMs / 1000}s; last status: ${JSON.stringify(last?.status)}`,
  );
}

/** Waits until the HelmRelease's Ready condition has `reason`; returns the object and that condition. */
export async function waitForReadyReason(
  kc: KubeConfig,
  namespace: string,
  name: string,
  reason: string,
  opts: Partial<PollOptions> = {},
): Promise<{ release: HelmRelease; ready: Condition }> {
  const api = releases(kc);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let last: HelmRelease | undefined;
  return pollUntil(
    async () => {
      last = await api.get(namespace, name);
      const ready = last?.status?.conditions?.find((c) => c.type === ConditionType.Ready);
      return last && ready?.reason === reason ? { release: last, ready } : undefined;
    },
    { ...opts, timeoutMs },
    () => `${namespace}/${name} never had Ready reason ${reason} within ${timeoutMs / 1000}s; last status: ${JSON.stringify(last?.status)}`,
  );
}

/** Waits until the HelmRelease object is gone (its finalizer removed). */
export async function waitForGone(kc: KubeConfig, namespace: string, name: string, timeoutMs = 60_000): Promise<void> {
  const api = releases(kc);
  await pollUntil(
    async () => ((await api.get(namespace, name)) ? undefined : true),
    { timeoutMs },
    () => `${namespace}/${name} still exists after ${timeoutMs / 1000}s`,
  );
}

export interface ReconciledCount {
  ready: number;
  failed: number;
  pending: number;
  /** Wall time (ms since `since`) at which each release was first seen done for its generation, sorted. */
  doneAtMs: number[];
  timedOut: boolean;
}

/**
 * Polls the namespace's HelmReleases (one LIST per tick) until every one in `generations` is done
 * with that generation (`outcomeAtGeneration` is ready or failed). Returns the counts when all are
 * done or the time is up; it does not throw on a timeout.
 */
export async function waitAllReconciled(
  kc: KubeConfig,
  namespace: string,
  generations: Map<string, number>,
  since: number,
  timeoutMs: number,
  everyMs = 250,
): Promise<ReconciledCount> {
  const api = releases(kc);
  const done = new Map<string, { ok: boolean; at: number }>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { items } = await api.list(namespace);
    const now = Date.now();
    for (const r of items) {
      const name = r.metadata.name;
      const generation = generations.get(name);
      if (generation === undefined || done.has(name)) continue;
      const outcome = outcomeAtGeneration(r, generation);
      if (outcome === 'pending') continue;
      done.set(name, { ok: outcome === 'ready', at: now - since });
    }
    const finished = done.size === generations.size;
    if (finished || now > deadline) {
      const values = [...done.values()];
      return {
        ready: values.filter((v) => v.ok).length,
        failed: values.filter((v) => !v.ok).length,
        pending: generations.size - done.size,
        doneAtMs: values.map((v) => v.at).sort((a, b) => a - b),
        timedOut: !finished,
      };
    }
    await sleep(everyMs);
  }
}

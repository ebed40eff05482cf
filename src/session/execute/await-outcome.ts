import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { PreparedAction } from '../plan/prepared.js';
import { outcomeOf, type Outcome } from './outcome.js';

/** Time, injected: the wait polls it. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/** Polls the releases' status until the controller has reported on each, or the time is up (unfreeze: the releases it let go). */
export async function awaitOutcomes(
  api: Pick<HelmReleaseApi, 'get'>,
  action: PreparedAction,
  requestId: string | undefined,
  timeoutMs: number,
  pollMs = 500,
  clock: Clock = systemClock,
): Promise<Outcome[]> {
  const deadline = clock.now() + timeoutMs;
  const results = new Map<string, Outcome>();
  while (true) {
    for (const target of action.targets) {
      const key = `${target.namespace}/${target.name}`;
      if (results.get(key)?.done) continue;
      let release;
      try {
        release = await api.get(target.namespace, target.name);
      } catch (error) {
        // A fleet agent that does not answer one read is asked again until the time is up.
        results.set(key, { done: false, succeeded: false, message: `${key}: ${(error as Error).message}` });
        continue;
      }
      const outcome = release ? outcomeOf(release, action.command.verb, requestId, action.unfreeze?.metadata.name) : undefined;
      results.set(key, outcome ?? { done: true, succeeded: false, message: `${key}: gone` });
    }
    const all = [...results.values()];
    if (all.every((o) => o.done) || clock.now() >= deadline) {
      return all.map((o) =>
        o.done ? o : { ...o, message: `${o.message} (no report within ${Math.round(timeoutMs / 1000)}s; the controller may be busy or down)` },
      );
    }
    await clock.sleep(pollMs);
  }
}

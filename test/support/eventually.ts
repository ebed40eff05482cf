// The one way tests wait: for the outcome they assert, with a deadline, failing with what was
// last seen. Waiting for "something happened" and then asserting what should have happened reads
// the state of a moment; under load that moment comes before the outcome (docs/testing.md).
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import type { Condition } from '../../src/api/helmrelease-status.js';
import { ConditionType } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';

export interface EventuallyOptions {
  /** 60 s unless said otherwise. */
  timeoutMs?: number;
  /** Pause between tries; 200 ms unless said otherwise. */
  intervalMs?: number;
  /** Called before every try (a test samples memory there, say). */
  onTick?: () => void;
}

/**
 * Runs `check` until it returns without throwing, and returns what it returned. `check` reads the
 * state and asserts on it (`expect` inside), so the wait and the assertion are the same thing.
 * When the time is up, the last failure is thrown, prefixed with how long was waited: an
 * `expect` failure already shows the last value seen.
 */
export async function eventually<T>(check: () => T | Promise<T>, opts: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (let tries = 1; ; tries++) {
    opts.onTick?.();
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw timedOut(error, timeoutMs, tries);
    }
    await sleep(opts.intervalMs ?? 200);
  }
}

function timedOut(last: unknown, timeoutMs: number, tries: number): Error {
  const prefix = `not so within ${timeoutMs / 1000}s (${tries} tries); last try: `;
  if (last instanceof Error) {
    last.message = prefix + last.message;
    return last;
  }
  return new Error(prefix + String(last));
}

function readyOf(release: HelmRelease | undefined): Condition | undefined {
  return release?.status?.conditions?.find((c) => c.type === ConditionType.Ready);
}

/** Waits until the HelmRelease's Ready condition has `reason`; returns the object with that condition as `ready`. */
export async function waitForReadyReason(
  kc: KubeConfig,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs = 60_000,
  onTick?: () => void,
): Promise<HelmRelease & { ready: Condition }> {
  const api = new HelmReleaseApi(makeKubeClients(kc));
  return eventually(
    async () => {
      const release = await api.get(namespace, name);
      const ready = readyOf(release);
      if (!release || ready?.reason !== reason)
        throw new Error(`${namespace}/${name} has no Ready reason ${reason}; status: ${JSON.stringify(release?.status ?? (release ? {} : 'not found'))}`);
      return { ...release, ready };
    },
    { timeoutMs, intervalMs: 100, onTick },
  );
}

/** The same wait, returning only the Ready condition. */
export async function waitForReadyCondition(
  kc: KubeConfig,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs = 60_000,
  onTick?: () => void,
): Promise<Condition> {
  return (await waitForReadyReason(kc, namespace, name, reason, timeoutMs, onTick)).ready;
}

/** Waits until the HelmRelease object is gone (its finalizer removed). */
export async function waitForGone(kc: KubeConfig, namespace: string, name: string, timeoutMs = 60_000): Promise<void> {
  const api = new HelmReleaseApi(makeKubeClients(kc));
  await eventually(
    async () => {
      const release = await api.get(namespace, name);
      if (release)
        throw new Error(
          `${namespace}/${name} still exists; finalizers ${JSON.stringify(release.metadata.finalizers)}, deletionTimestamp ${release.metadata.deletionTimestamp}`,
        );
    },
    { timeoutMs },
  );
}

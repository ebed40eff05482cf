import type { ReleaseEvent } from '../../api/vocabulary.js';
import type { Requester, RequestKey } from '../requests/requester-ledger.js';

/** Where a helm run's events stand in it: who asked is looked up when it starts and kept for how it ends. */
export type RunStage = 'start' | 'end';

const STAGES: ReadonlyMap<string, RunStage> = new Map([
  ['InstallStarted', 'start'],
  ['UpgradeStarted', 'start'],
  ['InstallSucceeded', 'end'],
  ['InstallFailed', 'end'],
  ['UpgradeSucceeded', 'end'],
  ['UpgradeFailed', 'end'],
]);

/** Pure: the event's stage in its run, or undefined for an event that is not one of a run's ends. */
export function runStage(event: ReleaseEvent): RunStage | undefined {
  return STAGES.get(event);
}

/** Pure: one run's look-up, named by the object (uid) and the keys looked up (a request's id or a generation). */
export function runLookupKey(uid: string, keys: readonly RequestKey[]): string {
  return `${uid} ${keys.map((k) => ('requestId' in k ? `id:${k.requestId}` : `gen:${k.generation}`)).join(' ')}`;
}

/** How many runs' answers are kept at most (a run whose end never comes is pushed out by later ones). */
export const MAX_KEPT_RUNS = 4096;

/**
 * Who asked for each run in progress, as its start's look-up found it (nobody included), so the
 * run's end does not ask Redis again. A requester is recorded right after the chat command's patch,
 * before the controller can start the run it causes; one recorded after the run started would be
 * named by neither message (before, the end's own look-up found it). Each answer is used once.
 */
export class RunRequesters {
  private readonly kept = new Map<string, Requester | null>();

  constructor(private readonly max = MAX_KEPT_RUNS) {}

  keep(key: string, requester: Requester | undefined): void {
    this.kept.delete(key);
    this.kept.set(key, requester ?? null);
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
  }

  /** The start's answer, taken: `{ requester }` (possibly none) when the start looked, else undefined. */
  take(key: string): { requester: Requester | undefined } | undefined {
    const found = this.kept.get(key);
    if (found === undefined) return undefined;
    this.kept.delete(key);
    return { requester: found ?? undefined };
  }
}

/** What the replicas on the reconcile queue are doing, as far as a pass needs to know when its replica has no helm slot free. */
export interface QueueLoad {
  /** Releases queued and runnable now (waiting, not delayed). */
  queued: number;
  /** Whether other replicas work this queue; undefined when not asked or Redis cannot tell (CLIENT LIST refused). */
  otherReplicas: boolean | undefined;
}

/** Reads the queue's load (queue/reconcile-queue.ts queueLoadOf). */
export interface QueueLoadReader {
  queued(): Promise<number>;
  otherReplicas(): Promise<boolean | undefined>;
}

/**
 * Pure: an install or upgrade whose replica has every helm slot taken, before it says it started:
 * wait here for a slot, or hand the release back to the queue for another replica.
 *
 * Reading ahead (HELMCREW_READ_AHEAD), a replica runs more passes than helm slots, so a pass can
 * find every slot taken by helm processes that may run their whole `--timeout` (a doomed `--wait`:
 * minutes). It always waited, and so a release sat behind them while another replica was idle
 * (follower-supersede.test.ts: one replica took both doomed upgrades, the second waiting for the
 * first's slot, and the other replica ran none). Waiting is right only when no other replica could
 * start it sooner: when this is the only one, or when releases are queued (every replica is busy:
 * an idle one would have taken them). Otherwise it goes back to the queue, where an idle replica
 * takes it. Unknown counts as alone (the wait, as before).
 */
export function slotWait(load: QueueLoad): 'wait' | 'hand-back' {
  if (load.queued > 0 || load.otherReplicas !== true) return 'wait';
  return 'hand-back';
}

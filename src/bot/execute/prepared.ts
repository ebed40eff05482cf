import type { MutatingCommand } from '../grammar/command.js';
import type { Plan } from '../plan/plan.js';

/** A mutating command resolved against the cluster and planned, waiting for confirmation. */
export interface PreparedAction {
  command: MutatingCommand;
  /** The releases it changes, with the generation the plan was made from. */
  targets: Array<{ namespace: string; name: string; chart: string; generation: number }>;
  plan: Plan;
  /** Set for freeze: the id every suspended release is marked with. */
  freezeId?: string;
}

export type Prepared = { ok: true; action: PreparedAction } | { ok: false; message: string };

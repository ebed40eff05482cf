import { authorizeAction, authorizeActionApproval } from '../authz/authorize-action.js';
import type { Subject, TeamPolicy } from '../authz/policy-types.js';
import type { PlanStore, StoredPlan } from '../execute/plan-store.js';

/**
 * What happens to a stored plan when someone clicks Confirm, Approve or Cancel — in Slack or on a
 * web page, the same rules: only the requester confirms or cancels, only once and before it
 * expires, authorized again now; under the two-person rule it then waits for a second, different
 * person authorized in their own right. The surface renders the result.
 */

/** Who clicked: their actor id (`slack:U…`, `oidc:…`) and what Team membership is matched on. */
export interface Clicker {
  id: string;
  subject: Subject;
}

export interface ConfirmationDeps {
  plans: Pick<PlanStore, 'peek' | 'take' | 'put' | 'update'>;
  teams(): Promise<TeamPolicy[]>;
  /** The requester's Subject now (their Slack user groups may have changed since the plan). */
  subjectOf(requester: StoredPlan['requester']): Promise<Subject>;
}

export type Confirmation =
  | { kind: 'expired' }
  | { kind: 'not-requester' }
  | { kind: 'refused'; plan: StoredPlan; reason: string }
  | { kind: 'awaiting-approval'; plan: StoredPlan; approvalId: string }
  | { kind: 'confirmed'; plan: StoredPlan };

export type Approval =
  | { kind: 'expired' }
  | { kind: 'refused'; plan: StoredPlan; reason: string }
  /** Counted, and it needs `still` more approvals from other people (an assistant's proposal may take two). */
  | { kind: 'counted'; plan: StoredPlan; still: number }
  /** `approvers`: every approval's actor id, in order (the last is this click's). */
  | { kind: 'approved'; plan: StoredPlan; approvers: string[] };

/** The requester's actor id: a web plan's own, a Slack plan's from its user. */
export const requesterId = (requester: StoredPlan['requester']): string => requester.id ?? `slack:${requester.slackUser}`;

export async function confirmPlan(planId: string, clicker: Clicker, deps: ConfirmationDeps): Promise<Confirmation> {
  const peeked = await deps.plans.peek(planId);
  if (!peeked || peeked.awaitingApproval) return { kind: 'expired' };
  if (requesterId(peeked.requester) !== clicker.id) return { kind: 'not-requester' };
  const plan = await deps.plans.take(planId);
  if (!plan) return { kind: 'expired' };
  const decision = authorizeAction(clicker.subject, plan.action, await deps.teams());
  if (!decision.allowed) return { kind: 'refused', plan, reason: decision.reason };
  if (decision.requireApproval) return { kind: 'awaiting-approval', plan, approvalId: await deps.plans.put({ ...plan, awaitingApproval: true }) };
  return { kind: 'confirmed', plan };
}

export async function approvePlan(planId: string, clicker: Clicker, deps: ConfirmationDeps): Promise<Approval> {
  const peeked = await deps.plans.peek(planId);
  if (!peeked || !peeked.awaitingApproval) return { kind: 'expired' };
  const requester = await deps.subjectOf(peeked.requester);
  const verb = peeked.action.command.verb;
  const needed = peeked.approvals?.needed ?? 1;
  // The same person through another surface is still the same person.
  const decision =
    requesterId(peeked.requester) === clicker.id
      ? ({ allowed: false, reason: `you asked for this ${verb}; a second, different person must approve it` } as const)
      : peeked.approvals?.by.includes(clicker.id)
        ? ({ allowed: false, reason: `you approved this ${verb} already; it needs ${needed - peeked.approvals.by.length} more, from other people` } as const)
        : authorizeActionApproval(requester, clicker.subject, peeked.action, await deps.teams());
  if (!decision.allowed) return { kind: 'refused', plan: peeked, reason: decision.reason };
  if (needed <= 1) {
    const plan = await deps.plans.take(planId);
    return plan ? { kind: 'approved', plan, approvers: [clicker.id] } : { kind: 'expired' };
  }
  // Counted atomically: of two people approving at once, both count, and only the one who made it enough takes the plan.
  let added = false;
  const counted = await deps.plans.update(planId, (plan) => {
    const by = plan.approvals?.by ?? [];
    added = !by.includes(clicker.id);
    return added ? { ...plan, approvals: { needed, by: [...by, clicker.id] } } : plan;
  });
  if (!counted?.approvals || !added) return counted ? { kind: 'refused', plan: counted, reason: `you approved this ${verb} already` } : { kind: 'expired' };
  const still = needed - counted.approvals.by.length;
  if (still > 0) return { kind: 'counted', plan: counted, still };
  const plan = await deps.plans.take(planId);
  return plan ? { kind: 'approved', plan, approvers: counted.approvals.by } : { kind: 'expired' };
}

/**
 * Cancel: only the requester's, before it waits for approval — or an assistant's proposal, which
 * waits from its start, withdrawn by its requester (the token's person); true when it was taken.
 */
export async function cancelPlan(planId: string, clicker: Pick<Clicker, 'id'>, deps: Pick<ConfirmationDeps, 'plans'>): Promise<boolean> {
  const plan = await deps.plans.peek(planId);
  if (!plan || requesterId(plan.requester) !== clicker.id) return false;
  if (plan.awaitingApproval && plan.requester.via !== 'assistant') return false;
  return (await deps.plans.take(planId)) !== undefined;
}

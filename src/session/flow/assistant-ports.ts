import type { Subject, TeamPolicy } from '../authz/policy-types.js';
import type { PlanStore, StoredPlan } from '../execute/plan-store.js';
import type { Plan } from '../plan/plan.js';
import type { PreparedAction } from '../plan/prepared.js';
import type { SessionPorts } from './ports.js';
import { teamGate } from './team-gate.js';

/**
 * The ports an assistant's call runs the one release session through, as the person its token
 * belongs to (a Slack user, or a person of the web's OIDC provider: their Teams decide). An assistant never applies: a doable plan is
 * either only shown (`mode: 'plan'`, nothing stored) or kept in the plan store as awaiting the
 * approval of another person (`mode: 'propose'`), with the token's person as its requester.
 */

export interface AssistantPerson {
  /** The actor id audit lines name: `slack:U…`, or `oidc:…` for a person of the web's OIDC provider. */
  id: string;
  /** What the Teams match: a Slack user, or a verified email and groups. */
  subject: Subject;
}

export interface AssistantAnswer {
  messages: { kind: 'input' | 'stopped' | 'info' | 'answer'; text: string }[];
  plan?: Plan;
  /** The stored proposal's plan id (mode 'propose', a doable plan), what it does and the approvals it takes. */
  planId?: string;
  action?: PreparedAction;
  approvalsNeeded?: number;
}

/**
 * Approvals an assistant's proposal takes: the token's person never saw the plan as a person
 * confirming it, so under the two-person rule (the verb's rule asks for approval, or break-glass)
 * two other people approve; otherwise one.
 */
export const assistantApprovalsNeeded = (requireApproval: boolean): number => (requireApproval ? 2 : 1);
export const assistantRequester = (person: AssistantPerson): StoredPlan['requester'] => ({
  slackUser: person.subject.slackUser ?? '',
  channel: '',
  id: person.id,
  via: 'assistant',
});

export function assistantPorts(
  person: AssistantPerson,
  teams: () => Promise<TeamPolicy[]>,
  answer: AssistantAnswer,
  mode: { kind: 'read' } | { kind: 'plan' } | { kind: 'propose'; plans: Pick<PlanStore, 'put'> },
): SessionPorts {
  const id = person.id;
  return {
    actor: async () => ({ id, via: 'assistant' }),
    reply: {
      say: async (text, kind) => void answer.messages.push({ kind, text }),
      answer: async (_verb, output) => void answer.messages.push({ kind: 'answer', text: output }),
      plan: async (plan) => void (answer.plan = plan),
    },
    gate: teamGate(async () => person.subject, teams),
    confirm: {
      ask: async (action, requireApproval) => {
        answer.plan = action.plan;
        if (mode.kind !== 'propose') return 'no';
        // Always awaiting another person's approval, whatever the Team's requireApproval says.
        const needed = assistantApprovalsNeeded(requireApproval);
        answer.planId = await mode.plans.put({ action, requester: assistantRequester(person), awaitingApproval: true, approvals: { needed, by: [] } });
        answer.action = action;
        answer.approvalsNeeded = needed;
        return 'later';
      },
    },
    // Never reached: confirm never answers 'yes'.
    progress: () => ({
      started: async (action) => action,
      failed: async () => undefined,
      applied: async () => undefined,
      finished: async () => undefined,
    }),
    whoami: async () => void answer.messages.push({ kind: 'answer', text: `you act as ${id} through an assistant` }),
    secondPerson: true,
    awaitOutcome: false,
  };
}

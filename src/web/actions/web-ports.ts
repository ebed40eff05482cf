import type { TeamPolicy } from '../../session/authz/policy-types.js';
import type { PlanStore, StoredPlan } from '../../session/execute/plan-store.js';
import type { SessionPorts } from '../../session/flow/ports.js';
import { requesterId } from '../../session/flow/plan-confirmations.js';
import { teamGate } from '../../session/flow/team-gate.js';
import type { Plan } from '../../session/plan/plan.js';
import type { WebPrincipal } from '../contract.js';

/**
 * The web's ports on the one release session: what the session says is collected for the page
 * (a web request answers once), the Teams decide who may (the same gate as Slack's), a doable plan
 * is kept in the plan store for its Confirm form, and the action does not wait for the controller —
 * the release page shows the outcome as it comes (live updates).
 */

export interface WebAnswer {
  /** What the person is told, in order. */
  messages: { kind: 'input' | 'stopped' | 'info' | 'answer'; text: string }[];
  /** A plan shown: with the id of its stored copy when it can be confirmed. */
  plan?: { plan: Plan; planId?: string; requireApproval: boolean };
  /** The write's summary, once carried out. */
  applied?: string;
}

/** The requester of a plan made on the web, as the plan store keeps it. */
export function webRequester(principal: WebPrincipal): StoredPlan['requester'] {
  return { slackUser: principal.subject.slackUser ?? '', channel: '', id: principal.id, via: 'web' };
}

export function webPorts(
  principal: { id: string; name: string; subject: WebPrincipal['subject'] },
  teams: TeamPolicy[],
  plans: Pick<PlanStore, 'put'>,
  answer: WebAnswer,
  requester: StoredPlan['requester'] = webRequester(principal as WebPrincipal),
): SessionPorts {
  return {
    // The action is the requester's (the approver is named apart): their id, and their name when it is them.
    actor: async () => {
      const id = requesterId(requester);
      return { id, name: id === principal.id ? principal.name : id, via: requester.via ?? 'web' };
    },
    reply: {
      say: async (text, kind) => void answer.messages.push({ kind, text }),
      answer: async (_verb, output) => void answer.messages.push({ kind: 'answer', text: output }),
      plan: async (plan) => void (answer.plan = { plan, requireApproval: false }),
    },
    gate: teamGate(
      async () => principal.subject,
      async () => teams,
    ),
    confirm: {
      ask: async (action, requireApproval) => {
        const planId = await plans.put({ action, requester });
        answer.plan = { plan: action.plan, planId, requireApproval };
        return 'later';
      },
    },
    progress: () => ({
      started: async (action) => action,
      failed: async () => void answer.messages.push({ kind: 'stopped', text: 'the change could not be written; nothing changed' }),
      applied: async (summary) => void (answer.applied = summary),
      finished: async () => undefined,
    }),
    whoami: async () => void answer.messages.push({ kind: 'answer', text: `you are ${principal.name} (${principal.id})` }),
    // A second person approves on the plan's page (or in Slack, for a plan made there).
    secondPerson: true,
    awaitOutcome: false,
  };
}

import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';
import type { Subject, TeamPolicy } from '../../../src/session/authz/policy-types.js';
import type { StoredPlan } from '../../../src/session/execute/plan-store.js';
import { approvePlan, cancelPlan, confirmPlan, type ConfirmationDeps } from '../../../src/session/flow/plan-confirmations.js';
import { prepareReleaseCommand } from '../../../src/session/plan/prepared.js';

/** Confirm, Approve and Cancel of a stored plan: the one set of rules Slack's buttons and the web's forms follow. */

const release = {
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { namespace: 'web', name: 'unicorn', generation: 1 },
  spec: { chart: { repository: 'https://charts.example', name: 'unicorn', version: '2.0.0' } },
} as HelmRelease;
const action = prepareReleaseCommand({ verb: 'suspend', release: { name: 'unicorn' } }, release, summarizeHistory([]));

/** Teams by email (web sign-in) and by Slack user; `approval` makes suspend in web need a second person. */
const teams = (approval: boolean): TeamPolicy[] => [
  { name: 'web', members: { slackUsers: ['UALICE', 'UBOB', 'UCAROL'] }, permissions: [{ verbs: ['suspend'], namespaces: ['web'], requireApproval: approval }] },
];
const alice = { id: 'slack:UALICE', subject: { slackUser: 'UALICE', slackUserGroups: [] } };
const bob = { id: 'slack:UBOB', subject: { slackUser: 'UBOB', slackUserGroups: [] } };
const carol = { id: 'slack:UCAROL', subject: { slackUser: 'UCAROL', slackUserGroups: [] } };
const mallory = { id: 'slack:UMALLORY', subject: { slackUser: 'UMALLORY', slackUserGroups: [] } };

/** An in-memory store with the real one's take-once semantics (the Redis one: execute/plan-store.ts, used by the Slack integration tests). */
function memoryPlans(): ConfirmationDeps['plans'] & { size(): number } {
  const plans = new Map<string, StoredPlan>();
  let next = 0;
  return {
    put: async (plan) => {
      const id = `p${next++}`;
      plans.set(id, structuredClone(plan));
      return id;
    },
    peek: async (id) => plans.get(id),
    take: async (id) => {
      const plan = plans.get(id);
      plans.delete(id);
      return plan;
    },
    update: async (id, change) => {
      const plan = plans.get(id);
      if (!plan) return undefined;
      const next = change(structuredClone(plan));
      plans.set(id, next);
      return next;
    },
    size: () => plans.size,
  };
}

function deps(approval: boolean) {
  const plans = memoryPlans();
  const subjects: Record<string, Subject> = { UALICE: alice.subject, UBOB: bob.subject, UCAROL: carol.subject };
  return { plans, teams: async () => teams(approval), subjectOf: async (r: StoredPlan['requester']) => subjects[r.slackUser]! };
}

describe('confirm', () => {
  it('the requester confirms once; a second click finds it used', async () => {
    const d = deps(false);
    const id = await d.plans.put({ action, requester: { slackUser: 'UALICE', channel: 'C1' } });
    expect(await confirmPlan(id, bob, d)).toEqual({ kind: 'not-requester' });
    expect(await confirmPlan(id, alice, d)).toMatchObject({ kind: 'confirmed' });
    expect(await confirmPlan(id, alice, d)).toEqual({ kind: 'expired' });
  });

  it('authorized again at the click: a requester no longer in the Team is refused', async () => {
    const d = { ...deps(false), teams: async () => [] };
    const id = await d.plans.put({ action, requester: { slackUser: 'UALICE', channel: 'C1' } });
    expect(await confirmPlan(id, alice, d)).toMatchObject({ kind: 'refused', reason: expect.stringContaining('no Team') });
  });

  it('under the two-person rule it waits for an approval', async () => {
    const d = deps(true);
    const id = await d.plans.put({ action, requester: { slackUser: 'UALICE', channel: 'C1' } });
    const waiting = await confirmPlan(id, alice, d);
    expect(waiting).toMatchObject({ kind: 'awaiting-approval' });
    const approvalId = (waiting as { approvalId: string }).approvalId;
    expect(await approvePlan(approvalId, alice, d)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/second, different person/) });
    expect(await approvePlan(approvalId, mallory, d)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/^you may not approve/) });
    expect(await approvePlan(approvalId, bob, d)).toMatchObject({ kind: 'approved' });
    expect(await approvePlan(approvalId, bob, d)).toEqual({ kind: 'expired' });
  });

  it('a web requester (an actor id, no Slack id) is told apart from another web person', async () => {
    const d = deps(true);
    const teamsByEmail: TeamPolicy[] = [
      { name: 'web', members: { slackUsers: [] }, permissions: [{ verbs: ['suspend'], namespaces: ['web'], requireApproval: true }] },
    ];
    const ana = { id: 'oidc:ana@example.com', subject: { slackUser: '', slackUserGroups: [] } };
    const ben = { id: 'oidc:ben@example.com', subject: { slackUser: '', slackUserGroups: [] } };
    const dd = { ...d, teams: async () => teamsByEmail, subjectOf: async () => ana.subject };
    const approvalId = await d.plans.put({ action, requester: { slackUser: '', channel: '', id: ana.id, via: 'web' }, awaitingApproval: true });
    // Not "you asked for this": two web people without Slack ids are not the same person. Refused here only because the Team lists no member.
    expect(await approvePlan(approvalId, ben, dd)).toMatchObject({ kind: 'refused', reason: expect.stringContaining('no Team') });
    expect(await approvePlan(approvalId, ana, dd)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/second, different person/) });
  });
});

describe("an assistant's proposal", () => {
  const proposal = (needed: number): StoredPlan => ({
    action,
    requester: { slackUser: 'UALICE', channel: '', id: 'slack:UALICE', via: 'assistant' },
    awaitingApproval: true,
    approvals: { needed, by: [] },
  });

  it('taking two approvals: the token’s person never, each other person once, and only the second carries it out', async () => {
    const d = deps(true);
    const id = await d.plans.put(proposal(2));
    expect(await approvePlan(id, alice, d)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/second, different person/) });
    expect(await approvePlan(id, mallory, d)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/^you may not approve/) });
    expect(await approvePlan(id, bob, d)).toMatchObject({ kind: 'counted', still: 1, plan: { approvals: { needed: 2, by: ['slack:UBOB'] } } });
    expect(await approvePlan(id, bob, d)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/approved this suspend already; it needs 1 more/) });
    expect(d.plans.size()).toBe(1);
    expect(await approvePlan(id, carol, d)).toMatchObject({ kind: 'approved', approvers: ['slack:UBOB', 'slack:UCAROL'] });
    expect(d.plans.size()).toBe(0);
    expect(await approvePlan(id, carol, d)).toEqual({ kind: 'expired' });
  });

  it('taking one: the first other person carries it out', async () => {
    const d = deps(false);
    const id = await d.plans.put(proposal(1));
    expect(await approvePlan(id, bob, d)).toMatchObject({ kind: 'approved', approvers: ['slack:UBOB'] });
  });

  it('its requester may withdraw it while it waits; nobody else may cancel it', async () => {
    const d = deps(true);
    const id = await d.plans.put(proposal(2));
    expect(await cancelPlan(id, bob, d)).toBe(false);
    expect(await cancelPlan(id, alice, d)).toBe(true);
    expect(d.plans.size()).toBe(0);
  });
});

describe('cancel', () => {
  it('only the requester, only before it waits for approval', async () => {
    const d = deps(false);
    const id = await d.plans.put({ action, requester: { slackUser: 'UALICE', channel: 'C1' } });
    expect(await cancelPlan(id, bob, d)).toBe(false);
    expect(await cancelPlan(id, alice, d)).toBe(true);
    expect(d.plans.size()).toBe(0);
    const waiting = await d.plans.put({ action, requester: { slackUser: 'UALICE', channel: 'C1' }, awaitingApproval: true });
    expect(await cancelPlan(waiting, alice, d)).toBe(false);
  });
});

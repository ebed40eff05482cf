import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { ProposalVotes } from '../../../src/bot/slack/proposal-votes.js';
import type { SlackMessage } from '../../../src/bot/slack/blocks.js';
import { createLogger } from '../../../src/core/log.js';
import type { ProposalState } from '../../../src/core/proposals/approval.js';
import type { ProposalStore } from '../../../src/core/proposals/proposal-store.js';
import type { Proposal } from '../../../src/core/proposals/proposal.js';

/**
 * The edit a vote makes shows the proposal as it is when the message is edited: the second approval
 * may be applied by the controller (and the message edited to "applied" by notify) before the bot
 * edits it, which must then not put back "approved".
 */

const proposal = (state: ProposalState): Proposal => ({
  id: 'p-0000000000000001',
  kind: 'promotion',
  release: { cluster: 'default', namespace: 'prod', name: 'web' },
  values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
  summary: 'promotion from staging/web to prod/web: image.tag 1.4.2 → 1.5.0',
  subject: 'default/prod/web promotion from default/staging/web',
  facts: { required: 2, proposedBy: 'slack:UANA', expiresAt: Date.parse('2026-11-27T00:00:00Z') },
  state,
  createdAt: 0,
  message: { channel: 'CWEB', ts: '1.1' },
});

function world(reads: ProposalState[]) {
  const approved = proposal({ phase: 'approved', approvers: ['slack:UBEN', 'slack:UCY'] });
  let at = 0;
  const store = {
    // The click reads it, then the edit reads it before and after: the states given, in turn.
    get: async () => proposal(reads[Math.min(at++, reads.length - 1)]!),
    vote: async () => ({ verdict: { kind: 'approved' as const, state: approved.state }, proposal: approved }),
  } as unknown as ProposalStore;
  const edits: string[] = [];
  const answers: string[] = [];
  const votes = new ProposalVotes({
    store: () => store,
    locate: async () => ({
      ok: true,
      release: { metadata: { namespace: 'prod', name: 'web' }, spec: { chart: { name: 'web' } } } as HelmRelease,
      local: false,
    }),
    teams: async () => [{ name: 'web', members: { slackUsers: ['UCY'] }, permissions: [{ verbs: ['approve'] }] }],
    userGroups: async () => [],
    poster: {
      post: async () => ({ ts: '2.2' }),
      update: async (_channel, _ts, message: SlackMessage) => void edits.push(JSON.stringify(message.blocks)),
      reply: async () => undefined,
    },
    events: { record: async () => undefined },
    log: createLogger('test', 'silent'),
    showCluster: false,
    now: () => Date.parse('2026-11-26T22:00:00Z'),
  });
  const vote = () => votes.vote('default/p-0000000000000001', 'approve', { user: 'UCY', channel: 'CWEB', reply: async (m) => void answers.push(m.text) });
  return { edits, answers, vote };
}

const open = { phase: 'open' as const, approvers: ['slack:UBEN'] };
const approvedState = { phase: 'approved' as const, approvers: ['slack:UBEN', 'slack:UCY'] };
const applied = { phase: 'applied' as const, approvers: ['slack:UBEN', 'slack:UCY'] };

describe('a vote edits the message', () => {
  it('with the record read at the edit: applied meanwhile, it shows applied', async () => {
    const { edits, answers, vote } = world([open, applied]);
    await vote();
    expect(answers).toEqual([expect.stringMatching(/^Approved: /)]);
    expect(edits).toHaveLength(1);
    expect(edits[0]).toContain('Applied. Approved by <@UBEN>, <@UCY>');
  });

  it('applied while it edited (notify may have shown it first): edited once more, to applied', async () => {
    const { edits, vote } = world([open, approvedState, applied]);
    await vote();
    expect(edits).toHaveLength(2);
    expect(edits[0]).toContain('Approved by <@UBEN>, <@UCY>; the controller applies it');
    expect(edits[1]).toContain('Applied. Approved by <@UBEN>, <@UCY>');
  });

  it('nothing moved: one edit', async () => {
    const { edits, vote } = world([open, approvedState]);
    await vote();
    expect(edits).toHaveLength(1);
  });
});

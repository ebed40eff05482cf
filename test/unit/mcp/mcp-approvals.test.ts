import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';
import { SlackUserEmails } from '../../../src/core/slack/user-emails.js';
import { approvalChannels } from '../../../src/session/authz/approval-channels.js';
import { teamPolicy, type TeamPolicy } from '../../../src/session/authz/policy-types.js';
import { slackSubject } from '../../../src/session/authz/slack-subject.js';
import { assistantApprovalsNeeded } from '../../../src/session/flow/assistant-ports.js';
import { prepareReleaseCommand } from '../../../src/session/plan/prepared.js';
import { approvalRequestMessage } from '../../../src/session/render/approval-request.js';
import { originOf, originText } from '../../../src/web/views/timeline.js';

/** An assistant's proposal told in Slack, its approvals, and the person behind a token as the Teams see them. */

const release = {
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { namespace: 'web', name: 'unicorn', generation: 1 },
  spec: { chart: { repository: 'https://charts.example', name: 'unicorn', version: '2.0.0' } },
} as HelmRelease;
const action = prepareReleaseCommand({ verb: 'suspend', release: { name: 'unicorn' }, reason: 'pink <is> *fine*' }, release, summarizeHistory([]));

type Blocks = Array<{ type: string; text?: { text: string }; elements?: Array<{ action_id: string; value: string }> }>;

describe('the approval request message', () => {
  const request = { requester: 'UALICE', plan: action.plan, planId: 'p1', reason: 'pink <is> *fine*', link: 'https://helmcrew.example/plans/p1' };

  it("an assistant's: who proposed it through an assistant, escaped, its link, Approve and Cancel", () => {
    const message = approvalRequestMessage({ ...request, viaAssistant: true, approvals: { needed: 2, by: [] } });
    expect(message.text).toContain('Proposed by <@UALICE> via an assistant');
    expect(message.text).toContain('pink &lt;is&gt;');
    expect(message.text).toContain('<https://helmcrew.example/plans/p1|The plan on the web>');
    expect(message.text).toContain('It needs 2 approvals from other authorized people.');
    const buttons = (message.blocks as Blocks).find((b) => b.type === 'actions')!.elements!;
    expect(buttons.map((b) => [b.action_id, b.value])).toEqual([
      ['release_approve', 'p1'],
      ['release_cancel', 'p1'],
    ]);
  });

  it("a person's (the two-person rule in chat): Approve only, as before", () => {
    const message = approvalRequestMessage({ requester: 'UALICE', plan: action.plan, planId: 'p1' });
    expect(message.text).toMatch(/^<@UALICE> asks to \*suspend .*\. A second authorized person must approve\.$/);
    expect((message.blocks as Blocks).find((b) => b.type === 'actions')!.elements!.map((b) => b.action_id)).toEqual(['release_approve']);
  });

  it('counts approvals so far, and once ended says how and drops the buttons', () => {
    const counted = approvalRequestMessage({ ...request, viaAssistant: true, approvals: { needed: 2, by: ['slack:UBOB'] } });
    expect(counted.text).toContain('Approved so far by <@UBOB>.');
    const approved = approvalRequestMessage({ ...request, viaAssistant: true }, { kind: 'approved', by: ['slack:UBOB', 'slack:UCAROL'] });
    expect(approved.text).toContain(':white_check_mark: Approved by <@UBOB>, <@UCAROL>');
    expect((approved.blocks as Blocks).some((b) => b.type === 'actions')).toBe(false);
    const cancelled = approvalRequestMessage({ ...request, viaAssistant: true }, { kind: 'cancelled', by: 'slack:UALICE' });
    expect(cancelled.text).toContain('Cancelled by <@UALICE>; nothing changed.');
  });
});

describe('where a proposal asks', () => {
  const team = (name: string, verbs: string[], namespaces: string[] | undefined, slack: string[]): TeamPolicy =>
    teamPolicy({
      apiVersion: 'helmcrew.dev/v1alpha1',
      kind: 'Team',
      metadata: { name },
      spec: {
        members: { slackUsers: ['UBOB'] },
        channels: [...slack.map((s) => ({ slack: s })), { webhook: { url: 'https://hooks.example', secretRef: { namespace: 'x', name: 'y' } } }],
        permissions: [{ verbs: verbs as never, ...(namespaces ? { namespaces } : {}) }],
      },
    });

  it('the Slack channels of the Teams granting the verb on the release, each once; not a Team without it or elsewhere', () => {
    const teams = [
      team('web', ['suspend'], ['web'], ['#web-releases', 'C0SHARED']),
      team('sre', ['suspend', 'rollback'], undefined, ['C0SHARED', '#sre']),
      team('readers', ['status'], ['web'], ['#readers']),
      team('api', ['suspend'], ['api'], ['#api']),
    ];
    expect(approvalChannels(action, teams)).toEqual(['#web-releases', 'C0SHARED', '#sre']);
    expect(approvalChannels(action, teams.slice(2))).toEqual([]);
  });

  it('two approvals under the two-person rule, else one', () => {
    expect(assistantApprovalsNeeded(true)).toBe(2);
    expect(assistantApprovalsNeeded(false)).toBe(1);
  });
});

describe("a token's person, as the Teams match them", () => {
  it('their Slack user groups and profile email; Slack failing gives the id alone, reported', async () => {
    const failures: string[] = [];
    const directory = { userGroups: async () => ['SONCALL'], email: async () => 'ana@example.org' };
    expect(await slackSubject('UANA', directory, (e) => failures.push(e.message))).toEqual({
      slackUser: 'UANA',
      slackUserGroups: ['SONCALL'],
      email: 'ana@example.org',
    });
    const down = { userGroups: async () => Promise.reject(new Error('slack down')), email: async () => Promise.reject(new Error('slack down')) };
    expect(await slackSubject('UANA', down, (e) => failures.push(e.message))).toEqual({ slackUser: 'UANA', slackUserGroups: [] });
    expect(failures).toEqual(['slack down', 'slack down']);
  });

  it('the profile email is read once per person while fresh (users.info), and no answer is no email', async () => {
    let now = 0;
    const asked: string[] = [];
    const slack = {
      users: {
        info: async ({ user }: { user: string }) => {
          asked.push(user);
          if (user === 'UGONE') throw new Error('user_not_found');
          return { user: { profile: { email: `${user.toLowerCase()}@example.org` } } };
        },
      },
    };
    const emails = new SlackUserEmails(slack, 1000, () => now);
    expect(await emails.of('UANA')).toBe('uana@example.org');
    expect(await emails.of('UANA')).toBe('uana@example.org');
    expect(await emails.of('UGONE')).toBeUndefined();
    now = 2000;
    await emails.of('UANA');
    expect(asked).toEqual(['UANA', 'UGONE', 'UANA']);
  });
});

describe('the timeline', () => {
  it('reads "via an assistant" (and the older "via assistant") as an assistant, and shows it so', () => {
    expect(originOf('slack:UALICE', undefined, 'an assistant')).toBe('assistant');
    expect(originOf('slack:UALICE', undefined, 'assistant')).toBe('assistant');
    expect(originText('assistant')).toBe('via an assistant');
    expect(originText('slack')).toBe('slack');
  });
});

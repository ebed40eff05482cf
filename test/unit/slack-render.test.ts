import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../src/dev/fake-slack/block-limits.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { parseReleaseActionValue, ReleaseAction } from '../../src/core/slack/action-ids.js';
import { codeBlock, escapeMrkdwn, truncateEscaped } from '../../src/core/slack/mrkdwn.js';
import {
  extendTimeline,
  MAX_TIMELINE,
  needsThreadReply,
  detailFingerprint,
  markDelivered,
  MAX_DELIVERED_IDS,
  type TimelineEntry,
} from '../../src/notify/providers/slack/operation-state.js';
import { ReleaseEvent } from '../../src/api/vocabulary.js';
import { slackTranscript } from '../../src/cli/demo/slack-transcript.js';
import { EVENT_TITLE, PHASE_COLOR, phaseOf, renderOperationMessage, renderThreadReply, titleOf, type Block } from '../../src/notify/providers/slack/render.js';

function notification(overrides: Partial<ReleaseNotification> = {}): ReleaseNotification {
  return {
    id: 'n1',
    operationId: 'uid-1:4:upgrade',
    event: 'UpgradeFailed',
    severity: 'error',
    release: { namespace: 'web', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'web', chart: 'unicorn', labels: {} },
    fromVersion: '2.0.0',
    toVersion: '3.0.0',
    revision: 4,
    cause: 'spec change (generation 4)',
    message: 'Helm upgrade failed: the Deployment was refused',
    errorExcerpt: 'Error: UPGRADE FAILED: Deployment.apps "unicorn" is invalid',
    at: '2026-11-23T06:10:02.000Z',
    ...overrides,
  };
}

const timelineOf = (n: ReleaseNotification): TimelineEntry[] => extendTimeline([], n);

/** Every text string anywhere in the blocks. */
function texts(value: unknown): string[] {
  if (typeof value === 'string') return [];
  if (Array.isArray(value)) return value.flatMap(texts);
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return [...(typeof o.text === 'string' ? [o.text] : []), ...Object.values(o).flatMap(texts)];
  }
  return [];
}

function actionIds(blocks: Block[]): string[] {
  return blocks.filter((b) => b.type === 'actions').flatMap((b) => (b.elements as Array<{ action_id: string }>).map((e) => e.action_id));
}

describe('phase and colour by severity', () => {
  it.each([
    { event: 'UpgradeFailed', severity: 'error', want: 'failed' },
    { event: 'ChartPullFailed', severity: 'error', want: 'failed' },
    { event: 'UpgradeSucceeded', severity: 'info', want: 'succeeded' },
    { event: 'InstallSucceeded', severity: 'info', want: 'succeeded' },
    { event: 'RollbackSucceeded', severity: 'info', want: 'succeeded' },
    { event: 'Suspended', severity: 'info', want: 'info' },
    { event: 'Upgrading', severity: 'info', want: 'in-progress' },
    { event: 'UpgradeStarted', severity: 'info', want: 'in-progress' },
    { event: 'InstallStarted', severity: 'info', want: 'in-progress' },
  ] as const)('$event ($severity) → $want', ({ event, severity, want }) => {
    expect(phaseOf({ event: event as ReleaseNotification['event'], severity })).toBe(want);
    const rendered = renderOperationMessage(notification({ event: event as ReleaseNotification['event'], severity }), []);
    expect(rendered.color).toBe(PHASE_COLOR[want]);
  });
});

it.each(Object.values(ReleaseEvent))('every event has a human title: %s', (event) => {
  expect(EVENT_TITLE[event]).toBeTruthy();
  expect(titleOf(event)).toBe(EVENT_TITLE[event]);
});

describe('renderOperationMessage', () => {
  it.each([
    {
      name: 'upgrade failed',
      given: notification(),
      wantActions: true,
      wantHeading: 'Upgrade failed',
      wantText: 'web/unicorn: Upgrade failed (2.0.0 → 3.0.0)',
    },
    {
      name: 'upgrade succeeded',
      given: notification({ event: 'UpgradeSucceeded', severity: 'info', errorExcerpt: undefined }),
      wantActions: false,
      wantHeading: 'Upgraded',
      wantText: 'web/unicorn: Upgraded (2.0.0 → 3.0.0)',
    },
    {
      name: 'install, no from-version',
      given: notification({ event: 'InstallSucceeded', severity: 'info', fromVersion: undefined, errorExcerpt: undefined }),
      wantActions: false,
      wantHeading: 'Installed',
      wantText: 'web/unicorn: Installed (3.0.0)',
    },
    {
      name: 'chart pull failed',
      given: notification({ event: 'ChartPullFailed', revision: undefined }),
      wantActions: true,
      wantHeading: 'Chart pull failed',
      wantText: 'web/unicorn: Chart pull failed (2.0.0 → 3.0.0)',
    },
  ])('$name', ({ given, wantActions, wantHeading, wantText }) => {
    const rendered = renderOperationMessage(given, timelineOf(given));
    expect(rendered.text).toBe(wantText);
    expect((rendered.blocks[0]!.text as { text: string }).text).toContain(`*${wantHeading}*`);
    expect(actionIds(rendered.blocks)).toEqual(wantActions ? [ReleaseAction.Rollback, ReleaseAction.Suspend, ReleaseAction.History, ReleaseAction.Status] : []);
    expect(checkMessage({ text: rendered.text, attachments: [{ color: rendered.color, blocks: rendered.blocks }] })).toBeUndefined();
  });

  it('failure buttons carry the stable action ids and "namespace/name" of the HelmRelease (not the helm release)', () => {
    const n = notification({ release: { ...notification().release, namespace: 'prod', name: 'frontend', releaseName: 'fe-main', targetNamespace: 'apps' } });
    const actions = renderOperationMessage(n, timelineOf(n)).blocks.find((b) => b.type === 'actions')!;
    const elements = actions.elements as Array<{ action_id: string; value: string; style?: string; confirm?: unknown }>;
    expect(elements.map((e) => [e.action_id, e.value])).toEqual([
      ['release_rollback', 'prod/frontend'],
      ['release_suspend', 'prod/frontend'],
      ['release_history', 'prod/frontend'],
      ['release_status', 'prod/frontend'],
    ]);
    expect(elements[0]!.style).toBe('danger');
    expect(elements[0]!.confirm).toBeDefined();
    expect(parseReleaseActionValue(elements[0]!.value)).toEqual({ namespace: 'prod', name: 'frontend' });
  });

  it('a drift report names the objects and fields and carries one "Correct now" button for the bot', () => {
    const message = '1 object differs from revision 3: Deployment prod/frontend (/spec/template/spec/containers/0/image)';
    const n = notification({
      event: 'DriftDetected',
      operationId: 'uid-1:4:drift:t',
      message,
      errorExcerpt: undefined,
      release: { ...notification().release, namespace: 'prod', name: 'frontend' },
    });
    const rendered = renderOperationMessage(n, timelineOf(n));
    expect(texts(rendered.blocks).join('\n')).toContain('Deployment prod/frontend (/spec/template/spec/containers/0/image)');
    const elements = rendered.blocks.find((b) => b.type === 'actions')!.elements as Array<{ action_id: string; value: string }>;
    expect(elements.map((e) => [e.action_id, e.value])).toEqual([
      [ReleaseAction.Correct, 'prod/frontend'],
      ['release_history', 'prod/frontend'],
    ]);
    const corrected = notification({ event: 'DriftCorrected', severity: 'info', operationId: 'uid-1:4:drift:t', errorExcerpt: undefined });
    expect(renderOperationMessage(corrected, timelineOf(corrected)).blocks.some((b) => b.type === 'actions')).toBe(false);
  });

  it('escapes &, < and > everywhere, so a message cannot mention a channel or hide a link', () => {
    const evil = 'boom <!channel> <@U0ADMIN> <https://evil.example|click> & more';
    const n = notification({ message: evil, errorExcerpt: evil, cause: evil, release: { ...notification().release, chart: '<!here>' } });
    const rendered = renderOperationMessage(n, timelineOf(n));
    const thread = renderThreadReply(n);
    const broadcast = renderThreadReply({ ...n, cluster: evil }, true);
    const all = [rendered.text, ...texts(rendered.blocks), thread.text, ...texts(thread.blocks), broadcast.text, ...texts(broadcast.blocks)];
    for (const text of all) expect(text).not.toMatch(/[<>]/);
    expect(all.join('\n')).toContain('&lt;!channel&gt;');
    expect(all.join('\n')).toContain('&amp; more');
  });

  it('stays within every Slack limit for huge inputs (100k-character messages, long names, a long timeline)', () => {
    const huge = '<&>'.repeat(40_000);
    const n = notification({
      message: huge,
      errorExcerpt: `${'```'}${huge}`,
      cause: huge,
      fromVersion: 'v'.repeat(500),
      toVersion: 'w'.repeat(500),
      release: {
        namespace: 'n'.repeat(63),
        name: 'x'.repeat(253),
        releaseName: 'r'.repeat(53),
        targetNamespace: 't'.repeat(63),
        chart: 'c'.repeat(1000),
        labels: {},
      },
    });
    let timeline: TimelineEntry[] = [];
    for (let i = 0; i < 500; i++) timeline = extendTimeline(timeline, { event: i % 2 ? 'UpgradeFailed' : 'ChartPullFailed', severity: 'error', at: n.at });
    const rendered = renderOperationMessage(n, timeline);
    expect(rendered.blocks.length).toBeLessThanOrEqual(50);
    expect(checkMessage({ text: rendered.text, attachments: [{ color: rendered.color, blocks: rendered.blocks }] })).toBeUndefined();
    const thread = renderThreadReply(n);
    expect(checkMessage({ text: thread.text, blocks: thread.blocks })).toBeUndefined();
    const broadcast = renderThreadReply({ ...n, cluster: 'k'.repeat(500) }, true);
    expect(checkMessage({ text: broadcast.text, blocks: broadcast.blocks })).toBeUndefined();
    for (const text of [...texts(rendered.blocks), ...texts(thread.blocks), ...texts(broadcast.blocks)]) expect(text.length).toBeLessThanOrEqual(3000);
  });

  it('a thread reply also sent to the channel is read there alone: it names the release and its cluster', () => {
    const n = notification({ event: 'UpgradeFailed', severity: 'error', cluster: 'prod-eu' });
    const inThread = renderThreadReply(n);
    const inChannel = renderThreadReply(n, true);
    expect(inThread.text).toBe(`Upgrade failed: ${n.message}`);
    expect(inChannel.text).toMatch(/^web\/unicorn: Upgrade failed( \(.+\))?: Helm upgrade failed: the Deployment was refused$/);
    expect(texts(inChannel.blocks)[0]).toMatch(new RegExp(`\\*Upgrade failed\\* · \\*${n.release.name}\\* in \`${n.release.namespace}\` on \`prod-eu\``));
    expect(texts(inThread.blocks)[0]).not.toContain(n.release.name);
    expect(texts(inThread.blocks).slice(1)).toEqual(texts(inChannel.blocks).slice(1));
  });

  it('the timeline shows repeats folded: "Chart pull failed ×3"', () => {
    let timeline: TimelineEntry[] = [];
    for (let i = 0; i < 3; i++) timeline = extendTimeline(timeline, notification({ event: 'ChartPullFailed' }));
    timeline = extendTimeline(timeline, notification({ event: 'UpgradeSucceeded', severity: 'info' }));
    const context = renderOperationMessage(notification({ event: 'UpgradeSucceeded', severity: 'info' }), timeline).blocks.find((b) => b.type === 'context')!;
    expect(texts(context)[0]).toBe('Chart pull failed ×3 06:10:02 → Upgraded 06:10:02');
  });

  it('an operation moves in place: Upgrading (blue, no buttons) → Upgrade failed (red, buttons)', () => {
    const started = notification({
      event: 'UpgradeStarted' as ReleaseNotification['event'],
      severity: 'info',
      errorExcerpt: undefined,
      message: 'upgrading to 3.0.0',
    });
    const first = renderOperationMessage(started, timelineOf(started));
    expect(first.color).toBe(PHASE_COLOR['in-progress']);
    expect(first.text).toBe('web/unicorn: Upgrading (2.0.0 → 3.0.0)');
    expect(actionIds(first.blocks)).toEqual([]);
    const failed = notification();
    const second = renderOperationMessage(failed, extendTimeline(timelineOf(started), failed));
    expect(second.color).toBe(PHASE_COLOR.failed);
    expect(texts(second.blocks.find((b) => b.type === 'context'))[0]).toBe('Upgrading 06:10:02 → Upgrade failed 06:10:02');
  });

  it('an upgrade that brings approved changes names who proposed and who approved them (issue 35); others do not', () => {
    const n = notification({
      event: 'UpgradeSucceeded',
      severity: 'info',
      proposalId: 'p-1',
      proposedBy: 'helmcrew',
      approvers: ['slack:UANA', 'slack:UBEN', 'kube:<ops>'],
    });
    const fields = texts(renderOperationMessage(n, timelineOf(n)).blocks.find((b) => b.block_id === 'release_fields'));
    expect(fields).toContain('*Approved change*\nproposed by helmcrew, approved by <@UANA>, <@UBEN>, kube:&lt;ops&gt;');
    const auto = notification({ event: 'UpgradeSucceeded', severity: 'info', proposalId: 'p-2', proposedBy: 'helmcrew', approvers: [] });
    expect(texts(renderOperationMessage(auto, timelineOf(auto)).blocks)).toContain('*Approved change*\nproposed by helmcrew, no approval asked');
    const plain = notification({ event: 'UpgradeSucceeded', severity: 'info' });
    expect(texts(renderOperationMessage(plain, timelineOf(plain)).blocks).join('\n')).not.toContain('Approved change');
  });

  it('leaves out empty sections (Slack refuses empty texts)', () => {
    const n = notification({ message: '  ', errorExcerpt: '' });
    const rendered = renderOperationMessage(n, timelineOf(n));
    expect(rendered.blocks.map((b) => b.block_id)).toEqual(['release_heading', 'release_fields', 'release_timeline', 'release_actions']);
    expect(checkMessage({ text: rendered.text, attachments: [{ blocks: rendered.blocks }] })).toBeUndefined();
  });
});

describe('mrkdwn helpers', () => {
  it.each([
    { raw: 'a & b', want: 'a &amp; b' },
    { raw: '<!channel>', want: '&lt;!channel&gt;' },
    { raw: '&amp;', want: '&amp;amp;' },
  ])('escape $raw', ({ raw, want }) => expect(escapeMrkdwn(raw)).toBe(want));

  it.each([
    { name: 'short text untouched', given: 'abc', max: 5, want: 'abc' },
    { name: 'cut with ellipsis', given: 'abcdef', max: 4, want: 'abc…' },
    { name: 'never splits an entity', given: 'ab&amp;cd', max: 6, want: 'ab…' },
    { name: 'never splits a surrogate pair', given: 'ab😀cd', max: 4, want: 'ab…' },
  ])('truncateEscaped: $name', ({ given, max, want }) => {
    const out = truncateEscaped(given, max);
    expect(out).toBe(want);
    expect(out.length).toBeLessThanOrEqual(max);
  });

  it('a ``` inside an error excerpt cannot close the code block', () => {
    const block = codeBlock('before ``` *bold* ``` after', 100);
    expect(block.startsWith('```')).toBe(true);
    expect(block.slice(3, -3)).not.toContain('```');
  });
});

describe('operation state decisions', () => {
  it('repeats fold into a count; the timeline is bounded and keeps its first entry', () => {
    let timeline: TimelineEntry[] = [];
    timeline = extendTimeline(timeline, { event: 'Upgrading' as never, severity: 'info', at: 't0' });
    for (let i = 0; i < 30; i++)
      timeline = extendTimeline(timeline, { event: i % 2 ? 'ChartPullFailed' : 'DependencyNotReady', severity: 'error', at: `t${i + 1}` });
    expect(timeline).toHaveLength(MAX_TIMELINE);
    expect(timeline[0]!.event).toBe('Upgrading');
    expect(timeline.at(-1)!.at).toBe('t30');
    expect(
      extendTimeline([{ event: 'ChartPullFailed', severity: 'error', at: 't', count: 2 }], { event: 'ChartPullFailed', severity: 'error', at: 'u' }),
    ).toEqual([{ event: 'ChartPullFailed', severity: 'error', at: 't', count: 3 }]);
  });

  it.each([
    { name: 'nothing posted yet', last: undefined, given: notification(), want: true },
    { name: 'same detail again', last: detailFingerprint(notification()), given: notification({ id: 'n2' }), want: false },
    { name: 'new message', last: detailFingerprint(notification()), given: notification({ message: 'other' }), want: true },
    { name: 'new event', last: detailFingerprint(notification()), given: notification({ event: 'RollbackSucceeded' }), want: true },
  ])('thread reply due: $name → $want', ({ last, given, want }) => {
    expect(needsThreadReply(last === undefined ? undefined : { lastDetail: last }, given)).toBe(want);
  });

  it('delivered ids are bounded and deduplicated', () => {
    let ids: string[] = [];
    for (let i = 0; i < 100; i++) ids = markDelivered(ids, `n${i % 60}`);
    expect(ids).toHaveLength(MAX_DELIVERED_IDS);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.at(-1)).toBe('n39');
  });
});

describe('slackTranscript (the demo prints what the fake Slack recorded)', () => {
  it('one line per message with its outcome, edits and buttons; thread replies under it', () => {
    const failed = notification({ message: 'upgrade failed: <bad> & worse' });
    const rendered = renderOperationMessage(failed, timelineOf(failed));
    const message = {
      channel: 'C1',
      ts: '1.000001',
      author: 'B0',
      text: rendered.text,
      attachments: [{ color: rendered.color, blocks: rendered.blocks }],
      edits: [{ text: 'before' }],
    };
    const reply = { channel: 'C1', ts: '1.000002', author: 'B0', text: renderThreadReply(failed).text, threadTs: '1.000001', edits: [] };
    const broadcast = { ...reply, ts: '1.000003', text: renderThreadReply(failed, true).text, broadcast: true };
    expect(slackTranscript('releases', [message], (ts) => (ts === '1.000001' ? [reply, broadcast] : []))).toEqual([
      '#releases: 1 message',
      '  ✘ web/unicorn: Upgrade failed (2.0.0 → 3.0.0) (edited 1×)  [Roll back] [Suspend] [History] [Status]',
      '      ↳ Upgrade failed: upgrade failed: <bad> & worse',
      '      ↳ (also sent to the channel) web/unicorn: Upgrade failed (2.0.0 → 3.0.0): upgrade failed: <bad> & worse',
    ]);
  });

  it('the chat channel: ephemeral plans and confirmations in their place among the messages, multi-line text kept under its first line', () => {
    const planBlocks = [
      { type: 'section', text: { type: 'mrkdwn', text: '*Plan*' } },
      {
        type: 'actions',
        elements: [
          { type: 'button', action_id: 'release_confirm', text: { type: 'plain_text', text: 'Confirm' } },
          { type: 'button', action_id: 'release_cancel', text: { type: 'plain_text', text: 'Cancel' } },
        ],
      },
    ];
    const plan = { channel: 'C9', user: 'U0ALICE', text: 'Plan: roll back web/unicorn: revision 5 → 2', blocks: planBlocks, messageTs: '1.000001' };
    const confirmed = { channel: 'C9', user: 'U0ALICE', text: 'Confirmed: roll back web/unicorn', messageTs: '1.000002' };
    const audit = {
      channel: 'C9',
      ts: '1.000003',
      author: 'B0',
      text: '<@U0ALICE> roll back web/unicorn — _green &amp; broken_\n:white_check_mark: Rolled back',
      edits: [{ text: 'a' }, { text: 'b' }],
    };
    const later = { channel: 'C9', user: 'U0ALICE', text: 'Plan: resume web/unicorn', messageTs: '1.000004' };
    expect(slackTranscript('incident', [audit], () => [], [later, confirmed, plan])).toEqual([
      '#incident: 1 message and 3 seen by one person only',
      '  (only <@U0ALICE> sees) Plan: roll back web/unicorn: revision 5 → 2  [Confirm] [Cancel]',
      '  (only <@U0ALICE> sees) Confirmed: roll back web/unicorn',
      '  • <@U0ALICE> roll back web/unicorn — _green & broken_\n    :white_check_mark: Rolled back (edited 2×)',
      '  (only <@U0ALICE> sees) Plan: resume web/unicorn',
    ]);
  });
});

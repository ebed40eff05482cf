import { describe, expect, it } from 'vitest';
import { codeMessage, planLine, planMessage } from '../../src/bot/slack/blocks.js';
import { actionLabel, isOurActionId, PlanAction, RELEASE_ACTION_IDS, ReleaseAction, releaseActionVerb } from '../../src/core/slack/action-ids.js';
import { unknownActionMessage, unknownCommandMessage } from '../../src/bot/slack/unknown-requests.js';
import { codeBlock, escapeMrkdwn, truncateEscaped } from '../../src/core/slack/mrkdwn.js';

/** The Slack contract (core/slack) and the bot's messages built on it: ids and escaping written once. */

const sectionText = (block: unknown) => (block as { text: { text: string } }).text.text;
/** An `&` followed by up to three letters and no `;`: an entity cut in half. */
const HALF_ENTITY = /&[a-z]{0,3}(?![a-z;])/;

describe('button ids', () => {
  it('a release button stands for its verb; a plan button and a stranger do not', () => {
    expect(RELEASE_ACTION_IDS.map(releaseActionVerb)).toEqual(['rollback', 'suspend', 'resume', 'history', 'status', 'correct']);
    expect(releaseActionVerb(PlanAction.Confirm)).toBeUndefined();
    expect(releaseActionVerb('release_drop')).toBeUndefined();
  });

  it.each([
    { id: PlanAction.Confirm, want: 'confirm' },
    { id: PlanAction.Approve, want: 'approve' },
    { id: ReleaseAction.Correct, want: 'correct' },
    { id: 'release_something_new', want: undefined },
  ])('label of $id', ({ id, want }) => expect(actionLabel(id)).toBe(want));

  it('only our ids are ours, whatever type a payload gives the id', () => {
    expect([PlanAction.Cancel, ReleaseAction.Status].map(isOurActionId)).toEqual([true, true]);
    expect(['release_promote', '', 42, null, undefined, ['release_confirm'], { id: 'release_confirm' }].map(isOurActionId)).toEqual(Array(7).fill(false));
  });

  it('the answers to what this version does not handle quote the name, escaped and cut', () => {
    expect(unknownActionMessage('release_promote').text).toMatch(/^This control \(`release_promote`\) is not one this version of helmcrew handles/);
    expect(unknownActionMessage(42).text).toContain('(`42`)');
    expect(unknownActionMessage(undefined).text).toContain('(`undefined`)');
    const long = unknownCommandMessage(`/<${'x'.repeat(5000)}>`);
    expect(long.response_type).toBe('ephemeral');
    expect(long.text).toMatch(/^helmcrew answers \/release only, not `\/&lt;x{58}…`\./);
  });

  it('the bot plan buttons carry the plan ids', () => {
    const plan = { title: 'suspend a/b', lines: [], warnings: [], doable: true };
    const actions = planMessage(plan, 'p1', false).blocks!.find((b) => (b as { type: string }).type === 'actions') as {
      elements: Array<{ action_id: string }>;
    };
    expect(actions.elements.map((e) => e.action_id)).toEqual([PlanAction.Confirm, PlanAction.Cancel]);
  });
});

describe('plan lines', () => {
  it.each([
    { line: 'objects: 1 changed', want: '• objects: 1 changed' },
    { line: '~ ConfigMap web/page', want: '• ~ ConfigMap web/page' },
    { line: '  data["index.html"]: <b>pink</b> → <b>blue</b>', want: '\u2003data["index.html"]: &lt;b&gt;pink&lt;/b&gt; → &lt;b&gt;blue&lt;/b&gt;' },
    { line: '    line 6: a → b', want: '\u2003\u2003line 6: a → b' },
  ])('$line', ({ line, want }) => expect(planLine(line)).toBe(want));
});

describe('mrkdwn edge cases', () => {
  it('truncation after escaping never leaves half an entity', () => {
    for (let max = 2; max < 12; max++) expect(truncateEscaped(escapeMrkdwn('ab & <c> d'), max)).not.toMatch(HALF_ENTITY);
  });

  it('a code block stays one block whatever the text holds', () => {
    expect(codeBlock('x ``` <!channel>', 100)).toBe("```x ''' &lt;!channel&gt;```");
  });
});

describe('the bot messages use the contract', () => {
  it('a query answer with ``` in it cannot close its code block early', () => {
    const { text } = codeMessage('/release status', 'reason: see ```*bold*``` here');
    const body = text.slice(text.indexOf('```') + 3, -3);
    expect(text.endsWith('```')).toBe(true);
    expect(body).not.toContain('```');
  });

  it('a long query answer is cut after escaping without cutting an entity', () => {
    for (let pad = 2790; pad < 2806; pad++) {
      const { text } = codeMessage('/release history', `${'x'.repeat(pad)}&&&&&&&&&&&&&&`);
      expect(text.length).toBeLessThanOrEqual(3000);
      expect(text.slice(0, -3)).not.toMatch(HALF_ENTITY);
    }
  });

  it("a long object diff in a plan's thread is cut without cutting an entity", () => {
    for (let pad = 2825; pad < 2860; pad++) {
      const plan = { title: 't', lines: [], warnings: [], doable: true, more: [`${'y'.repeat(pad)} &&&&&& <c> ${'z'.repeat(100)}`] };
      const more = sectionText(planMessage(plan, undefined, false).blocks![1]);
      expect(more.length).toBeLessThanOrEqual(2900);
      expect(more).not.toMatch(HALF_ENTITY);
      expect(more).toMatch(/shows all\)$/);
    }
  });
});

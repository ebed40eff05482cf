import { describe, expect, it } from 'vitest';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';
import { outcomeDm, tellRequester } from '../../../src/bot/slack/requester-dm.js';

const text = (m: { blocks?: unknown[] }) => (m.blocks![0] as { text: { text: string } }).text.text;

describe('the requester’s direct message', () => {
  it.each([
    {
      name: 'done, with the link',
      outcomes: [{ done: true, succeeded: true, message: 'web/unicorn: rolled back to revision 1' }],
      permalink: 'https://t.slack.com/archives/C1/p123',
      want: ":white_check_mark: done: Roll back web/unicorn\n• web/unicorn: rolled back to revision 1\nSee <https://t.slack.com/archives/C1/p123|the channel's message>.",
    },
    {
      name: 'failed, no link',
      outcomes: [{ done: true, succeeded: false, message: 'web/unicorn: <b> failed' }],
      permalink: undefined,
      want: ':x: not done: Roll back web/unicorn\n• web/unicorn: &lt;b&gt; failed',
    },
    {
      name: 'no report in time; a link that is not Slack’s is left out',
      outcomes: [{ done: false, succeeded: false, message: 'web/unicorn: waiting' }],
      permalink: 'javascript:alert(1)',
      want: ':hourglass: no report yet: Roll back web/unicorn\n• web/unicorn: waiting',
    },
  ])('$name', ({ outcomes, permalink, want }) => {
    expect(text(outcomeDm('Roll back web/unicorn', outcomes, permalink))).toBe(want);
  });

  it('is not sent to whoever turned it off, and a failure is only logged', async () => {
    const sent: string[] = [];
    const warned: string[] = [];
    const deps = (wants: boolean, fail = false) => ({
      direct: {
        permalink: async () => 'https://t.slack.com/archives/C1/p1',
        send: async (user: string) => {
          if (fail) throw new Error('channel_not_found');
          sent.push(user);
        },
      },
      preferences: { wantsDm: async () => wants },
      log: { warn: (_: unknown, m: string) => void warned.push(m) } as never,
    });
    const outcomes = [{ done: true, succeeded: true, message: 'ok' }];
    await tellRequester(deps(true), 'U1', { channel: 'C1', ts: '1.1' }, 'x', outcomes);
    await tellRequester(deps(false), 'U2', { channel: 'C1', ts: '1.1' }, 'x', outcomes);
    await tellRequester(deps(true, true), 'U3', { channel: 'C1', ts: '1.1' }, 'x', outcomes);
    expect(sent).toEqual(['U1']);
    expect(warned).toEqual(['could not tell the requester directly']);
  });

  it.each([
    { line: 'notify off', want: { ok: true, command: { verb: 'notify', setting: 'off' } } },
    { line: 'notify ON', want: { ok: true, command: { verb: 'notify', setting: 'on' } } },
  ])('parses $line', ({ line, want }) => {
    expect(parseReleaseCommand(line)).toEqual(want);
  });

  it('refuses a setting that is not on or off', () => {
    const parsed = parseReleaseCommand('notify maybe');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error.message).toContain('"maybe" is not "on" or "off"');
    expect(parseReleaseCommand('notify').ok).toBe(false);
  });
});

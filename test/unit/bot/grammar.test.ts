import { describe, expect, it } from 'vitest';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';
import { editDistance } from '../../../src/session/grammar/suggest.js';
import { freezeEndsAt } from '../../../src/session/grammar/flags.js';
import { matching, objectWith } from './matchers.js';

type Row = { name: string; input: string; want: object };
const ok = (command: object) => ({ ok: true, command });
const err = (code: string, extra: object = {}) => ({ ok: false, error: objectWith({ code, ...extra }) });
const unicorn = { name: 'unicorn' };

describe('parseReleaseCommand', () => {
  it.each<Row>([
    // every verb, plainly
    { name: 'help', input: 'help', want: ok({ verb: 'help' }) },
    { name: 'help on a verb', input: 'help rollback', want: ok({ verb: 'help', topic: 'rollback' }) },
    { name: 'whoami', input: 'whoami', want: ok({ verb: 'whoami' }) },
    { name: 'list everything', input: 'list', want: ok({ verb: 'list' }) },
    { name: 'list a namespace', input: 'list web', want: ok({ verb: 'list', namespace: 'web' }) },
    { name: 'status by bare name', input: 'status unicorn', want: ok({ verb: 'status', release: unicorn }) },
    { name: 'status namespace/name', input: 'status web/unicorn', want: ok({ verb: 'status', release: { namespace: 'web', name: 'unicorn' } }) },
    { name: 'history', input: 'history web/unicorn', want: ok({ verb: 'history', release: { namespace: 'web', name: 'unicorn' } }) },
    { name: 'diff against spec', input: 'diff unicorn', want: ok({ verb: 'diff', release: unicorn }) },
    { name: 'diff against a version', input: 'diff unicorn 3.0.0', want: ok({ verb: 'diff', release: unicorn, version: '3.0.0' }) },
    { name: 'suspend without reason', input: 'suspend unicorn', want: ok({ verb: 'suspend', release: unicorn }) },
    {
      name: 'suspend with an unquoted reason',
      input: 'suspend unicorn --reason db is down',
      want: ok({ verb: 'suspend', release: unicorn, reason: 'db is down' }),
    },
    {
      name: 'suspend with a quoted reason',
      input: 'suspend unicorn --reason "db is down"',
      want: ok({ verb: 'suspend', release: unicorn, reason: 'db is down' }),
    },
    { name: 'reason with =', input: 'suspend unicorn --reason=incident-42', want: ok({ verb: 'suspend', release: unicorn, reason: 'incident-42' }) },
    {
      name: 'an apostrophe inside a word is not a quote',
      input: "suspend unicorn --reason it's on fire",
      want: ok({ verb: 'suspend', release: unicorn, reason: "it's on fire" }),
    },
    { name: 'resume', input: 'resume web/unicorn', want: ok({ verb: 'resume', release: { namespace: 'web', name: 'unicorn' } }) },
    {
      name: 'correct drift',
      input: 'correct web/unicorn --reason hotfix reverted',
      want: ok({ verb: 'correct', release: { namespace: 'web', name: 'unicorn' }, reason: 'hotfix reverted' }),
    },
    { name: 'upgrade to a version', input: 'upgrade unicorn 3.0.0', want: ok({ verb: 'upgrade', release: unicorn, version: '3.0.0' }) },
    { name: 'upgrade to a range', input: 'upgrade unicorn 3.x', want: ok({ verb: 'upgrade', release: unicorn, version: '3.x' }) },
    { name: 'rollback to previous', input: 'rollback unicorn', want: ok({ verb: 'rollback', release: unicorn }) },
    { name: 'rollback to a revision', input: 'rollback unicorn to 2', want: ok({ verb: 'rollback', release: unicorn, revision: 2 }) },
    { name: 'rollback without "to"', input: 'rollback unicorn 2', want: ok({ verb: 'rollback', release: unicorn, revision: 2 }) },
    {
      name: 'rollback with a reason',
      input: 'rollback web/unicorn to 2 --reason "bad deploy"',
      want: ok({ verb: 'rollback', release: { namespace: 'web', name: 'unicorn' }, revision: 2, reason: 'bad deploy' }),
    },
    {
      name: 'freeze a namespace',
      input: 'freeze web --reason release freeze for the sale',
      want: ok({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'release freeze for the sale' }),
    },
    { name: 'freeze all', input: 'freeze all --reason "incident 7"', want: ok({ verb: 'freeze', scope: { kind: 'all' }, reason: 'incident 7' }) },
    { name: 'unfreeze a freeze by name', input: 'unfreeze web-7f3a', want: ok({ verb: 'unfreeze', name: 'web-7f3a' }) },
    { name: 'list the freezes', input: 'freezes', want: ok({ verb: 'freezes' }) },
    {
      name: 'freeze for 2h (the reason stops at the next option)',
      input: 'freeze prod --reason "INC-4242" --for 2h',
      want: ok({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'prod' }, reason: 'INC-4242', end: { kind: 'for', text: '2h', ms: 7_200_000 } }),
    },
    {
      name: 'freeze a Team until 18:00, reason last and unquoted',
      input: 'freeze team:frontend --until 18:00 --reason sale starts soon',
      want: ok({ verb: 'freeze', scope: { kind: 'team', team: 'frontend' }, reason: 'sale starts soon', end: { kind: 'until', text: '18:00' } }),
    },
    {
      name: 'a recurring window: --for is each window, --warn ahead of each',
      input: 'freeze prod --window "0 18 * * FRI" --for 64h --warn 30m --reason weekend',
      want: ok({
        verb: 'freeze',
        scope: { kind: 'namespace', namespace: 'prod' },
        reason: 'weekend',
        window: { schedule: '0 18 * * FRI', duration: '64h', warn: { text: '30m', ms: 1_800_000 } },
      }),
    },
    {
      name: 'a window with seconds (6 fields), no warning',
      input: 'freeze prod --reason drill --window "*/30 * * * * *" --for 12s',
      want: ok({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'prod' }, reason: 'drill', window: { schedule: '*/30 * * * * *', duration: '12s' } }),
    },
    {
      name: 'freeze a chart until a full time',
      input: 'freeze chart:postgres --reason migration --until=2026-11-27T18:00:00Z',
      want: ok({ verb: 'freeze', scope: { kind: 'chart', chart: 'postgres' }, reason: 'migration', end: { kind: 'until', text: '2026-11-27T18:00:00Z' } }),
    },
    {
      name: 'upgrade through a freeze',
      input: 'upgrade web/unicorn 3.0.0 --break-glass --reason hotfix for INC-4242',
      want: ok({ verb: 'upgrade', release: { namespace: 'web', name: 'unicorn' }, version: '3.0.0', reason: 'hotfix for INC-4242', breakGlass: true }),
    },

    // spacing and case
    { name: 'extra spaces everywhere', input: '   rollback    unicorn   to    2   ', want: ok({ verb: 'rollback', release: unicorn, revision: 2 }) },
    { name: 'tabs', input: 'status\tunicorn', want: ok({ verb: 'status', release: unicorn }) },
    { name: 'upper case verb and name', input: 'ROLLBACK Unicorn', want: ok({ verb: 'rollback', release: unicorn }) },

    // unicode from phones and paste
    {
      name: 'smart double quotes',
      input: 'suspend unicorn --reason \u201Cdb is down\u201D',
      want: ok({ verb: 'suspend', release: unicorn, reason: 'db is down' }),
    },
    {
      name: 'smart single quotes',
      input: 'freeze web --reason \u2018big sale\u2019',
      want: ok({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'big sale' }),
    },
    { name: 'non-breaking spaces', input: 'rollback\u00A0unicorn\u202Fto\u00A02', want: ok({ verb: 'rollback', release: unicorn, revision: 2 }) },
    { name: 'zero-width space inside a name', input: 'status uni\u200Bcorn', want: ok({ verb: 'status', release: unicorn }) },
    { name: 'em dash where -- was typed', input: 'suspend unicorn \u2014reason oops', want: ok({ verb: 'suspend', release: unicorn, reason: 'oops' }) },
    { name: 'fullwidth letters (NFKC)', input: '\uFF53\uFF54\uFF41\uFF54\uFF55\uFF53 unicorn', want: ok({ verb: 'status', release: unicorn }) },
    { name: 'a non-ASCII release name', input: 'status ünicorn', want: err('invalid-release') },

    // typos: did you mean …
    { name: 'rolback', input: 'rolback unicorn', want: err('unknown-verb', { suggestion: 'rollback' }) },
    { name: 'stauts (transposed)', input: 'stauts unicorn', want: err('unknown-verb', { suggestion: 'status' }) },
    { name: 'suspnd', input: 'suspnd unicorn', want: err('unknown-verb', { suggestion: 'suspend' }) },
    { name: 'unfrezee', input: 'unfrezee web', want: err('unknown-verb', { suggestion: 'unfreeze' }) },
    { name: 'lst', input: 'lst', want: err('unknown-verb', { suggestion: 'list' }) },
    {
      name: 'a word too far from any verb',
      input: 'deploy unicorn',
      want: { ok: false, error: { code: 'unknown-verb', message: matching(/the commands are help, whoami/) } },
    },
    { name: 'misspelt flag', input: 'suspend unicorn --reasn oops', want: err('unknown-flag', { suggestion: '--reason' }) },
    { name: 'help on a misspelt verb', input: 'help rolback', want: err('unknown-verb', { suggestion: 'rollback' }) },

    // missing and extra arguments
    { name: 'empty', input: '', want: err('empty') },
    { name: 'only spaces', input: '   \u00A0 ', want: err('empty') },
    { name: 'status without a release', input: 'status', want: err('missing-argument') },
    { name: 'upgrade without a version', input: 'upgrade unicorn', want: err('missing-argument') },
    { name: 'rollback to nothing', input: 'rollback unicorn to', want: err('missing-argument') },
    { name: 'freeze without a reason', input: 'freeze web', want: err('missing-argument') },
    { name: 'freeze with an empty reason', input: 'freeze web --reason', want: err('invalid-reason') },
    { name: 'freeze with an empty reason before --for', input: 'freeze web --reason --for 2h', want: err('invalid-reason') },
    { name: 'freeze for no time', input: 'freeze web --reason x --for 0s', want: err('invalid-freeze-end') },
    {
      name: 'a window with no length',
      input: 'freeze web --reason x --window "0 18 * * FRI"',
      want: err('invalid-window', { message: expect.stringMatching(/needs --for/) }),
    },
    { name: 'a window until a time', input: 'freeze web --reason x --window "0 18 * * FRI" --until 18:00', want: err('invalid-window') },
    {
      name: 'a window too short',
      input: 'freeze web --reason x --window "0 18 * * FRI" --for 5s',
      want: err('invalid-window', { message: expect.stringMatching(/at least 10s/) }),
    },
    {
      name: 'a window that is no cron',
      input: 'freeze web --reason x --window "at six" --for 1h',
      want: err('invalid-window', { message: expect.stringMatching(/window "at six"/) }),
    },
    {
      name: 'a warning with no window',
      input: 'freeze web --reason x --for 1h --warn 5m',
      want: err('invalid-window', { message: expect.stringMatching(/give it with --window/) }),
    },
    { name: 'a warning that is no duration', input: 'freeze web --reason x --window "0 18 * * FRI" --for 1h --warn soon', want: err('invalid-window') },
    { name: 'a window on another verb', input: 'suspend web/unicorn --window "0 18 * * FRI" --for 1h', want: err('unexpected-argument') },
    { name: 'freeze for a month and more', input: 'freeze web --reason x --for 745h', want: err('invalid-freeze-end') },
    { name: 'freeze for a word', input: 'freeze web --reason x --for ever', want: err('invalid-freeze-end') },
    { name: 'freeze until 25:00', input: 'freeze web --reason x --until 25:00', want: err('invalid-freeze-end') },
    { name: 'freeze --for and --until', input: 'freeze web --reason x --for 1h --until 18:00', want: err('invalid-freeze-end') },
    { name: '--for without a value', input: 'freeze web --reason x --for', want: err('invalid-freeze-end') },
    { name: 'an unknown scope kind', input: 'freeze group:x --reason y', want: err('invalid-scope') },
    { name: 'suspend takes no --for', input: 'suspend unicorn --for 2h', want: err('unexpected-argument') },
    { name: 'freeze takes no --break-glass', input: 'freeze web --reason x --break-glass', want: err('unexpected-argument') },
    { name: 'unfreeze needs a name', input: 'unfreeze', want: err('missing-argument') },
    { name: 'unfreeze of a bad name', input: 'unfreeze Web_1!', want: err('invalid-freeze-name') },
    { name: 'status takes one release', input: 'status unicorn dragon', want: err('unexpected-argument') },
    { name: 'status takes no reason', input: 'status unicorn --reason why', want: err('unexpected-argument') },
    { name: 'bad revision', input: 'rollback unicorn to two', want: err('invalid-revision') },
    { name: 'revision zero', input: 'rollback unicorn to 0', want: err('invalid-revision') },
    { name: 'bad version', input: 'upgrade unicorn latest', want: err('invalid-version') },
    { name: 'unterminated quote', input: 'suspend unicorn --reason "db is down', want: err('unterminated-quote') },
    { name: 'four-part release', input: 'status a/b/c/d', want: err('invalid-release') },
    { name: 'namespace too long', input: `list ${'a'.repeat(64)}`, want: err('invalid-namespace') },

    // injection attempts: words are data and must be valid names
    { name: 'shell command substitution', input: 'status $(rm -rf /)', want: err('invalid-release') },
    { name: 'shell separator', input: 'status unicorn;reboot', want: err('invalid-release') },
    { name: 'pipe in a version', input: 'upgrade unicorn 1.0.0|sh', want: err('invalid-version') },
    { name: 'backticks', input: 'rollback `id`', want: err('invalid-release') },
    { name: 'path traversal', input: 'status ../../etc/passwd', want: err('invalid-release') },
    { name: 'flag injection into helm', input: 'upgrade unicorn --post-renderer=/bin/sh', want: err('unknown-flag') },
    { name: 'a Slack user mention as release', input: 'rollback <@U0123ABC>', want: err('invalid-release') },
    { name: 'a channel broadcast as release', input: 'suspend <!channel>', want: err('invalid-release') },
    {
      name: 'a mention in the reason stays text (escaped when shown)',
      input: 'suspend unicorn --reason <!channel> look',
      want: ok({ verb: 'suspend', release: unicorn, reason: '<!channel> look' }),
    },
    { name: 'a newline smuggling a second command', input: 'status unicorn\nrollback unicorn', want: err('unexpected-argument') },
    {
      name: 'a newline inside the reason becomes a space',
      input: 'suspend unicorn --reason line one\nline two',
      want: ok({ verb: 'suspend', release: unicorn, reason: 'line one line two' }),
    },
    { name: 'control characters are dropped', input: 'status uni\u0007corn', want: ok({ verb: 'status', release: unicorn }) },
    { name: 'very long input', input: `status ${'a'.repeat(5000)}`, want: err('too-long') },
    { name: 'a reason that is too long', input: `suspend unicorn --reason ${'x'.repeat(600)}`, want: err('invalid-reason') },
    { name: 'a quoted verb is not a verb', input: '"status" unicorn', want: err('unknown-verb') },
  ])('$name', ({ input, want }) => {
    expect(parseReleaseCommand(input)).toEqual(want);
  });

  it('every error has a message a person can act on', () => {
    const result = parseReleaseCommand('rolback unicorn');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toBe('unknown command "rolback" — did you mean "rollback"?');
  });
});

describe('editDistance', () => {
  it.each([
    { a: 'rollback', b: 'rollback', want: 0 },
    { a: 'rolback', b: 'rollback', want: 1 },
    { a: 'stauts', b: 'status', want: 1 },
    { a: 'list', b: 'lsit', want: 1 },
    { a: 'freeze', b: 'unfreeze', want: 2 },
    { a: '', b: 'help', want: 4 },
  ])('$a ↔ $b = $want', ({ a, b, want }) => {
    expect(editDistance(a, b)).toBe(want);
  });
});

describe('when a freeze asked for from chat ends', () => {
  it.each([
    { name: '--for 2h', end: { kind: 'for' as const, text: '2h', ms: 7_200_000 }, now: '2026-11-25T10:00:00Z', zone: 'UTC', want: '2026-11-25T12:00:00.000Z' },
    {
      name: '--until 18:00 later today (UTC)',
      end: { kind: 'until' as const, text: '18:00' },
      now: '2026-11-25T10:00:00Z',
      zone: 'UTC',
      want: '2026-11-25T18:00:00.000Z',
    },
    {
      name: '--until 09:00 is tomorrow when past',
      end: { kind: 'until' as const, text: '09:00' },
      now: '2026-11-25T10:00:00Z',
      zone: 'UTC',
      want: '2026-11-26T09:00:00.000Z',
    },
    {
      name: 'Berlin summer time',
      end: { kind: 'until' as const, text: '18:00' },
      now: '2026-10-24T12:00:00Z',
      zone: 'Europe/Berlin',
      want: '2026-10-24T16:00:00.000Z',
    },
    {
      name: 'Berlin, the day the clocks go back',
      end: { kind: 'until' as const, text: '18:00' },
      now: '2026-10-25T12:00:00Z',
      zone: 'Europe/Berlin',
      want: '2026-10-25T17:00:00.000Z',
    },
    {
      name: 'a full time is taken as written',
      end: { kind: 'until' as const, text: '2026-11-27T18:00:00+01:00' },
      now: '2026-11-25T10:00:00Z',
      zone: 'Europe/Berlin',
      want: '2026-11-27T17:00:00.000Z',
    },
  ])('$name', ({ end, now, zone, want }) => {
    expect(freezeEndsAt(end, new Date(now), zone).toISOString()).toBe(want);
  });
});

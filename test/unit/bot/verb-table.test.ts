import { describe, expect, it } from 'vitest';
import { MUTATING_VERBS, RELEASE_VERBS, TEAM_VERBS, mutatingVerbsOf, teamVerbsOf, type VerbRow } from '../../../src/api/release-verbs.js';
import { Verb as TeamVerbSchema } from '../../../src/api/team.js';
import { verbParser } from '../../../src/bot/grammar/parse.js';
import { renderHelp } from '../../../src/bot/render/text.js';

/**
 * The verb table (src/api/release-verbs.ts) is the one list: the parser, the help, which verbs
 * change something and the Team API's enum follow from its rows. A table with one more row (a
 * `test` verb the controller does not support yet) shows what adding a verb takes.
 */

const TEST_ROW: VerbRow = {
  args: [{ field: 'release', kind: 'release' }],
  reason: 'optional',
  flags: [],
  usage: 'test <release> [--reason …]   (run the chart’s helm tests now)',
  mutating: true,
  teamVerb: true,
  requestIdPrefix: 'ts',
};
const withTest: Readonly<Record<string, VerbRow>> = { ...RELEASE_VERBS, test: TEST_ROW };
const parse = verbParser(withTest);

describe('one more row in the verb table', () => {
  it.each([
    {
      input: 'test web/unicorn --reason smoke',
      want: { ok: true, command: { verb: 'test', release: { namespace: 'web', name: 'unicorn' }, reason: 'smoke' } },
    },
    { input: 'test unicorn', want: { ok: true, command: { verb: 'test', release: { name: 'unicorn' } } } },
    { input: 'test', want: { ok: false, error: { code: 'missing-argument', message: expect.stringContaining('usage: test <release>') } } },
    { input: 'test unicorn --for 2h', want: { ok: false, error: { code: 'unexpected-argument', message: expect.stringContaining('test takes no --for') } } },
    { input: 'tset unicorn', want: { ok: false, error: expect.objectContaining({ code: 'unknown-verb', suggestion: 'test' }) } },
    { input: 'help test', want: { ok: true, command: { verb: 'help', topic: 'test' } } },
  ])('parses "$input"', ({ input, want }) => expect(parse(input)).toEqual(want));

  it('shows in the help, counts as mutating and as a Team verb', () => {
    expect(renderHelp(undefined, withTest).split('\n').at(-1)).toBe(`  ${TEST_ROW.usage}`);
    expect(renderHelp('test', withTest)).toBe(`usage: ${TEST_ROW.usage}`);
    expect(mutatingVerbsOf(withTest)).toEqual([...MUTATING_VERBS, 'test']);
    expect(teamVerbsOf(withTest)).toEqual([...TEAM_VERBS, 'test']);
  });

  it('the real table parses no such verb', () => {
    expect(verbParser(RELEASE_VERBS)('test unicorn')).toMatchObject({ ok: false, error: { code: 'unknown-verb' } });
  });
});

describe('the real table gives the lists that were kept by hand', () => {
  it('mutating verbs', () => {
    expect(MUTATING_VERBS).toEqual(['suspend', 'resume', 'upgrade', 'rollback', 'correct', 'retry', 'freeze', 'unfreeze']);
  });

  it("the Team API's verb enum (the CRD's schema)", () => {
    expect((TeamVerbSchema as unknown as { enum: string[] }).enum).toEqual([
      'list',
      'status',
      'history',
      'diff',
      'suspend',
      'resume',
      'upgrade',
      'rollback',
      'correct',
      'retry',
      'freeze',
      'unfreeze',
      'freeze-all',
    ]);
  });

  it('request-id prefixes', () => {
    const prefixes = Object.fromEntries(
      Object.entries(RELEASE_VERBS as Readonly<Record<string, VerbRow>>).flatMap(([verb, row]) => (row.requestIdPrefix ? [[verb, row.requestIdPrefix]] : [])),
    );
    expect(prefixes).toEqual({ rollback: 'rb', correct: 'dc', retry: 'rt' });
  });

  it('the help lists every verb in the order it did', () => {
    expect(
      renderHelp()
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(' ')[0]),
    ).toEqual([
      'help',
      'whoami',
      'list',
      'status',
      'history',
      'diff',
      'suspend',
      'resume',
      'upgrade',
      'rollback',
      'correct',
      'retry',
      'freeze',
      'freezes',
      'unfreeze',
      'notify',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  MUTATING_VERBS,
  RELEASE_ACTION_VERBS,
  RELEASE_VERBS,
  TEAM_VERBS,
  mutatingVerbsOf,
  releaseActionVerbsOf,
  teamVerbsOf,
  type VerbRow,
} from '../../../src/api/release-verbs.js';
import { COMMAND_VERBS, intentPatchProblem } from '../../../src/core/fleet/signed-command.js';
import { RELEASE_VERB_HANDLERS } from '../../../src/session/verbs/handlers.js';
import { intentPatch } from '../../../src/session/verbs/intent-of.js';
import { Verb as TeamVerbSchema } from '../../../src/api/team.js';
import { verbParser } from '../../../src/session/grammar/parse.js';
import { renderHelp } from '../../../src/session/render/text.js';

/**
 * The verb table (src/api/release-verbs.ts) is the one list: the parser, the help, which verbs
 * change something and the Team API's enum follow from its rows. A table with one more row (a
 * `probe` verb the controller does not support) shows what adding a verb takes; `test` was added so.
 */

const PROBE_ROW: VerbRow = {
  args: [{ field: 'release', kind: 'release' }],
  reason: 'optional',
  flags: [],
  usage: 'probe <release> [--reason …]   (look at it closely now)',
  mutating: true,
  teamVerb: true,
  requestIdPrefix: 'pb',
};
const withProbe: Readonly<Record<string, VerbRow>> = { ...RELEASE_VERBS, probe: PROBE_ROW };
const parse = verbParser(withProbe);

describe('one more row in the verb table', () => {
  it.each([
    {
      input: 'probe web/unicorn --reason smoke',
      want: { ok: true, command: { verb: 'probe', release: { namespace: 'web', name: 'unicorn' }, reason: 'smoke' } },
    },
    { input: 'probe unicorn', want: { ok: true, command: { verb: 'probe', release: { name: 'unicorn' } } } },
    { input: 'probe', want: { ok: false, error: { code: 'missing-argument', message: expect.stringContaining('usage: probe <release>') } } },
    { input: 'probe unicorn --for 2h', want: { ok: false, error: { code: 'unexpected-argument', message: expect.stringContaining('probe takes no --for') } } },
    { input: 'prboe unicorn', want: { ok: false, error: expect.objectContaining({ code: 'unknown-verb', suggestion: 'probe' }) } },
    { input: 'help probe', want: { ok: true, command: { verb: 'help', topic: 'probe' } } },
  ])('parses "$input"', ({ input, want }) => expect(parse(input)).toEqual(want));

  it('shows in the help, counts as mutating and as a Team verb', () => {
    expect(renderHelp(undefined, withProbe).split('\n').at(-1)).toBe(`  ${PROBE_ROW.usage}`);
    expect(renderHelp('probe', withProbe)).toBe(`usage: ${PROBE_ROW.usage}`);
    expect(mutatingVerbsOf(withProbe)).toEqual([...MUTATING_VERBS, 'probe']);
    expect(teamVerbsOf(withProbe)).toEqual([...TEAM_VERBS, 'probe']);
  });

  it('the real table parses no such verb', () => {
    expect(verbParser(RELEASE_VERBS)('probe unicorn')).toMatchObject({ ok: false, error: { code: 'unknown-verb' } });
  });
});

describe('the test verb, a row of the real table', () => {
  const real = verbParser(RELEASE_VERBS);
  it.each([
    {
      input: 'test web/unicorn --reason smoke',
      want: { ok: true, command: { verb: 'test', release: { namespace: 'web', name: 'unicorn' }, reason: 'smoke' } },
    },
    { input: 'test unicorn', want: { ok: true, command: { verb: 'test', release: { name: 'unicorn' } } } },
    { input: 'test', want: { ok: false, error: { code: 'missing-argument', message: expect.stringContaining('usage: test <release>') } } },
    { input: 'test unicorn --for 2h', want: { ok: false, error: { code: 'unexpected-argument', message: expect.stringContaining('test takes no --for') } } },
    { input: 'tset unicorn', want: { ok: false, error: expect.objectContaining({ code: 'unknown-verb', suggestion: 'test' }) } },
  ])('parses "$input"', ({ input, want }) => expect(real(input)).toEqual(want));
});

describe('the real table gives the lists that were kept by hand', () => {
  it('mutating verbs', () => {
    expect(MUTATING_VERBS).toEqual(['suspend', 'resume', 'upgrade', 'rollback', 'correct', 'retry', 'test', 'refresh', 'freeze', 'unfreeze']);
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
      'test',
      'refresh',
      'freeze',
      'unfreeze',
      'freeze-all',
      'approve',
    ]);
  });

  it('request-id prefixes', () => {
    const prefixes = Object.fromEntries(
      Object.entries(RELEASE_VERBS as Readonly<Record<string, VerbRow>>).flatMap(([verb, row]) => (row.requestIdPrefix ? [[verb, row.requestIdPrefix]] : [])),
    );
    expect(prefixes).toEqual({ rollback: 'rb', correct: 'dc', retry: 'rt', test: 'ts', refresh: 'rf' });
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
      'test',
      'refresh',
      'freeze',
      'freezes',
      'unfreeze',
      'proposals',
      'promote',
      'notify',
    ]);
  });
});

describe('one table for every surface: the verbs on one release', () => {
  const rowOf = (verb: string) => RELEASE_VERBS[verb as keyof typeof RELEASE_VERBS] as VerbRow;

  it('each has its handler, and a fleet sends exactly these to a cluster (no list of its own)', () => {
    expect(Object.keys(RELEASE_VERB_HANDLERS).sort()).toEqual([...RELEASE_ACTION_VERBS].sort());
    expect([...COMMAND_VERBS]).toEqual(RELEASE_ACTION_VERBS);
    expect(releaseActionVerbsOf(withProbe)).toEqual([...RELEASE_ACTION_VERBS, 'probe']);
  });

  it.each(RELEASE_ACTION_VERBS.map((verb) => ({ verb })))('$verb: its intent writes only the annotations its row names', ({ verb }) => {
    const command = { verb, release: { name: 'unicorn' }, version: '2.0.0', reason: 'why' } as never;
    const patch = intentPatch({ command, targets: [], plan: { title: '', lines: [], warnings: [], doable: true } }, { id: 'slack:U1' }, new Date(0), 'req-1');
    const written = Object.keys(patch.metadata?.annotations ?? {});
    expect(written.filter((name) => !(rowOf(verb).intentAnnotations ?? []).includes(name))).toEqual([]);
    expect(intentPatchProblem(patch, verb)).toBeUndefined();
  });
});

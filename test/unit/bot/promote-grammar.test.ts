import { describe, expect, it } from 'vitest';
import { MUTATING_VERBS, TEAM_VERBS } from '../../../src/api/release-verbs.js';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';
import { renderHelp } from '../../../src/session/render/text.js';

/** `/release promote <release> --from <place> --to <place>` (issue 35): a place is one word (a fleet cluster or a namespace) or cluster/namespace. */

describe('the promote grammar', () => {
  it.each([
    {
      input: 'promote unicorn --from staging --to prod',
      command: { verb: 'promote', release: { name: 'unicorn' }, from: { kind: 'word', word: 'staging' }, to: { kind: 'word', word: 'prod' } },
    },
    {
      input: 'promote shop/unicorn --to=prod-eu --from Staging',
      command: {
        verb: 'promote',
        release: { namespace: 'shop', name: 'unicorn' },
        from: { kind: 'word', word: 'staging' },
        to: { kind: 'word', word: 'prod-eu' },
      },
    },
    {
      input: 'promote unicorn --from edge/staging --to home/prod',
      command: {
        verb: 'promote',
        release: { name: 'unicorn' },
        from: { kind: 'pair', cluster: 'edge', namespace: 'staging' },
        to: { kind: 'pair', cluster: 'home', namespace: 'prod' },
      },
    },
    // From a phone: an em dash for the two hyphens.
    {
      input: 'promote unicorn —from staging —to prod',
      command: { verb: 'promote', release: { name: 'unicorn' }, from: { kind: 'word', word: 'staging' }, to: { kind: 'word', word: 'prod' } },
    },
  ])('parses "$input"', ({ input, command }) => expect(parseReleaseCommand(input)).toEqual({ ok: true, command }));

  it.each([
    {
      input: 'promote unicorn --from staging',
      code: 'missing-argument',
      message: /^promote needs --from and --to: .*usage: promote <release> --from <place> --to <place>/,
    },
    { input: 'promote unicorn', code: 'missing-argument', message: /^promote needs --from and --to/ },
    { input: 'promote --from staging --to prod', code: 'missing-argument', message: /^promote needs a release/ },
    {
      input: 'promote unicorn --from a/b/c --to prod',
      code: 'invalid-place',
      message: /^--from "a\/b\/c" is not a place; write a namespace or a cluster of the fleet/,
    },
    { input: 'promote unicorn --from staging --to Prod_EU', code: 'invalid-place', message: /^--to "Prod_EU" is not a place/ },
    { input: 'promote unicorn --from staging --to', code: 'invalid-freeze-end', message: /^--to needs a value, like --to prod/ },
    {
      input: 'promote edge/shop/unicorn --from a --to b',
      code: 'invalid-release',
      message: /promote takes a release as name or namespace\/name, without a cluster/,
    },
    { input: 'promote unicorn --from a --to b --reason why', code: 'unexpected-argument', message: /promote takes no --reason/ },
    { input: 'promote unicorn --from a --to b --cluster edge', code: 'unexpected-argument', message: /promote takes no --cluster/ },
    { input: 'suspend unicorn --from staging', code: 'unexpected-argument', message: /suspend takes no --from/ },
  ])('refuses "$input" ($code)', ({ input, code, message }) =>
    expect(parseReleaseCommand(input)).toEqual({ ok: false, error: { code, message: expect.stringMatching(message) } }),
  );

  it('answers typos with what was meant', () => {
    expect(parseReleaseCommand('promtoe unicorn --from a --to b')).toMatchObject({ ok: false, error: { code: 'unknown-verb', suggestion: 'promote' } });
    expect(parseReleaseCommand('promote unicorn --fromm a --to b')).toMatchObject({ ok: false, error: { code: 'unknown-flag', suggestion: '--from' } });
  });

  it('is in the help, neither a confirm-then-write verb nor a Team verb of its own (it is authorized as upgrade)', () => {
    expect(renderHelp('promote')).toMatch(/^usage: promote <release> --from <place> --to <place>/);
    expect(renderHelp(undefined)).toContain('promote <release> --from <place> --to <place>');
    expect(MUTATING_VERBS).not.toContain('promote');
    expect(TEAM_VERBS).not.toContain('promote');
  });
});

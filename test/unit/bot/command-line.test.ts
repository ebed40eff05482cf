import { describe, expect, it } from 'vitest';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';
import { commandLine } from '../../../src/session/grammar/command-line.js';

/** A form's fields become a /release line that the one parser reads back as the same command. */
describe('commandLine', () => {
  it.each([
    { verb: 'suspend' as const, fields: { namespace: 'web', name: 'unicorn', reason: 'db migration' }, want: { verb: 'suspend', reason: 'db migration' } },
    {
      verb: 'upgrade' as const,
      fields: { namespace: 'web', name: 'unicorn', version: '3.0.0', breakGlass: true },
      want: { verb: 'upgrade', version: '3.0.0', breakGlass: true },
    },
    { verb: 'rollback' as const, fields: { namespace: 'web', name: 'unicorn', revision: 2, reason: "it's broken" }, want: { verb: 'rollback', revision: 2 } },
    { verb: 'rollback' as const, fields: { namespace: 'web', name: 'unicorn' }, want: { verb: 'rollback' } },
    { verb: 'test' as const, fields: { namespace: 'web', name: 'unicorn', cluster: 'edge' }, want: { verb: 'test', cluster: 'edge' } },
    {
      verb: 'resume' as const,
      fields: { namespace: 'web', name: 'unicorn', reason: '<script>alert(1)</script>' },
      want: { verb: 'resume', reason: '<script>alert(1)</script>' },
    },
  ])('$verb $fields', ({ verb, fields, want }) => {
    const line = commandLine(verb, fields);
    expect(line.ok).toBe(true);
    const parsed = parseReleaseCommand((line as { line: string }).line);
    expect(parsed).toMatchObject({ ok: true, command: { ...want, release: { namespace: 'web', name: 'unicorn' } } });
  });

  it.each([
    { verb: 'suspend' as const, fields: { namespace: 'web', name: 'u', breakGlass: true }, want: /takes no --break-glass/ },
    { verb: 'suspend' as const, fields: { namespace: 'web', name: 'u', reason: `both ' and "` }, want: /both kinds of quote/ },
  ])('refuses $fields', ({ verb, fields, want }) => {
    expect(commandLine(verb, fields)).toMatchObject({ ok: false, message: expect.stringMatching(want) });
  });

  it.each([{ name: 'x --reason y' }, { name: 'Unicorn' }, { name: '"x"' }, { name: '' }])('a name that is not one ($name) makes no line', ({ name }) => {
    expect(commandLine('suspend', { namespace: 'web', name })).toMatchObject({ ok: false, message: expect.stringContaining('is not a name') });
  });
});

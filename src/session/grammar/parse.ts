import { RELEASE_VERBS, type VerbRow } from '../../api/release-verbs.js';
import { NEEDS, fail, parseArgument, show, type Failure } from './arguments.js';
import type { ParseError, ReleaseCommand, ReleaseRef } from './command.js';
import { splitFlags } from './flags.js';
import { normalizeInput } from './normalize.js';
import { closest } from './suggest.js';
import { tokenize, type Token } from './tokenize.js';

/**
 * The one `/release` grammar, pure: text in, a command or a typed error out, read off the verb
 * table (src/api/release-verbs.ts). Nothing here throws on bad input and nothing is ever passed
 * to a shell.
 */

export const MAX_INPUT_LENGTH = 2000;

export type Parsed<C> = { ok: true; command: C } | { ok: false; error: ParseError };
type Fields = { verb: string } & Record<string, unknown>;

/** A parser for the verbs of `table`: what each takes comes from its row, nothing from a list kept elsewhere. */
export function verbParser<C extends { verb: string } = Fields>(table: Readonly<Record<string, VerbRow>>): (input: string) => Parsed<C> {
  const verbs = Object.keys(table);
  return (input) => {
    if (input.length > MAX_INPUT_LENGTH * 2) return fail('too-long', `that is ${input.length} characters; a command is at most ${MAX_INPUT_LENGTH}`);
    const line = normalizeInput(input);
    if (line.length > MAX_INPUT_LENGTH) return fail('too-long', `that is ${line.length} characters; a command is at most ${MAX_INPUT_LENGTH}`);
    if (!line) return fail('empty', `no command given; try "help"`);
    const tokenized = tokenize(line);
    if (!tokenized.ok) return fail('unterminated-quote', `a ${tokenized.quote} quote is not closed`);
    const [first, ...rest] = tokenized.tokens;
    const verb = first!.text.toLowerCase();
    const row = table[verb];
    if (!row || first!.quoted) {
      const suggestion = closest(verb, verbs);
      const shown = show(first!.text);
      return suggestion
        ? fail('unknown-verb', `unknown command "${shown}" — did you mean "${suggestion}"?`, suggestion)
        : fail('unknown-verb', `unknown command "${shown}"; the commands are ${verbs.join(', ')}`);
    }
    const split = splitFlags(verb, rest);
    if (!split.ok) return split;
    const refused = split.given.find((flag) => flag !== '--reason' && !(row.flags as readonly string[]).includes(flag));
    if (refused) return fail('unexpected-argument', `${verb} takes no ${refused}; usage: ${row.usage}`);
    const parsed = parseArguments(verb, row, split.args, verbs);
    if (!parsed.ok) return parsed;
    const usage = `usage: ${row.usage}`;
    // A promotion names both places, always: a missing one is never guessed.
    if ((row.flags as readonly string[]).includes('--from') && (split.from === undefined || split.to === undefined))
      return fail('missing-argument', `${verb} needs --from and --to: where the release runs what you want, and where it should run it too; ${usage}`);
    const located = clusterOf(verb, row, parsed.fields, split.cluster);
    if (!located.ok) return located;
    if (split.reason !== undefined && row.reason === 'none') return fail('unexpected-argument', `${verb} takes no --reason; ${usage}`);
    if (split.reason === undefined && row.reason === 'required') return fail('missing-argument', `${verb} needs a reason, so the channel knows why; ${usage}`);
    const command: Fields = {
      verb,
      ...parsed.fields,
      ...(split.reason !== undefined ? { reason: split.reason } : {}),
      ...(split.breakGlass ? { breakGlass: true } : {}),
      ...(split.end ? { end: split.end } : {}),
      ...(split.window ? { window: split.window } : {}),
      ...(located.cluster ? { cluster: located.cluster } : {}),
      ...(split.from ? { from: split.from } : {}),
      ...(split.to ? { to: split.to } : {}),
    };
    return { ok: true, command: command as unknown as C };
  };
}

/**
 * The cluster a command names: `--cluster NAME` or the short form `NAME/namespace/release` (moved
 * off the release to the command), never two different ones; `all` only to list.
 */
function clusterOf(verb: string, row: VerbRow, fields: Record<string, unknown>, flag: string | undefined): { ok: true; cluster?: string } | Failure {
  const release = fields.release as ReleaseRef | undefined;
  const short = release?.cluster;
  if (release && short !== undefined) {
    if (!(row.flags as readonly string[]).includes('--cluster'))
      return fail('invalid-release', `${verb} takes a release as name or namespace/name, without a cluster`);
    const { cluster: _moved, ...rest } = release;
    fields.release = rest;
  }
  if (flag !== undefined && short !== undefined && flag !== short)
    return fail('invalid-cluster', `the release names cluster "${short}" and --cluster says "${flag}"; give one`);
  const cluster = flag ?? short;
  if (cluster === 'all' && verb !== 'list') return fail('invalid-cluster', `${verb} acts on one cluster: name it (--cluster all is for list)`);
  return { ok: true, ...(cluster !== undefined ? { cluster } : {}) };
}

/** The row's arguments in order: a missing optional one ends them; then no word may be left over. */
function parseArguments(verb: string, row: VerbRow, args: Token[], verbs: readonly string[]): { ok: true; fields: Record<string, unknown> } | Failure {
  const usage = `usage: ${row.usage}`;
  const fields: Record<string, unknown> = {};
  let at = 0;
  for (const spec of row.args) {
    // `rollback x to 3`, and `rollback x 3` since people type it that way
    const keyword = spec.after !== undefined && args[at]?.text.toLowerCase() === spec.after;
    if (keyword) at++;
    const word = args[at]?.text;
    if (word === undefined) {
      if (keyword) return fail('missing-argument', `${verb} needs ${NEEDS[spec.kind]} after "${spec.after}"; ${usage}`);
      if (spec.optional) break;
      return fail('missing-argument', `${verb} needs ${NEEDS[spec.kind]}; ${usage}`);
    }
    const value = parseArgument(spec.kind, word, verbs);
    if (!value.ok) return value;
    fields[spec.field] = value.value;
    at++;
  }
  if (args.length > at) return fail('unexpected-argument', `unexpected "${show(args[at]!.text)}" after ${verb}; ${usage}`);
  return { ok: true, fields };
}

/** The `/release` grammar of the verb table. */
export const parseReleaseCommand: (input: string) => Parsed<ReleaseCommand> = verbParser<ReleaseCommand>(RELEASE_VERBS);

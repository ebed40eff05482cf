import { valid, validRange } from 'semver';
import { USAGE, VERBS, type ParseError, type ParseResult, type ReleaseCommand, type ReleaseRef, type Scope, type Verb } from './command.js';
import { splitFlags, type Flags } from './flags.js';
import { normalizeInput } from './normalize.js';
import { closest } from './suggest.js';
import { tokenize, type Token } from './tokenize.js';

/**
 * The one `/release` grammar, pure: text in, a command or a typed error out. Nothing here
 * throws on bad input and nothing is ever passed to a shell.
 */

export const MAX_INPUT_LENGTH = 2000;
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CHART = /^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/;
/** Which options each verb takes besides --reason (checked separately). */
const TAKES: Partial<Record<Verb, ReadonlyArray<Flags['given'][number]>>> = {
  upgrade: ['--break-glass'],
  rollback: ['--break-glass'],
  freeze: ['--for', '--until'],
};

type Failure = { ok: false; error: ParseError };
const fail = (code: ParseError['code'], message: string, suggestion?: string): Failure => ({
  ok: false,
  error: suggestion ? { code, message, suggestion } : { code, message },
});

export function parseReleaseCommand(input: string): ParseResult {
  if (input.length > MAX_INPUT_LENGTH * 2) return fail('too-long', `that is ${input.length} characters; a command is at most ${MAX_INPUT_LENGTH}`);
  const line = normalizeInput(input);
  if (line.length > MAX_INPUT_LENGTH) return fail('too-long', `that is ${line.length} characters; a command is at most ${MAX_INPUT_LENGTH}`);
  if (!line) return fail('empty', `no command given; try "help"`);
  const tokenized = tokenize(line);
  if (!tokenized.ok) return fail('unterminated-quote', `a ${tokenized.quote} quote is not closed`);
  const [first, ...rest] = tokenized.tokens;
  const verb = first!.text.toLowerCase();
  if (!isVerb(verb) || first!.quoted) {
    const suggestion = closest(verb, VERBS);
    const shown = show(first!.text);
    return suggestion
      ? fail('unknown-verb', `unknown command "${shown}" — did you mean "${suggestion}"?`, suggestion)
      : fail('unknown-verb', `unknown command "${shown}"; the commands are ${VERBS.join(', ')}`);
  }
  const split = splitFlags(verb, rest);
  if (!split.ok) return split;
  const refused = split.given.find((flag) => flag !== '--reason' && !(TAKES[verb] ?? []).includes(flag));
  if (refused) return fail('unexpected-argument', `${verb} takes no ${refused}; usage: ${USAGE[verb]}`);
  const parsed = parseVerb(verb, split.args, split.reason);
  if (!parsed.ok) return parsed;
  const command = parsed.command;
  if (split.breakGlass && (command.verb === 'upgrade' || command.verb === 'rollback')) return { ok: true, command: { ...command, breakGlass: true } };
  if (split.end && command.verb === 'freeze') return { ok: true, command: { ...command, end: split.end } };
  return parsed;
}

function parseVerb(verb: Verb, args: Token[], reason: string | undefined): ParseResult {
  const usage = `usage: ${USAGE[verb]}`;
  const at = (i: number) => args[i]?.text;
  const noMore = (n: number): Failure | undefined =>
    args.length > n ? fail('unexpected-argument', `unexpected "${show(args[n]!.text)}" after ${verb}; ${usage}`) : undefined;
  const needs = (what: string): Failure => fail('missing-argument', `${verb} needs ${what}; ${usage}`);
  const noReason = (): Failure | undefined => (reason !== undefined ? fail('unexpected-argument', `${verb} takes no --reason; ${usage}`) : undefined);
  const ok = (command: ReleaseCommand): ParseResult => ({ ok: true, command });
  const release = (): { ok: true; ref: ReleaseRef } | Failure => (at(0) === undefined ? needs('a release (name or namespace/name)') : parseRelease(at(0)!));

  switch (verb) {
    case 'help': {
      const fault = noReason() ?? noMore(1);
      if (fault) return fault;
      if (at(0) === undefined) return ok({ verb });
      const topic = at(0)!.toLowerCase();
      if (isVerb(topic)) return ok({ verb, topic });
      const suggestion = closest(topic, VERBS);
      return fail('unknown-verb', `no help for "${show(at(0)!)}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`, suggestion);
    }
    case 'whoami': {
      return noReason() ?? noMore(0) ?? ok({ verb });
    }
    case 'list': {
      const fault = noReason() ?? noMore(1);
      if (fault) return fault;
      if (at(0) === undefined) return ok({ verb });
      const namespace = parseNamespace(at(0)!);
      return namespace.ok ? ok({ verb, namespace: namespace.namespace }) : namespace;
    }
    case 'status':
    case 'history': {
      const r = release();
      if (!r.ok) return r;
      return noReason() ?? noMore(1) ?? ok({ verb, release: r.ref });
    }
    case 'suspend':
    case 'resume':
    case 'correct':
    case 'retry': {
      const r = release();
      if (!r.ok) return r;
      return noMore(1) ?? ok(withReason({ verb, release: r.ref }, reason));
    }
    case 'diff': {
      const r = release();
      if (!r.ok) return r;
      const fault = noReason() ?? noMore(2);
      if (fault) return fault;
      if (at(1) === undefined) return ok({ verb, release: r.ref });
      const version = parseVersion(at(1)!);
      return version.ok ? ok({ verb, release: r.ref, version: version.version }) : version;
    }
    case 'upgrade': {
      const r = release();
      if (!r.ok) return r;
      if (at(1) === undefined) return needs('a chart version');
      const version = parseVersion(at(1)!);
      if (!version.ok) return version;
      return noMore(2) ?? ok(withReason({ verb, release: r.ref, version: version.version }, reason));
    }
    case 'rollback': {
      const r = release();
      if (!r.ok) return r;
      // `rollback x to 3`, and `rollback x 3` since people type it that way
      const hasTo = at(1)?.toLowerCase() === 'to';
      const revisionWord = hasTo ? at(2) : at(1);
      if (hasTo && revisionWord === undefined) return needs('a revision after "to"');
      if (revisionWord === undefined) return ok(withReason({ verb, release: r.ref }, reason));
      const revision = parseRevision(revisionWord);
      if (!revision.ok) return revision;
      return noMore(hasTo ? 3 : 2) ?? ok(withReason({ verb, release: r.ref, revision: revision.revision }, reason));
    }
    case 'freeze': {
      if (at(0) === undefined) return needs('a scope: a namespace, team:<name>, chart:<name> or "all"');
      const scope = parseScope(at(0)!);
      if (!scope.ok) return scope;
      const fault = noMore(1);
      if (fault) return fault;
      if (reason === undefined) return fail('missing-argument', `freeze needs a reason, so the channel knows why; ${usage}`);
      return ok({ verb, scope: scope.scope, reason });
    }
    case 'freezes': {
      return noReason() ?? noMore(0) ?? ok({ verb });
    }
    case 'unfreeze': {
      if (at(0) === undefined) return needs('the name of a freeze (see "freezes")');
      const name = at(0)!.toLowerCase();
      if (!NAME.test(name) || name.length > 253)
        return fail('invalid-freeze-name', `"${show(at(0)!)}" is not a freeze name; "freezes" lists them (like prod-7f3a)`);
      return noMore(1) ?? ok(withReason({ verb, name }, reason));
    }
    default:
      return assertNever(verb);
  }
}

export function parseRelease(word: string): { ok: true; ref: ReleaseRef } | Failure {
  const text = word.toLowerCase();
  const parts = text.split('/');
  const bad = () => fail('invalid-release', `"${show(word)}" is not a release; write name or namespace/name (lowercase letters, digits, "-" and ".")`);
  if (parts.length === 1) return NAME.test(text) && text.length <= 253 ? { ok: true, ref: { name: text } } : bad();
  if (parts.length !== 2) return bad();
  const [namespace, name] = parts as [string, string];
  if (!NAMESPACE.test(namespace) || namespace.length > 63 || !NAME.test(name) || name.length > 253) return bad();
  return { ok: true, ref: { namespace, name } };
}

function parseNamespace(word: string): { ok: true; namespace: string } | Failure {
  const text = word.toLowerCase();
  return NAMESPACE.test(text) && text.length <= 63
    ? { ok: true, namespace: text }
    : fail('invalid-namespace', `"${show(word)}" is not a namespace (lowercase letters, digits and "-", at most 63)`);
}

/** `all`, `team:<name>`, `chart:<name>`, or a namespace. */
export function parseScope(word: string): { ok: true; scope: Scope } | Failure {
  const text = word.toLowerCase();
  if (text === 'all') return { ok: true, scope: { kind: 'all' } };
  const colon = text.indexOf(':');
  if (colon >= 0) {
    const [kind, name] = [text.slice(0, colon), text.slice(colon + 1)];
    if (kind === 'team' && NAME.test(name) && name.length <= 253) return { ok: true, scope: { kind: 'team', team: name } };
    if (kind === 'chart' && CHART.test(name) && name.length <= 250) return { ok: true, scope: { kind: 'chart', chart: name } };
    return fail('invalid-scope', `"${show(word)}" is not a scope; write a namespace, team:<name>, chart:<name> or all`);
  }
  const namespace = parseNamespace(word);
  return namespace.ok ? { ok: true, scope: { kind: 'namespace', namespace: namespace.namespace } } : namespace;
}

function parseVersion(word: string): { ok: true; version: string } | Failure {
  if (word.length <= 100 && /^[0-9A-Za-z.^~*+<>=|-]+$/.test(word) && (valid(word) || validRange(word))) return { ok: true, version: word };
  return fail('invalid-version', `"${show(word)}" is not a chart version; write one like 2.0.0 or a range like 2.x`);
}

function parseRevision(word: string): { ok: true; revision: number } | Failure {
  const text = word.replace(/^(#|r|rev)/i, '');
  const revision = Number(text);
  if (/^[0-9]{1,9}$/.test(text) && revision >= 1) return { ok: true, revision };
  return fail('invalid-revision', `"${show(word)}" is not a revision; write a number like 3 (see "history")`);
}

function withReason<T extends object>(command: T, reason: string | undefined): T & { reason?: string } {
  return reason === undefined ? command : { ...command, reason };
}

function isVerb(word: string): word is Verb {
  return (VERBS as readonly string[]).includes(word);
}

/** Bad words are quoted back shortened; the transport escapes them for its medium. */
function show(word: string): string {
  return word.length > 40 ? `${word.slice(0, 40)}…` : word;
}

function assertNever(value: never): never {
  throw new Error(`unexpected verb: ${String(value)}`);
}

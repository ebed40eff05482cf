/**
 * What a `/release` line means once parsed. One shape for Slack (slash command, @-mention,
 * buttons) and the terminal (`helmcrew release …`).
 */

/** A HelmRelease named as `name` (resolved when unique) or `namespace/name`. */
export interface ReleaseRef {
  namespace?: string;
  name: string;
}

/** What a freeze holds: everything, a namespace, a Team's releases, or a chart's. */
export type Scope = { kind: 'all' } | { kind: 'namespace'; namespace: string } | { kind: 'team'; team: string } | { kind: 'chart'; chart: string };

/** When a freeze ends by itself: after a duration (`--for 2h`) or at a time (`--until 18:00`, or an RFC 3339 time). */
export type FreezeEnd = { kind: 'for'; text: string; ms: number } | { kind: 'until'; text: string };

export type ReleaseCommand =
  | { verb: 'help'; topic?: Verb }
  | { verb: 'whoami' }
  | { verb: 'list'; namespace?: string }
  | { verb: 'status'; release: ReleaseRef }
  | { verb: 'history'; release: ReleaseRef }
  | { verb: 'diff'; release: ReleaseRef; version?: string }
  | { verb: 'suspend'; release: ReleaseRef; reason?: string }
  | { verb: 'resume'; release: ReleaseRef; reason?: string }
  | { verb: 'upgrade'; release: ReleaseRef; version: string; reason?: string; breakGlass?: boolean }
  | { verb: 'rollback'; release: ReleaseRef; revision?: number; reason?: string; breakGlass?: boolean }
  | { verb: 'correct'; release: ReleaseRef; reason?: string }
  | { verb: 'retry'; release: ReleaseRef; reason?: string }
  | { verb: 'freeze'; scope: Scope; reason: string; end?: FreezeEnd }
  | { verb: 'freezes' }
  | { verb: 'unfreeze'; name: string; reason?: string };

export const VERBS = [
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
] as const;
export type Verb = (typeof VERBS)[number];

/** Verbs that change something: they show a plan and need a confirmation. */
export const MUTATING_VERBS = ['suspend', 'resume', 'upgrade', 'rollback', 'correct', 'retry', 'freeze', 'unfreeze'] as const;
export type MutatingVerb = (typeof MUTATING_VERBS)[number];
export type MutatingCommand = Extract<ReleaseCommand, { verb: MutatingVerb }>;

export function isMutating(command: ReleaseCommand): command is MutatingCommand {
  return (MUTATING_VERBS as readonly string[]).includes(command.verb);
}

export type ParseErrorCode =
  | 'empty'
  | 'too-long'
  | 'unknown-verb'
  | 'missing-argument'
  | 'unexpected-argument'
  | 'invalid-release'
  | 'invalid-namespace'
  | 'invalid-version'
  | 'invalid-revision'
  | 'invalid-reason'
  | 'invalid-scope'
  | 'invalid-freeze-end'
  | 'invalid-freeze-name'
  | 'unknown-flag'
  | 'unterminated-quote';

/** Bad input is a value, not an exception: the caller shows `message` to the person. */
export interface ParseError {
  code: ParseErrorCode;
  message: string;
  /** A corrected word when the input looked like a typo ("did you mean …"). */
  suggestion?: string;
}

export type ParseResult = { ok: true; command: ReleaseCommand } | { ok: false; error: ParseError };

/** One line per verb: the help text and the usage shown with argument errors. */
export const USAGE: Record<Verb, string> = {
  help: 'help [verb]',
  whoami: 'whoami',
  list: 'list [namespace]',
  status: 'status <release>',
  history: 'history <release>',
  diff: 'diff <release> [version]',
  suspend: 'suspend <release> [--reason …]',
  resume: 'resume <release> [--reason …]',
  upgrade: 'upgrade <release> <version> [--reason …] [--break-glass]',
  rollback: 'rollback <release> [to <revision>] [--reason …] [--break-glass]',
  correct: 'correct <release> [--reason …]   (put drifted objects back to what Helm last applied)',
  retry: 'retry <release> [--reason …]   (one forced install or upgrade of the current spec, also after a failure)',
  freeze: 'freeze <namespace|team:<name>|chart:<name>|all> --reason … [--for 2h | --until 18:00]',
  freezes: 'freezes',
  unfreeze: 'unfreeze <freeze name> [--reason …]',
};

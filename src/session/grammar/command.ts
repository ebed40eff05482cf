import { MUTATING_VERBS, RELEASE_VERBS, type MutatingVerb, type ReleaseVerb, type VerbArgument, type VerbFlag } from '../../api/release-verbs.js';

/**
 * What a `/release` line means once parsed. One shape for Slack (slash command, @-mention,
 * buttons) and the terminal (`helmcrew release …`), read off the verb table (src/api/release-verbs.ts).
 */

/** A HelmRelease named as `name` (resolved when unique) or `namespace/name`; `cluster/namespace/name` names its fleet cluster too (the parser moves it to the command's `cluster`). */
export interface ReleaseRef {
  namespace?: string;
  name: string;
  cluster?: string;
}

/** What a freeze holds: everything, a namespace, a Team's releases, a chart's, or whole clusters of a fleet (`cluster:prod-*`, a name or glob). */
export type Scope =
  | { kind: 'all' }
  | { kind: 'namespace'; namespace: string }
  | { kind: 'team'; team: string }
  | { kind: 'chart'; chart: string }
  | { kind: 'clusters'; clusters: string };

/**
 * A promotion's place (`--from`, `--to`): one word — a cluster of the bot's fleet, else a namespace
 * of its own cluster (decided where the fleet is known: session/flow/promotion.ts) — or `cluster/namespace`.
 */
export type Place = { kind: 'word'; word: string } | { kind: 'pair'; cluster: string; namespace: string };

/** When a freeze ends by itself: after a duration (`--for 2h`) or at a time (`--until 18:00`, or an RFC 3339 time). */
export type FreezeEnd = { kind: 'for'; text: string; ms: number } | { kind: 'until'; text: string };

/** A recurring freeze window asked for: `--window "<cron>" --for <duration>`, warned of `--warn <duration>` before it opens. */
export interface WindowRequest {
  schedule: string;
  /** Each window's length, as typed (30m, 64h). */
  duration: string;
  warn?: { text: string; ms: number };
}

/** What each kind of argument in the verb table is once parsed. */
export interface ArgumentValues {
  release: ReleaseRef;
  namespace: string;
  version: string;
  revision: number;
  scope: Scope;
  'freeze-name': string;
  verb: Verb;
  switch: 'on' | 'off';
}

export type Verb = ReleaseVerb;
export { MUTATING_VERBS, type MutatingVerb };

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Row<V extends Verb> = (typeof RELEASE_VERBS)[V];
type ArgumentFields<A extends readonly VerbArgument[]> = {
  [S in A[number] as S extends { optional: true } ? never : S['field']]: ArgumentValues[S['kind']];
} & { [S in A[number] as S extends { optional: true } ? S['field'] : never]?: ArgumentValues[S['kind']] };
type ReasonField<R> = R extends 'required' ? { reason: string } : R extends 'optional' ? { reason?: string } : unknown;
type FlagFields<F extends readonly VerbFlag[]> = ('--break-glass' extends F[number] ? { breakGlass?: boolean } : unknown) &
  ('--for' extends F[number] ? { end?: FreezeEnd } : unknown) &
  ('--window' extends F[number] ? { window?: WindowRequest } : unknown) &
  ('--cluster' extends F[number] ? { cluster?: string } : unknown) &
  ('--from' extends F[number] ? { from: Place; to: Place } : unknown);

/** One verb's command, read off its row: its arguments' fields, its reason and its options. */
export type CommandOf<V extends Verb> = Simplify<{ verb: V } & ArgumentFields<Row<V>['args']> & ReasonField<Row<V>['reason']> & FlagFields<Row<V>['flags']>>;
export type ReleaseCommand = { [V in Verb]: CommandOf<V> }[Verb];

export type MutatingCommand = Extract<ReleaseCommand, { verb: MutatingVerb }>;

export function isMutating(command: ReleaseCommand): command is MutatingCommand {
  return RELEASE_VERBS[command.verb].mutating;
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
  | 'invalid-window'
  | 'invalid-freeze-name'
  | 'invalid-cluster'
  | 'invalid-place'
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

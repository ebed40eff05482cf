/**
 * The `/release` verbs as data: one row per verb. The bot's parser and usage text, which verbs
 * change something, the request ids the controller handles once, and the Team API's permission
 * verbs all derive from this table; the bot adds a handler per verb. Plain data, so the API stays
 * importable without the bot.
 */

import {
  BREAK_GLASS_ANNOTATION,
  DRIFT_CORRECTION_REQUEST_ANNOTATION,
  FORCE_AT_ANNOTATION,
  ROLLBACK_REQUEST_ANNOTATION,
  REQUESTED_AT_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
  SUSPENSION_ANNOTATION,
  TEST_REQUEST_ANNOTATION,
} from './annotations.js';

/** What a verb's words are; the bot's grammar parses each kind (session/grammar/arguments.ts). */
export type ArgumentKind = 'release' | 'namespace' | 'version' | 'revision' | 'scope' | 'freeze-name' | 'verb' | 'switch';

export interface VerbArgument {
  /** The command's field it fills. */
  readonly field: string;
  readonly kind: ArgumentKind;
  readonly optional?: boolean;
  /** A word that may stand before it (`rollback x to 3`); the value may follow without it too. */
  readonly after?: string;
}

/**
 * Options besides --reason, which every row says how it takes. `--cluster NAME` (or `NAME/namespace/release`) sends the verb to a fleet's cluster.
 * `--from` and `--to` (a promotion's two places) are required together by the verbs that take them.
 */
export type VerbFlag = '--break-glass' | '--for' | '--until' | '--window' | '--warn' | '--cluster' | '--from' | '--to';

export interface VerbRow {
  readonly args: readonly VerbArgument[];
  /** --reason: refused, optional, or required (a freeze says why). */
  readonly reason: 'none' | 'optional' | 'required';
  readonly flags: readonly VerbFlag[];
  /** The help line, also shown with argument errors. */
  readonly usage: string;
  /** Changes something: shows a plan and needs a confirmation. */
  readonly mutating: boolean;
  /** Granted by a Team permission of the same name (the Team API's verb enum). Otherwise any Team member (`freezes`) or anyone (`help`, `whoami`). */
  readonly teamVerb: boolean;
  /** A request the controller handles once, by id (an annotation's value): the id's prefix. */
  readonly requestIdPrefix?: string;
  /**
   * The annotations this verb's intent writes or removes (a verb on one release): the only ones a
   * fleet agent accepts in a signed command for it (core/fleet/signed-command.ts).
   */
  readonly intentAnnotations?: readonly string[];
}

const release = { field: 'release', kind: 'release' } as const;
const SUSPEND_ANNOTATIONS = [SUSPENSION_ANNOTATION] as const;
const ROLLBACK_ANNOTATIONS = [SUSPENSION_ANNOTATION, ROLLBACK_REQUEST_ANNOTATION, ROLLBACK_TO_ANNOTATION] as const;

export const RELEASE_VERBS = {
  help: { args: [{ field: 'topic', kind: 'verb', optional: true }], reason: 'none', flags: [], usage: 'help [verb]', mutating: false, teamVerb: false },
  whoami: { args: [], reason: 'none', flags: [], usage: 'whoami', mutating: false, teamVerb: false },
  list: {
    args: [{ field: 'namespace', kind: 'namespace', optional: true }],
    reason: 'none',
    flags: ['--cluster'],
    usage: 'list [namespace]',
    mutating: false,
    teamVerb: true,
  },
  status: { args: [release], reason: 'none', flags: ['--cluster'], usage: 'status <release>', mutating: false, teamVerb: true },
  history: { args: [release], reason: 'none', flags: ['--cluster'], usage: 'history <release>', mutating: false, teamVerb: true },
  diff: {
    args: [release, { field: 'version', kind: 'version', optional: true }],
    reason: 'none',
    flags: ['--cluster'],
    usage: 'diff <release> [version]',
    mutating: false,
    teamVerb: true,
  },
  suspend: {
    args: [release],
    reason: 'optional',
    flags: ['--cluster'],
    usage: 'suspend <release> [--reason …]',
    mutating: true,
    teamVerb: true,
    intentAnnotations: SUSPEND_ANNOTATIONS,
  },
  resume: {
    args: [release],
    reason: 'optional',
    flags: ['--cluster'],
    usage: 'resume <release> [--reason …]',
    mutating: true,
    teamVerb: true,
    intentAnnotations: ROLLBACK_ANNOTATIONS,
  },
  upgrade: {
    args: [release, { field: 'version', kind: 'version' }],
    reason: 'optional',
    flags: ['--break-glass', '--cluster'],
    usage: 'upgrade <release> <version> [--reason …] [--break-glass]',
    mutating: true,
    teamVerb: true,
    intentAnnotations: [BREAK_GLASS_ANNOTATION],
  },
  rollback: {
    args: [release, { field: 'revision', kind: 'revision', optional: true, after: 'to' }],
    reason: 'optional',
    flags: ['--break-glass', '--cluster'],
    usage: 'rollback <release> [to <revision>] [--reason …] [--break-glass]',
    mutating: true,
    teamVerb: true,
    requestIdPrefix: 'rb',
    intentAnnotations: [...ROLLBACK_ANNOTATIONS, BREAK_GLASS_ANNOTATION],
  },
  correct: {
    args: [release],
    reason: 'optional',
    flags: ['--cluster'],
    usage: 'correct <release> [--reason …]   (put drifted objects back to what Helm last applied)',
    mutating: true,
    teamVerb: true,
    requestIdPrefix: 'dc',
    intentAnnotations: [DRIFT_CORRECTION_REQUEST_ANNOTATION],
  },
  retry: {
    args: [release],
    reason: 'optional',
    flags: ['--cluster'],
    usage: 'retry <release> [--reason …]   (one forced install or upgrade of the current spec, also after a failure)',
    mutating: true,
    teamVerb: true,
    requestIdPrefix: 'rt',
    intentAnnotations: [FORCE_AT_ANNOTATION],
  },
  test: {
    args: [release],
    reason: 'optional',
    flags: ['--cluster'],
    usage: "test <release> [--reason …]   (run the chart's test hooks on the deployed revision; nothing is undone if they fail)",
    mutating: true,
    teamVerb: true,
    requestIdPrefix: 'ts',
    intentAnnotations: [TEST_REQUEST_ANNOTATION],
  },
  refresh: {
    args: [release],
    reason: 'optional',
    flags: ['--cluster'],
    usage: 'refresh <release> [--reason …]   (the controller looks at it now: sources, drift, dependencies; helm runs only if something changed)',
    mutating: true,
    teamVerb: true,
    requestIdPrefix: 'rf',
    intentAnnotations: [REQUESTED_AT_ANNOTATION],
  },
  freeze: {
    args: [{ field: 'scope', kind: 'scope' }],
    reason: 'required',
    flags: ['--for', '--until', '--window', '--warn'],
    usage:
      'freeze <namespace|team:<name>|chart:<name>|cluster:<glob>|all> --reason … [--for 2h | --until 18:00 | --window "0 18 * * FRI" --for 64h [--warn 30m]]',
    mutating: true,
    teamVerb: true,
  },
  freezes: { args: [], reason: 'none', flags: [], usage: 'freezes', mutating: false, teamVerb: false },
  unfreeze: {
    args: [{ field: 'name', kind: 'freeze-name' }],
    reason: 'optional',
    flags: [],
    usage: 'unfreeze <freeze name> [--reason …]',
    mutating: true,
    teamVerb: true,
  },
  proposals: {
    args: [{ field: 'namespace', kind: 'namespace', optional: true }],
    reason: 'none',
    flags: ['--cluster'],
    usage: 'proposals [namespace]   (the changes waiting for approval: new images, chart versions, promotions)',
    mutating: false,
    teamVerb: false,
  },
  // Proposes rather than writes: no plan to confirm (the proposal's votes are the confirmation), and
  // authorized as `upgrade` on the target release (session/flow/promotion.ts), so no Team verb of its own.
  promote: {
    args: [release],
    reason: 'none',
    flags: ['--from', '--to'],
    usage:
      'promote <release> --from <place> --to <place>   (propose the chart version and images running in one place for the other; a place: a namespace, a fleet cluster, or cluster/namespace)',
    mutating: false,
    teamVerb: false,
  },
  notify: {
    args: [{ field: 'setting', kind: 'switch' }],
    reason: 'none',
    flags: [],
    usage: 'notify on|off   (a direct message when what you started ends; on by default)',
    mutating: false,
    teamVerb: false,
  },
} as const satisfies Record<string, VerbRow>;

export type ReleaseVerb = keyof typeof RELEASE_VERBS;
type Rows = typeof RELEASE_VERBS;

/** The derivations, for any table (a test adds a row and sees them follow). */
export const verbsOf = <V extends string>(table: Readonly<Record<V, VerbRow>>): V[] => Object.keys(table) as V[];
export const mutatingVerbsOf = <V extends string>(table: Readonly<Record<V, VerbRow>>): V[] => verbsOf(table).filter((verb) => table[verb].mutating);
export const teamVerbsOf = <V extends string>(table: Readonly<Record<V, VerbRow>>): V[] => verbsOf(table).filter((verb) => table[verb].teamVerb);

/** In the table's order (the help lists them so). */
export const RELEASE_VERB_NAMES: ReleaseVerb[] = verbsOf<ReleaseVerb>(RELEASE_VERBS);

export type MutatingVerb = { [V in ReleaseVerb]: Rows[V]['mutating'] extends true ? V : never }[ReleaseVerb];
export const MUTATING_VERBS = mutatingVerbsOf<ReleaseVerb>(RELEASE_VERBS) as MutatingVerb[];

export type TeamVerb = { [V in ReleaseVerb]: Rows[V]['teamVerb'] extends true ? V : never }[ReleaseVerb];
/** The verbs a Team permission grants, in the table's order. */
export const TEAM_VERBS = teamVerbsOf<ReleaseVerb>(RELEASE_VERBS) as TeamVerb[];

/** A verb that changes one release (its first word names it): the verbs every surface offers on a release, and a fleet sends to a cluster's agent. */
export type ReleaseActionVerb = {
  [V in ReleaseVerb]: Rows[V]['mutating'] extends true ? (Rows[V]['args'][0] extends { kind: 'release' } ? V : never) : never;
}[ReleaseVerb];
export const releaseActionVerbsOf = <V extends string>(table: Readonly<Record<V, VerbRow>>): V[] =>
  mutatingVerbsOf(table).filter((verb) => table[verb].args[0]?.kind === 'release');
export const RELEASE_ACTION_VERBS = releaseActionVerbsOf<ReleaseVerb>(RELEASE_VERBS) as ReleaseActionVerb[];

/** The annotations an intent of `verb` may carry; without a verb, those of any verb. */
export function intentAnnotationsOf(verb?: ReleaseVerb): ReadonlySet<string> {
  const rows: VerbRow[] = verb ? [RELEASE_VERBS[verb]] : Object.values(RELEASE_VERBS);
  return new Set(rows.flatMap((row) => row.intentAnnotations ?? []));
}

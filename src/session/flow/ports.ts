import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { ReleaseRef } from '../../core/links/release-url.js';
import type { ReleaseLookup } from '../execute/find-release.js';
import type { AuthzDecision } from '../authz/authorize.js';
import type { AuthzTarget } from '../authz/policy-types.js';
import type { Outcome } from '../execute/outcome.js';
export { systemClock, type Clock } from '../execute/await-outcome.js';
import type { QueryCommand } from '../execute/queries.js';
import type { Verb } from '../grammar/command.js';
import type { Actor } from '../plan/actor.js';
import type { Plan } from '../plan/plan.js';
import type { ActionScope, PreparedAction } from '../plan/prepared.js';

/**
 * The ports a `/release` session is driven through. Slack (bot/slack/) and the terminal
 * (cli/commands/release.ts) each give one small adapter; the flow itself is written once
 * (release-session.ts).
 */

/** What the person is told. */
export interface Reply {
  /** A line: what they typed is wrong ('input'), why nothing happened ('stopped'), or news ('info'). */
  say(text: string, kind: 'input' | 'stopped' | 'info'): Promise<void>;
  /** A query's answer; `about`: the one release it is about (a surface may link to its page). */
  answer(verb: Verb, output: string, about?: ReleaseRef): Promise<void>;
  /** A plan that cannot be carried out, shown with no way to confirm it; `about` as for answers. */
  plan(plan: Plan, about?: ReleaseRef): Promise<void>;
  /** A fleet's "which cluster?": one button per cluster, each carrying on `text` there (Slack); without it the question is said. */
  chooseCluster?(question: string, text: string, clusters: string[]): Promise<void>;
}

/** Who may do what: Slack asks the Teams; the terminal leaves it to Kubernetes RBAC at the API server. */
export interface Gate {
  /** Why the query is refused, or undefined when it is allowed; `api` is the command's cluster's (to resolve the release it names). */
  query(command: QueryCommand, api: ReleaseLookup): Promise<string | undefined>;
  action(action: ActionScope): Promise<AuthzDecision>;
  /** Why the person may not propose a change to this release (a promotion: `upgrade` there), or undefined; absent: Kubernetes RBAC decides (the terminal). */
  propose?(target: AuthzTarget): Promise<string | undefined>;
}

/**
 * Shows a doable plan and asks to go ahead: 'yes' (the terminal asked, or was told --yes), 'no',
 * or 'later': Slack's Confirm button comes back as a request of its own.
 */
export interface Confirm {
  ask(action: PreparedAction, requireApproval: boolean): Promise<'yes' | 'no' | 'later'>;
}

/** How a confirmed action's progress is reported (Slack: the channel's audit message; the terminal: stdout). */
export interface Progress {
  /** Just before the write; returns what to write (Slack adds where a freeze's message is). */
  started(action: PreparedAction): Promise<PreparedAction>;
  /** The write failed: nobody may be left believing it is in progress. */
  failed(): Promise<void>;
  applied(summary: string): Promise<void>;
  /** The controller's reports, once all are in or the time is up. */
  finished(outcomes: Outcome[], summary: string): Promise<void>;
}

/** One request's ports. */
export interface SessionPorts {
  /** Who acts, for the audit records (the terminal asks the API server, so only when needed). */
  actor(): Promise<Actor>;
  reply: Reply;
  gate: Gate;
  confirm: Confirm;
  /** `api`: the acted-on release's cluster (a fleet's, through its agent). */
  progress(action: PreparedAction, approver: string | undefined, api: Pick<HelmReleaseApi, 'get'>): Progress;
  /** Answers `whoami` in the medium's own words. */
  whoami(): Promise<void>;
  /** `notify on|off`: whether the person is told directly when what they started ends (Slack's direct message; the terminal waits anyway). */
  notifyMe?(setting: 'on' | 'off'): Promise<void>;
  /** A second person can approve here (Slack); the terminal has none, so it refuses --break-glass. */
  secondPerson: boolean;
  /** Waits for the controller's report after a write (the terminal's --no-wait says no). */
  awaitOutcome: boolean;
}

/** How a session ended, for the terminal's exit code: 0, 2 (what was typed is wrong), 1 (nothing or not all done). */
export type SessionEnd = 'done' | 'bad-input' | 'not-done';

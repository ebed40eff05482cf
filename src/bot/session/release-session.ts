import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import { awaitOutcomes, systemClock, type Clock } from '../execute/await-outcome.js';
import type { ReleaseOperations } from '../execute/operations.js';
import type { ChangePreviews } from '../execute/preview-client.js';
import { isQuery, runQuery } from '../execute/queries.js';
import { isMutating, type MutatingCommand } from '../grammar/command.js';
import { parseReleaseCommand } from '../grammar/parse.js';
import type { PreparedAction } from '../plan/prepared.js';
import type { SessionEnd, SessionPorts } from './ports.js';

export interface SessionDeps {
  ops: ReleaseOperations;
  api: HelmReleaseApi;
  freezes: FreezeApi;
  storage: ReleaseStorage;
  /** The controller's object diffs for plans and `/release diff`; without them plans show the rest. */
  previews?: ChangePreviews;
  /** From the session's config reader (session/config.ts). */
  outcomeTimeoutMs: number;
  clock?: Clock;
}

/**
 * The one `/release` flow, for Slack and the terminal alike: parse → whoami | query (authorized)
 * | draft → authorize → plan (built once) → confirm → apply → await the controller's report. What
 * differs between the two — who may, how the plan is confirmed, where progress is told — comes
 * through the request's ports (ports.ts).
 */
export class ReleaseSession {
  constructor(private readonly deps: SessionDeps) {}

  /** What is wrong with a command line, before anything is built to run it (the terminal answers a typo with no cluster at hand). */
  static inputError(text: string): string | undefined {
    const parsed = parseReleaseCommand(text);
    return parsed.ok ? undefined : parsed.error.message;
  }

  async run(text: string, ports: SessionPorts): Promise<SessionEnd> {
    const parsed = parseReleaseCommand(text);
    if (!parsed.ok) return this.stop(ports, parsed.error.message, 'input');
    const command = parsed.command;
    if (command.verb === 'whoami') {
      await ports.whoami();
      return 'done';
    }
    if (command.verb === 'notify') {
      if (!ports.notifyMe) return this.stop(ports, 'there is nothing to turn on or off here', 'stopped');
      await ports.notifyMe(command.setting);
      return 'done';
    }
    if (isQuery(command)) {
      const refused = await ports.gate.query(command);
      if (refused) return this.stop(ports, refused, 'stopped');
      await ports.reply.answer(command.verb, await runQuery(command, this.deps));
      return 'done';
    }
    if (!isMutating(command)) return 'bad-input';
    return this.change(command, ports);
  }

  private async change(command: MutatingCommand, ports: SessionPorts): Promise<SessionEnd> {
    if ('breakGlass' in command && command.breakGlass && !ports.secondPerson)
      return this.stop(ports, '--break-glass needs a second person to approve; ask for it with /release in Slack', 'input');
    const drafted = await this.deps.ops.draft(command, await ports.actor());
    if (!drafted.ok) return this.stop(ports, drafted.message, 'stopped');
    const draft = drafted.draft;
    const decision = await ports.gate.action(draft);
    // Refused: the plan (without a preview) only names what was refused.
    if (!decision.allowed) return this.refuse(ports, draft.targets[0], draft.plan().title, decision.reason);
    const action = await this.deps.ops.plan(draft);
    if (!action.plan.doable) {
      await ports.reply.plan(action.plan);
      return 'not-done';
    }
    const answer = await ports.confirm.ask(action, decision.requireApproval);
    if (answer === 'later') return 'done';
    if (answer === 'no') return 'not-done';
    return this.execute(action, ports, undefined);
  }

  /** A confirmed (and, under the two-person rule, approved) action: write it, then wait for the controller's report. */
  async execute(action: PreparedAction, ports: SessionPorts, approver: string | undefined): Promise<SessionEnd> {
    const progress = ports.progress(action, approver);
    const toApply = await progress.started(action);
    let applied;
    try {
      applied = await this.deps.ops.apply(toApply, await ports.actor(), approver);
    } catch (error) {
      await progress.failed();
      throw error;
    }
    await progress.applied(applied.summary);
    if (!ports.awaitOutcome) return 'done';
    const outcomes = await awaitOutcomes(this.deps.api, action, applied.requestId, this.deps.outcomeTimeoutMs, 500, this.deps.clock ?? systemClock);
    await progress.finished(outcomes, applied.summary);
    return outcomes.every((o) => o.done && o.succeeded) ? 'done' : 'not-done';
  }

  /** Refused: recorded on the release (an Event) and in the log, and told; nothing changes. */
  async refuse(ports: SessionPorts, target: { namespace: string; name: string } | undefined, what: string, reason: string): Promise<SessionEnd> {
    const release = target ? await this.deps.api.get(target.namespace, target.name) : undefined;
    await this.deps.ops.recordRefusal(release, await ports.actor(), what, reason);
    return this.stop(ports, `Refused: ${reason}. Nothing changed.`, 'stopped');
  }

  private async stop(ports: SessionPorts, text: string, kind: 'input' | 'stopped'): Promise<SessionEnd> {
    await ports.reply.say(text, kind);
    return kind === 'input' ? 'bad-input' : 'not-done';
  }
}

import { RELEASE_VERBS, type VerbRow } from '../../api/release-verbs.js';
import { awaitOutcomes, systemClock, type Clock } from '../execute/await-outcome.js';
import { isQuery, type QueryCommand } from '../execute/queries.js';
import { gatedQuery } from './gated-query.js';
import { isMutating, type MutatingCommand, type ReleaseCommand, type ReleaseRef } from '../grammar/command.js';
import { parseReleaseCommand } from '../grammar/parse.js';
import { releaseInputError } from './input-error.js';
import { inCluster, whichCluster, type Search } from '../fleet/which-cluster.js';
import { eachCluster } from '../fleet/each-cluster.js';
import { applyFleetFreeze, applyFleetUnfreeze } from '../execute/fleet-freeze-writes.js';
import { NEEDS_A_FLEET, newFleetFreezeName, prepareFleetFreeze, prepareFleetUnfreeze } from '../fleet/fleet-freeze-plan.js';
import type { Plan } from '../plan/plan.js';
import { releaseOfAction, type PreparedAction } from '../plan/prepared.js';
import type { ClusterDeps, FleetRouting } from './fleet-routing.js';
import type { SessionEnd, SessionPorts } from './ports.js';
import { runPromotion, type OwnClusterName } from './promotion.js';

export interface SessionDeps extends ClusterDeps, OwnClusterName {
  /** From the session's config reader (session/config.ts). */
  outcomeTimeoutMs: number;
  clock?: Clock;
  /** A fleet (session/fleet/): `--cluster`, the short form, "which cluster?" and `list --cluster all`. Without it the bot drives its own cluster only, as ever. */
  fleet?: FleetRouting;
}

/** Where a command goes: its cluster's parts, and the cluster's name when the bot drives a fleet (then named in every answer). */
type Located = { ok: true; deps: ClusterDeps; cluster?: string } | { ok: false; end: SessionEnd };

const takesCluster = (verb: ReleaseCommand['verb']) => ((RELEASE_VERBS[verb] as VerbRow).flags as readonly string[]).includes('--cluster');
const clusterOf = (command: ReleaseCommand): string | undefined => ('cluster' in command ? command.cluster : undefined);
const labelled = (plan: Plan, cluster: string | undefined): Plan => (cluster ? { ...plan, title: inCluster(plan.title, cluster) } : plan);

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
    return releaseInputError(text);
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
    if (command.verb === 'list' && command.cluster === 'all') return this.listAll(command, ports);
    if (command.verb === 'promote')
      return runPromotion(command, ports, { deps: this.deps, now: () => this.now(), refuse: this.refuse.bind(this), stop: this.stop.bind(this) });
    const where = await this.locate(command, text, ports);
    if (!where.ok) return where.end;
    const { deps, cluster } = where;
    // The cluster found travels with the command: a stored plan is confirmed against the same cluster.
    const located = (cluster && takesCluster(command.verb) ? { ...command, cluster } : command) as ReleaseCommand;
    if (isQuery(located)) {
      const fleetFreezes = this.deps.fleet?.freezes;
      const result = await gatedQuery(located, ports.gate, { ...deps, ...(fleetFreezes ? { fleetFreezes } : {}) }, this.now());
      if ('refused' in result) return this.stop(ports, result.refused, 'stopped');
      const about = result.about && { ...result.about, ...(cluster ? { cluster } : {}) };
      await ports.reply.answer(located.verb, cluster ? `cluster ${cluster}\n${result.answer}` : result.answer, about);
      return 'done';
    }
    if (!isMutating(located)) return 'bad-input';
    return this.change(located, ports, deps, cluster);
  }

  /** The session's clock as a Date (a test's, or the system's): freezes are judged by it. */
  private now(): Date {
    return new Date((this.deps.clock ?? systemClock).now());
  }

  /**
   * The cluster a command goes to. Without a fleet, the bot's own (and `--cluster` is refused).
   * With one: the cluster named; else, for a release, the one cluster that has it — in several,
   * the person is asked, never a guess; in none, the bot's own answers as it always did.
   */
  private async locate(command: ReleaseCommand, text: string, ports: SessionPorts): Promise<Located> {
    const fleet = this.deps.fleet;
    const asked = clusterOf(command);
    if (!fleet) {
      if (asked)
        return {
          ok: false,
          end: await this.stop(ports, '--cluster needs a fleet: this bot drives only its own cluster (HELMCREW_FLEET_KEYS_DIR is not set)', 'input'),
        };
      return { ok: true, deps: this.deps };
    }
    if (asked) return this.routed(fleet, asked, ports);
    const ref = 'release' in command ? command.release : undefined;
    if (!ref || !takesCluster(command.verb)) return { ok: true, deps: this.deps, cluster: fleet.own };
    const searches = await this.search(fleet, ref);
    const choice = whichCluster(searches);
    if (choice.kind === 'one') return this.routed(fleet, choice.cluster, ports);
    if (choice.kind === 'ask') {
      const shown = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
      const question = `"${shown}" is in ${choice.clusters.length} clusters (${choice.clusters.join(', ')}): which cluster?`;
      if (ports.reply.chooseCluster) await ports.reply.chooseCluster(question, text, choice.clusters);
      else await ports.reply.say(`${question} Add --cluster NAME.`, 'input');
      return { ok: false, end: 'not-done' };
    }
    const unsearched = searches.filter((s) => s.matches === undefined && s.cluster !== fleet.own);
    if (unsearched.length > 0) {
      const why = (await fleet.members())
        .filter((m) => unsearched.some((s) => s.cluster === m.name))
        .map((m) => m.unavailable ?? `cluster ${m.name} did not answer`);
      return { ok: false, end: await this.stop(ports, `no release "${ref.name}" in the clusters that answered; not searched: ${why.join('; ')}`, 'stopped') };
    }
    return { ok: true, deps: this.deps, cluster: fleet.own };
  }

  private async routed(fleet: FleetRouting, cluster: string, ports: SessionPorts): Promise<Located> {
    const route = await fleet.route(cluster);
    return route.ok ? { ok: true, deps: route.deps, cluster } : { ok: false, end: await this.stop(ports, route.message, 'stopped') };
  }

  /** How many releases of that name each cluster has (one read per cluster, side by side); a cluster that cannot be asked has none counted. */
  private async search(fleet: FleetRouting, ref: ReleaseRef): Promise<Search[]> {
    const members = await fleet.members();
    return Promise.all(
      members.map(async (member): Promise<Search> => {
        if (member.unavailable) return { cluster: member.name };
        const route = await fleet.route(member.name);
        if (!route.ok) return { cluster: member.name };
        try {
          const { items } = await route.deps.api.list(ref.namespace);
          return { cluster: member.name, matches: items.filter((r) => r.metadata.name === ref.name).length };
        } catch {
          return { cluster: member.name };
        }
      }),
    );
  }

  /** `list --cluster all`: every cluster's releases under its name; a cluster that cannot be asked is named with why (unreachable since …). */
  private async listAll(command: Extract<QueryCommand, { verb: 'list' }>, ports: SessionPorts): Promise<SessionEnd> {
    const fleet = this.deps.fleet;
    if (!fleet) return this.stop(ports, '--cluster needs a fleet: this bot drives only its own cluster (HELMCREW_FLEET_KEYS_DIR is not set)', 'input');
    const answers = await eachCluster(fleet, async (deps, member) => {
      const result = await gatedQuery({ ...command, cluster: member.name }, ports.gate, deps, this.now());
      return 'refused' in result ? result.refused : result.answer;
    });
    const sections = answers.map((a) => `== cluster ${a.member.name}${a.member.own ? ' (this bot’s own)' : ''} ==\n${a.ok ? a.value : a.why}`);
    await ports.reply.answer('list', sections.join('\n'));
    return 'done';
  }

  private async change(command: MutatingCommand, ports: SessionPorts, deps: ClusterDeps, cluster: string | undefined): Promise<SessionEnd> {
    const fleetAction = await this.fleetFreezeAction(command, ports);
    if (fleetAction) return typeof fleetAction === 'string' ? fleetAction : this.changeFleet(fleetAction, ports);
    if ('breakGlass' in command && command.breakGlass && !ports.secondPerson)
      return this.stop(ports, '--break-glass needs a second person to approve; ask for it with /release in Slack', 'input');
    const drafted = await deps.ops.draft(command, await ports.actor());
    if (!drafted.ok) return this.stop(ports, cluster ? `${drafted.message} (cluster ${cluster})` : drafted.message, 'stopped');
    const draft = { ...drafted.draft, plan: (preview?: Parameters<typeof drafted.draft.plan>[0]) => labelled(drafted.draft.plan(preview), cluster) };
    const decision = await ports.gate.action(draft);
    // Refused: the plan (without a preview) only names what was refused.
    if (!decision.allowed) return this.refuse(ports, draft.targets[0], draft.plan().title, decision.reason, clusterOf(command));
    return this.confirmAndExecute(await deps.ops.plan(draft), decision.requireApproval, ports);
  }

  /**
   * `freeze cluster:…` and `unfreeze` of a fleet freeze: planned against the fleet's clusters, not
   * one cluster's releases. A session end when it stops here; undefined when the command is not one.
   */
  private async fleetFreezeAction(command: MutatingCommand, ports: SessionPorts): Promise<PreparedAction | SessionEnd | undefined> {
    const fleet = this.deps.fleet;
    if (command.verb === 'freeze' && command.scope.kind === 'clusters') {
      if (!fleet?.freezes) return this.stop(ports, NEEDS_A_FLEET, 'input');
      const clusters = fleet.clusters ? await fleet.clusters() : (await fleet.members()).map((m) => m.name);
      const name = newFleetFreezeName(command.scope);
      const now = this.now();
      return prepareFleetFreeze(command, clusters, await ports.actor(), now, this.deps.ops.timeZone, name);
    }
    if (command.verb === 'unfreeze' && fleet?.freezes) {
      // A name is a fleet freeze's when the fleet has one of that name; else the cluster's Freeze, as ever.
      const record = (await fleet.freezes.list()).find((r) => r.freeze.metadata.name === command.name);
      if (!record) return undefined;
      const clusters = fleet.clusters ? await fleet.clusters() : (await fleet.members()).map((m) => m.name);
      return prepareFleetUnfreeze(command, record, clusters, this.now());
    }
    return undefined;
  }

  private async changeFleet(action: PreparedAction, ports: SessionPorts): Promise<SessionEnd> {
    const decision = await ports.gate.action(action);
    if (!decision.allowed) return this.refuse(ports, undefined, action.plan.title, decision.reason);
    return this.confirmAndExecute(action, decision.requireApproval, ports);
  }

  /** An allowed action: a plan that cannot be done is shown and ends here; else confirmed (or approved), then carried out. */
  private async confirmAndExecute(action: PreparedAction, requireApproval: boolean, ports: SessionPorts): Promise<SessionEnd> {
    if (!action.plan.doable) {
      await ports.reply.plan(action.plan, releaseOfAction(action));
      return 'not-done';
    }
    const answer = await ports.confirm.ask(action, requireApproval);
    if (answer === 'later') return 'done';
    if (answer === 'no') return 'not-done';
    return this.execute(action, ports, undefined);
  }

  /** A confirmed fleet freeze or lift: written to the fleet's keyspace; each named cluster's controller reads it within HELMCREW_FLEET_FREEZE_MS. */
  private async executeFleet(action: PreparedAction, ports: SessionPorts, approver: string | undefined): Promise<SessionEnd> {
    const store = this.deps.fleet?.freezes;
    if (!store) return this.stop(ports, NEEDS_A_FLEET, 'stopped');
    const progress = ports.progress(action, approver, this.deps.api);
    const toApply = await progress.started(action);
    const deps = { store, log: this.deps.ops.log, timeZone: this.deps.ops.timeZone };
    const actor = await ports.actor();
    let applied: { summary: string; failed?: boolean };
    try {
      applied = toApply.fleetFreeze ? await applyFleetFreeze(deps, toApply, actor, this.now()) : await applyFleetUnfreeze(deps, toApply, actor);
    } catch (error) {
      await progress.failed();
      throw error;
    }
    await progress.applied(applied.summary);
    await progress.finished([{ done: true, succeeded: !applied.failed, message: applied.summary }], applied.summary);
    return applied.failed ? 'not-done' : 'done';
  }

  /** A confirmed (and, under the two-person rule, approved) action: write it, then wait for the controller's report. */
  async execute(action: PreparedAction, ports: SessionPorts, approver: string | undefined): Promise<SessionEnd> {
    if (action.fleetFreeze || action.fleetUnfreeze) return this.executeFleet(action, ports, approver);
    const where = await this.clusterDeps(clusterOf(action.command), ports);
    if (!where.ok) return where.end;
    const deps = where.deps;
    const progress = ports.progress(action, approver, deps.api);
    const toApply = await progress.started(action);
    let applied;
    try {
      applied = await deps.ops.apply(toApply, await ports.actor(), approver);
    } catch (error) {
      await progress.failed();
      throw error;
    }
    await progress.applied(applied.summary);
    // A fleet agent refused or did not answer: nothing was written, nothing to wait for.
    if (applied.failed) {
      await progress.finished([{ done: true, succeeded: false, message: applied.summary }], applied.summary);
      return 'not-done';
    }
    if (!ports.awaitOutcome) return 'done';
    const outcomes = await awaitOutcomes(deps.api, action, applied.requestId, this.deps.outcomeTimeoutMs, 500, this.deps.clock ?? systemClock);
    await progress.finished(outcomes, applied.summary);
    return outcomes.every((o) => o.done && o.succeeded) ? 'done' : 'not-done';
  }

  /** Refused: recorded on the release (an Event) and in the log, and told; nothing changes. */
  async refuse(
    ports: SessionPorts,
    target: { namespace: string; name: string } | undefined,
    what: string,
    reason: string,
    cluster?: string,
  ): Promise<SessionEnd> {
    const fleet = this.deps.fleet;
    const remote = fleet && cluster && cluster !== fleet.own ? await fleet.route(cluster) : undefined;
    // Another cluster's release gets no Event from here (its agent writes none for a refusal): the bot's log line names the cluster.
    const release = target && !remote ? await this.deps.api.get(target.namespace, target.name) : undefined;
    await (remote?.ok ? remote.deps.ops : this.deps.ops).recordRefusal(release, await ports.actor(), what, reason);
    return this.stop(ports, `Refused: ${reason}. Nothing changed.`, 'stopped');
  }

  /** A stored action's cluster, routed again now (its agent may have stopped since the plan). */
  private async clusterDeps(cluster: string | undefined, ports: SessionPorts): Promise<Located> {
    if (!cluster || !this.deps.fleet) return { ok: true, deps: this.deps };
    return this.routed(this.deps.fleet, cluster, ports);
  }

  private async stop(ports: SessionPorts, text: string, kind: 'input' | 'stopped'): Promise<SessionEnd> {
    await ports.reply.say(text, kind);
    return kind === 'input' ? 'bad-input' : 'not-done';
  }
}

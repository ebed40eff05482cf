import type { HelmRelease } from '../../api/helmrelease.js';
import { decidePromotion, deployedChartVersion, reproposal, valueInEffect, type PromotionEnd } from '../../core/proposals/promotion.js';
import type { OpenOutcome } from '../../core/proposals/proposal-store.js';
import { releaseTarget } from '../../core/release/release-target.js';
import { releaseAuthzTarget } from '../authz/targets.js';
import type { CommandOf, Place, ReleaseRef } from '../grammar/command.js';
import { closest } from '../grammar/suggest.js';
import type { Actor } from '../plan/actor.js';
import { resolveRelease } from '../plan/resolve.js';
import { promotionReply } from '../render/promotion.js';
import type { ClusterDeps, FleetRouting } from './fleet-routing.js';
import type { Gate, SessionEnd, SessionPorts } from './ports.js';
import { DEFAULT_CLUSTER } from '../../core/fleet/cluster-keys.js';

/**
 * `/release promote <release> --from <place> --to <place>` (issue 35): both ends found (a place is
 * a cluster of the fleet, else a namespace of the bot's own cluster, or `cluster/namespace`), the
 * person authorized as for `upgrade` of the target, what the source runs compared with the
 * target (core/proposals/promotion.ts), and the proposal opened in the target cluster's store.
 * No plan to confirm: the proposal's Approve / Reject are its confirmation, and the target's
 * controller tells it (ProposalOpened → the Team channel's message) and applies it once approved.
 */

export type PromoteCommand = CommandOf<'promote'>;

export interface PromotionDeps {
  /** The bot's own cluster's parts, and its name (the proposals' `release.cluster`, as its controller names it). */
  own: ClusterDeps;
  ownCluster: string;
  fleet?: FleetRouting;
  gate: Pick<Gate, 'propose'>;
  actor(): Promise<Actor>;
  now(): Date;
}

/** How a promotion request ends: told (an answer, or why not), or refused (audited by the session). */
export type PromotionResult =
  | { kind: 'told'; text: string; as: 'info' | 'input' | 'stopped'; proposalId?: string }
  | { kind: 'refused'; target: { namespace: string; name: string }; cluster?: string; what: string; reason: string };

/** One end, found: the cluster's parts and name, and the release there. */
interface Found {
  deps: ClusterDeps;
  cluster: string;
  /** Read through the bot's own kubeconfig (values readable), or a fleet agent (values masked: fleet-query.ts). */
  own: boolean;
  release: HelmRelease;
}

/** The session's own cluster's name (its fleet's `own` when it drives one). */
export interface OwnClusterName {
  /** The bot's own cluster's name without a fleet (HELMCREW_CLUSTER_NAME, else `default`), as its controller names its proposals. */
  ownCluster?: string;
}

/** What the session lends a promotion: its parts, its clock, and how it refuses (audited) and stops. */
export interface PromotionSession {
  deps: ClusterDeps & OwnClusterName & { fleet?: FleetRouting };
  now(): Date;
  refuse(ports: SessionPorts, target: { namespace: string; name: string }, what: string, reason: string, cluster?: string): Promise<SessionEnd>;
  stop(ports: SessionPorts, text: string, kind: 'input' | 'stopped'): Promise<SessionEnd>;
}

/** `/release promote` in a session (session/release-session.ts): the result told, refused, or said. */
export async function runPromotion(command: PromoteCommand, ports: SessionPorts, session: PromotionSession): Promise<SessionEnd> {
  const { deps } = session;
  const result = await promote(command, {
    own: deps,
    ownCluster: deps.fleet?.own ?? deps.ownCluster ?? DEFAULT_CLUSTER,
    ...(deps.fleet ? { fleet: deps.fleet } : {}),
    gate: ports.gate,
    actor: () => ports.actor(),
    now: () => session.now(),
  });
  if (result.kind === 'refused') return session.refuse(ports, result.target, result.what, result.reason, result.cluster);
  if (result.as !== 'info') return session.stop(ports, result.text, result.as);
  await ports.reply.say(result.text, 'info');
  return 'done';
}

const told = (text: string, as: 'info' | 'input' | 'stopped'): PromotionResult => ({ kind: 'told', text, as });
const placeText = (place: Place) => (place.kind === 'word' ? place.word : `${place.cluster}/${place.namespace}`);

export async function promote(command: PromoteCommand, deps: PromotionDeps): Promise<PromotionResult> {
  const [from, to] = await Promise.all([locate(command.from, '--from', command.release, deps), locate(command.to, '--to', command.release, deps)]);
  if (!from.ok) return from.result;
  if (!to.ok) return to.result;
  const [source, target] = [from.found, to.found];
  const key = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;
  if (source.cluster === target.cluster && key(source.release) === key(target.release))
    return told(`--from and --to both name ${key(target.release)}: a promotion goes from one place to another`, 'input');
  const store = target.deps.proposals;
  if (!store) return told(`proposals cannot be opened from here (no proposal store for cluster ${target.cluster}); ask in Slack`, 'stopped');
  const inFleet = deps.fleet !== undefined;
  const refusal = await deps.gate.propose?.(releaseAuthzTarget(target.release, inFleet ? target.cluster : undefined));
  if (refusal)
    return {
      kind: 'refused',
      target: { namespace: target.release.metadata.namespace, name: target.release.metadata.name },
      ...(inFleet ? { cluster: target.cluster } : {}),
      what: `promote to ${key(target.release)}`,
      reason: `${refusal} (proposing a promotion takes \`upgrade\` on its target)`,
    };
  const [sourceEnd, targetEnd] = await Promise.all([endOf(source), endOf(target)]);
  const actor = await deps.actor();
  const now = deps.now().getTime();
  const decision = decidePromotion(sourceEnd, targetEnd, actor.id, now);
  if (decision.kind !== 'propose') return told(decision.message, decision.kind === 'refused' ? 'input' : 'stopped');
  let outcome: OpenOutcome = await store.open(decision.proposal);
  // The same change proposed before and closed since (rejected, expired, applied, replaced): asked again, it is a new proposal.
  if (outcome.kind === 'exists' && !['open', 'approved'].includes(outcome.proposal.state.phase)) outcome = await store.open(reproposal(decision.proposal, now));
  const proposal = outcome.proposal;
  deps.own.ops.log.info(
    {
      release: key(target.release),
      cluster: target.cluster,
      from: `${source.cluster}/${key(source.release)}`,
      action: 'promote',
      actor: actor.id,
      channel: actor.channel,
      proposalId: proposal.id,
      opened: outcome.kind === 'opened',
    },
    outcome.kind === 'opened' ? `promotion proposed: ${proposal.summary}` : 'promotion already proposed',
  );
  return { kind: 'told', text: promotionReply(outcome, decision.kept, key(target.release)), as: 'info', proposalId: proposal.id };
}

/** The chart version an end runs (its status, else Helm's records) and its values in effect, as far as they can be read from here. */
async function endOf(found: Found): Promise<PromotionEnd> {
  const { release } = found;
  let runs = deployedChartVersion(release);
  if (runs === undefined) {
    const target = releaseTarget(release);
    runs = await found.deps.storage.history(target.namespace, target.releaseName).then(
      (history) => history.deployed?.chartVersion,
      () => undefined,
    );
  }
  if (found.own) return { cluster: found.cluster, release, ...(runs !== undefined ? { runs } : {}), valueAt: (path) => valueInEffect(release, path) };
  // Through a fleet agent the declared values arrive masked: the agent answers the image values (at its imageUpdates paths), else the approved overrides (status) are all there is.
  const asked = found.deps.imageValues
    ? await found.deps.imageValues(release.metadata.namespace, release.metadata.name).catch((): Record<string, string> => ({}))
    : {};
  const overrides = (path: string) => release.status?.approvedOverrides?.find((entry) => entry.valuesPath === path)?.value;
  return { cluster: found.cluster, release, ...(runs !== undefined ? { runs } : {}), valueAt: (path) => asked[path] ?? overrides(path) };
}

type Located = { ok: true; found: Found } | { ok: false; result: PromotionResult };

/**
 * Where `place` is: `cluster/namespace`; one word naming a cluster of the fleet; else a namespace
 * of the bot's own cluster. The release is then found there by name (in that namespace, when one
 * is named here or in the release), and a typo is answered with what is near.
 */
async function locate(place: Place, flag: '--from' | '--to', ref: ReleaseRef, deps: PromotionDeps): Promise<Located> {
  const fail = (text: string, as: 'input' | 'stopped' = 'stopped'): Located => ({ ok: false, result: told(text, as) });
  const fleet = deps.fleet;
  const clusters = fleet ? (await fleet.members()).map((m) => m.name) : [deps.ownCluster];
  let cluster: string;
  let namespace: string | undefined;
  if (place.kind === 'pair') [cluster, namespace] = [place.cluster, place.namespace];
  else if (fleet && clusters.includes(place.word)) cluster = place.word;
  else [cluster, namespace] = [deps.ownCluster, place.word];
  if (namespace !== undefined && ref.namespace !== undefined && namespace !== ref.namespace)
    return fail(`the release names namespace ${ref.namespace} and ${flag} says ${namespace}: give the namespace in one place`, 'input');
  let parts: ClusterDeps;
  if (cluster === deps.ownCluster) parts = deps.own;
  else if (!fleet)
    return fail(
      `${flag} ${placeText(place)} names cluster ${cluster}: this bot drives only its own cluster (${deps.ownCluster}); name a namespace there`,
      'input',
    );
  else {
    const route = await fleet.route(cluster);
    if (!route.ok) return fail(`${flag} ${placeText(place)}: ${route.message}`);
    parts = route.deps;
  }
  const inNamespace = namespace ?? ref.namespace;
  const wanted: ReleaseRef = inNamespace !== undefined ? { namespace: inNamespace, name: ref.name } : { name: ref.name };
  let releases: HelmRelease[];
  try {
    // Named with its namespace: read by name (find-release.ts); the whole list only for a bare name or a miss (its hints).
    const named = wanted.namespace !== undefined ? await parts.api.get(wanted.namespace, wanted.name) : undefined;
    if (named) return { ok: true, found: { deps: parts, cluster, own: parts === deps.own, release: named } };
    releases = (await parts.api.list()).items;
  } catch (error) {
    return fail(`${flag} ${placeText(place)}: cluster ${cluster} could not be read: ${(error as Error).message}`);
  }
  const resolved = resolveRelease(wanted, releases);
  if (resolved.ok) return { ok: true, found: { deps: parts, cluster, own: parts === deps.own, release: resolved.release } };
  const where = fleet ? ` in cluster ${cluster}` : '';
  return fail(`${flag} ${placeText(place)}: ${resolved.message}${where}${typoHint(place, flag, ref, releases, fleet ? clusters : [])}`);
}

/** "did you mean": a namespace that has the release, or a cluster of the fleet, close to the word typed. */
function typoHint(place: Place, flag: string, ref: ReleaseRef, releases: readonly HelmRelease[], clusters: readonly string[]): string {
  if (place.kind !== 'word') return '';
  const namespaces = [...new Set(releases.filter((r) => r.metadata.name === ref.name).map((r) => r.metadata.namespace))];
  const namespace = closest(place.word, namespaces);
  if (namespace) return ` — did you mean ${flag} ${namespace}?`;
  const cluster = closest(place.word, clusters);
  return cluster ? ` — did you mean cluster ${cluster} (${flag} ${cluster})?` : '';
}

import { FREEZE_MESSAGE_ANNOTATION, WINDOW_WARNING_ANNOTATION } from '../../api/annotations.js';
import type { Freeze, FreezeScope } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Team } from '../../api/team.js';
import { API_GROUP, API_VERSION, ConditionType, FREEZE_KIND } from '../../api/vocabulary.js';
import { freezeActivity, freezesHolding, scopeCovers } from '../../core/release/freeze-match.js';
import { checkWindow, nextWindowStart } from '../../core/release/freeze-windows.js';
import { releaseFacts } from '../../core/release/team-releases.js';
import type { Scope } from '../grammar/command.js';
import type { MutatingCommand } from '../grammar/command.js';
import { freezeEndsAt } from '../grammar/flags.js';
import type { Actor } from './actor.js';
import { gitOpsOwner } from '../../core/release/gitops-owner.js';
import type { Plan } from './plan.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/**
 * Pure: the Freeze object a `/release freeze` creates, and the plans of freeze and unfreeze. The
 * bot only writes the Freeze; the controller holds the releases (controller/reconcile/stages/freeze-gate.ts).
 */

type FreezeCommand = Extract<MutatingCommand, { verb: 'freeze' }>;
const keyOf = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;
const SHOWN = 10;

export function scopeSpec(scope: Scope): FreezeScope {
  switch (scope.kind) {
    case 'all':
      return { all: true };
    case 'namespace':
      return { namespaces: [scope.namespace] };
    case 'team':
      return { teams: [scope.team] };
    case 'chart':
      return { charts: [scope.chart] };
    case 'clusters':
      // A fleet freeze: every release of each cluster it names (plan/fleet-freeze.ts keeps the clusters).
      return { all: true };
  }
}

export function describeScope(scope: FreezeScope): string {
  if (scope.all) return 'every release in the cluster';
  const parts = [
    ...(scope.namespaces ? [`namespace ${scope.namespaces.join(', ')}`] : []),
    ...(scope.teams ? [`team ${scope.teams.join(', ')}`] : []),
    ...(scope.charts ? [`chart ${scope.charts.join(', ')}`] : []),
  ];
  return parts.join(' and ');
}

/** A short name people can type back: `prod-7f3a`, `team-frontend-7f3a`, `all-7f3a`. */
export function freezeName(scope: Scope, suffix: string): string {
  const base =
    scope.kind === 'all'
      ? 'all'
      : scope.kind === 'namespace'
        ? scope.namespace
        : scope.kind === 'clusters'
          ? `cluster-${scope.clusters.replace(/\*+/g, '-').replace(/--+/g, '-').replace(/^-|-$/g, '') || 'all'}`
          : `${scope.kind}-${scope.kind === 'team' ? scope.team : scope.chart}`;
  const cleaned = base
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+$/, '')
    .slice(0, 240);
  return `${cleaned}-${suffix}`;
}

export function buildFreeze(command: FreezeCommand, actor: Actor, now: Date, timeZone: string, name: string): Freeze {
  const window = command.window;
  return {
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: FREEZE_KIND,
    metadata: { name, ...(window?.warn ? { annotations: { [WINDOW_WARNING_ANNOTATION]: window.warn.text } } : {}) },
    spec: {
      // Read in HELMCREW_TIME_ZONE, as --until 18:00 is.
      ...(window ? { windows: [{ schedule: window.schedule, duration: window.duration, ...(timeZone !== 'UTC' ? { timeZone } : {}) }] } : {}),
      scope: scopeSpec(command.scope),
      reason: command.reason,
      setBy: actor.id,
      ...(actor.channel ? { channel: actor.channel } : {}),
      ...(command.end
        ? {
            until: freezeEndsAt(command.end, now, timeZone)
              .toISOString()
              .replace(/\.\d{3}Z$/, 'Z'),
          }
        : {}),
    },
  };
}

/** Pure: which of these releases the scope covers (being deleted or not). */
export function releasesInScope(scope: FreezeScope, releases: readonly HelmRelease[], teams: readonly Team[]): HelmRelease[] {
  return releases.filter((r) => scopeCovers(scope, releaseFacts(r), teams)).sort((a, b) => byCodeUnits(keyOf(a), keyOf(b)));
}

function names(list: HelmRelease[]): string {
  const shown = list.slice(0, SHOWN).map(keyOf).join(', ');
  return list.length > SHOWN ? `${shown} and ${list.length - SHOWN} more` : shown;
}

/** Pure: the plan's lines about a freeze's windows: when they open, for how long, and what the channel hears. */
export function windowLines(freeze: Freeze, now: Date): string[] {
  const windows = freeze.spec.windows ?? [];
  if (windows.length === 0) return [];
  const warn = freeze.metadata.annotations?.[WINDOW_WARNING_ANNOTATION];
  return [
    ...windows.map((w) => {
      const next = nextWindowStart(w, now);
      return `holds only while a window is open: "${w.schedule}" (${w.timeZone ?? 'UTC'}) for ${w.duration} each${next ? `; next opens ${next.toISOString()}` : ''}`;
    }),
    `${warn ? `the channel is told ${warn} before each window opens, and ` : 'the channel is told '}when each closes, with what it held`,
  ];
}

export function planFreeze(freeze: Freeze, releases: readonly HelmRelease[], teams: readonly Team[], now: Date): Plan {
  const badWindows = (freeze.spec.windows ?? []).flatMap((w) => {
    const check = checkWindow(w);
    return check.ok ? [] : [`${check.message}; write a cron like "0 18 * * FRI" (minute hour day month weekday)`];
  });
  if (badWindows.length > 0) return { title: `freeze ${describeScope(freeze.spec.scope)}`, lines: badWindows, warnings: [], doable: false };
  const covered = releasesInScope(freeze.spec.scope, releases, teams);
  const scope = describeScope(freeze.spec.scope);
  const managed = covered.filter((r) => gitOpsOwner(r));
  const teamMissing = (freeze.spec.scope.teams ?? []).filter((t) => !teams.some((team) => team.metadata.name === t));
  const lines = [
    `creates Freeze ${freeze.metadata.name}: the controller runs no helm action (install, upgrade, rollback, uninstall, remediation, test) for ${scope}`,
    covered.length
      ? `covers ${covered.length} release${covered.length === 1 ? '' : 's'} now: ${names(covered)}`
      : 'covers no release now; HelmReleases created there later are held too',
    ...windowLines(freeze, now),
    `specs are kept: what changes meanwhile (from Git, kubectl or chat) is applied when the ${freeze.spec.windows?.length ? 'window closes' : 'freeze ends'}`,
    freeze.spec.until ? `ends by itself at ${freeze.spec.until}` : `until lifted: /release unfreeze ${freeze.metadata.name}`,
    `reason: ${freeze.spec.reason}`,
  ];
  const warnings = [
    ...(teamMissing.length ? [`no Team named ${teamMissing.join(', ')}: this freeze holds nothing until one exists`] : []),
    ...(managed.length
      ? [
          `${managed.length} of these ${managed.length === 1 ? 'is' : 'are'} managed by ${[...new Set(managed.map((r) => gitOpsOwner(r)))].join(', ')}: the freeze is its own object, so their syncs cannot undo it; what Git changes waits until it ends`,
        ]
      : []),
  ];
  return { title: `freeze ${scope} (${freeze.metadata.name})`, lines, warnings, doable: true };
}

const frozen = (r: HelmRelease) => r.status?.conditions?.some((c) => c.type === ConditionType.Frozen && c.status === 'True') ?? false;

/** Pure: what lifting `name` lets go (`goOn`), and what other freezes keep holding. */
export function planUnfreeze(
  name: string,
  freezes: readonly Freeze[],
  releases: readonly HelmRelease[],
  teams: readonly Team[],
  now: Date,
): { plan: Plan; goOn: HelmRelease[] } {
  const freeze = freezes.find((f) => f.metadata.name === name);
  const title = `unfreeze ${name}`;
  if (!freeze) {
    const active = freezes.filter((f) => freezeActivity(f, now).active).map((f) => f.metadata.name);
    const lines = [`no freeze named ${name}; ${active.length ? `active: ${active.join(', ')}` : 'no freeze is active'}`];
    return { plan: { title, lines, warnings: [], doable: false }, goOn: [] };
  }
  const others = freezes.filter((f) => f.metadata.name !== name);
  const held = releasesInScope(freeze.spec.scope, releases, teams).filter(frozen);
  const stillHeld = held.filter((r) => freezesHolding(releaseFacts(r), others, teams, now).length > 0);
  const goOn = held.filter((r) => !stillHeld.includes(r));
  const lines = [
    `lifts Freeze ${name} on ${describeScope(freeze.spec.scope)} (${freeze.spec.reason}${freeze.spec.setBy ? `, set by ${freeze.spec.setBy}` : ''})`,
    goOn.length
      ? `the controller goes on with ${goOn.length} held release${goOn.length === 1 ? '' : 's'} at once: ${names(goOn)}`
      : 'no release is held by it alone',
    ...stillHeld
      .map(
        (r) =>
          `${keyOf(r)} stays held by ${freezesHolding(releaseFacts(r), others, teams, now)
            .map((f) => f.name)
            .join(', ')}`,
      )
      .slice(0, SHOWN),
  ];
  return { plan: { title, lines, warnings: [], doable: true }, goOn };
}

/** Pure: the Freeze to create, carrying where its channel message is (so its end, however it comes, can update that message). */
export function withMessageRef(freeze: Freeze, channel: string, ts: string): Freeze {
  return { ...freeze, metadata: { ...freeze.metadata, annotations: { ...freeze.metadata.annotations, [FREEZE_MESSAGE_ANNOTATION]: `${channel}/${ts}` } } };
}

/** Pure: the channel message of a freeze, or undefined when it was not set from Slack. */
export function messageRefOf(freeze: Freeze | undefined): { channel: string; ts: string } | undefined {
  const ref = freeze?.metadata.annotations?.[FREEZE_MESSAGE_ANNOTATION];
  const slash = ref?.indexOf('/') ?? -1;
  return ref && slash > 0 ? { channel: ref.slice(0, slash), ts: ref.slice(slash + 1) } : undefined;
}

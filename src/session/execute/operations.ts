import { randomBytes } from 'node:crypto';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Freeze } from '../../api/freeze.js';
import { RELEASE_VERBS, type VerbRow } from '../../api/release-verbs.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi, IntentPatch } from '../../core/kube/helmrelease-api.js';
import type { TeamApi } from '../../core/kube/team-api.js';
import { freezesHolding } from '../../core/release/freeze-match.js';
import { releaseTarget } from '../../core/release/release-target.js';
import { releaseFacts } from '../../core/release/team-releases.js';
import type { Logger } from '../../core/log.js';
import type { RequesterLedger } from '../../core/requests/requester-ledger.js';
import type { MutatingCommand } from '../grammar/command.js';
import type { ChangePreviews } from './preview-client.js';
import type { Actor } from '../plan/actor.js';
import { freezeName } from '../plan/freeze.js';
import { NEEDS_A_FLEET } from '../fleet/fleet-freeze-plan.js';
import { intentPatch } from '../verbs/intent-of.js';
import {
  draftOf,
  draftReleaseCommand,
  isFreezeCommand,
  planned,
  prepareFreeze,
  prepareUnfreeze,
  stillAsPlanned,
  type Draft,
  type Drafted,
  type Prepared,
  type PreparedAction,
} from '../plan/prepared.js';
import type { Resolution } from '../plan/resolve.js';
import { findRelease } from './find-release.js';
import { auditMessage, refusalMessage } from '../render/audit.js';
import { applyFreeze, applyUnfreeze, breakGlassPatch } from './freeze-writes.js';

export const BOT_FIELD_MANAGER = 'helmcrew-bot';

/** Requests the controller handles once, by id (rollback, drift correction, retry): the verb table names the prefix. */
function requestIdFor(verb: MutatingCommand['verb']): string | undefined {
  const prefix = (RELEASE_VERBS[verb] as VerbRow).requestIdPrefix;
  return prefix ? `${prefix}-${randomBytes(6).toString('hex')}` : undefined;
}

/** What the execution path reads and writes of one cluster: its API server, or a fleet agent through Redis (session/fleet/). */
export type ReleaseApiPort = Pick<HelmReleaseApi, 'list' | 'get' | 'patchIntent'>;
export type FreezePort = Pick<FreezeApi, 'list' | 'create' | 'delete'>;
export type StoragePort = Pick<ReleaseStorage, 'history'>;

/** Writes an intent somewhere other than through `api.patchIntent`: a fleet agent, with who asks and why (session/fleet/remote-cluster.ts). */
export type IntentWriter = (
  target: { namespace: string; name: string },
  patch: IntentPatch,
  about: { verb: MutatingCommand['verb']; actor: Actor; reason?: string },
) => Promise<HelmRelease>;

export interface OperationsDeps {
  api: ReleaseApiPort;
  freezes: FreezePort;
  teams: Pick<TeamApi, 'list'>;
  storage: StoragePort;
  /** A fleet's cluster: named in the log lines; its intents go through `writeIntent`. */
  cluster?: string;
  writeIntent?: IntentWriter;
  events: ReleaseEventSink;
  log: Logger;
  now: () => Date;
  /** The zone `--until 18:00` is read in (HELMCREW_TIME_ZONE, default UTC). */
  timeZone: string;
  /** What upgrade and resume plans would change (the controller renders it); plans go without it when absent. */
  previews?: ChangePreviews;
  /** A fleet's own cluster: the fleet freezes taking it in (kept in Redis, honoured by its controller), warned of as its Freezes are. */
  fleetFreezes?: () => Promise<Freeze[]>;
  /** Where who asked is kept for the controller's reports (Redis); without it reports name nobody. */
  requesters?: Pick<RequesterLedger, 'record'>;
}

export interface Applied {
  /** One line per release changed; the caller posts it in the channel / prints it. */
  summary: string;
  /** The request id, when a rollback or a correction was asked for (to await its outcome). */
  requestId?: string;
  /** A fleet agent refused or did not answer: there is no outcome to await. */
  failed?: boolean;
}

/**
 * The one execution path for `/release` from Slack and from the terminal: read what the plan
 * needs, let plan/ decide, and on confirmation write the intent to the API server through
 * HelmReleaseApi and FreezeApi (never helm), with an audit Event and log line.
 */
export class ReleaseOperations {
  constructor(private readonly deps: OperationsDeps) {}

  /** The log and the zone of `--until` the session's fleet freezes share with this path (session/release-session.ts). */
  get log(): Logger {
    return this.deps.log;
  }

  get timeZone(): string {
    return this.deps.timeZone;
  }

  async resolve(ref: { namespace?: string; name: string }): Promise<Resolution> {
    return findRelease(this.deps.api, ref);
  }

  /** Reads what the command's plan needs, once, and leaves the plan to build (`plan`) after authorization. */
  async draft(command: MutatingCommand, actor: Actor): Promise<Drafted> {
    const now = this.deps.now();
    if (command.verb === 'freeze') {
      // Whole clusters are frozen by the fleet's bot (session/release-session.ts), in Redis, not as a Freeze object here.
      if (command.scope.kind === 'clusters') return { ok: false, message: NEEDS_A_FLEET };
      const namespace = command.scope.kind === 'namespace' ? command.scope.namespace : undefined;
      const [releases, teams] = await Promise.all([this.deps.api.list(namespace), this.deps.teams.list()]);
      const name = freezeName(command.scope, randomBytes(2).toString('hex'));
      return { ok: true, draft: draftOf(prepareFreeze(command, { releases: releases.items, teams: teams.items }, actor, now, this.deps.timeZone, name)) };
    }
    if (command.verb === 'unfreeze') {
      const [releases, teams, freezes] = await Promise.all([this.deps.api.list(), this.deps.teams.list(), this.deps.freezes.list()]);
      return { ok: true, draft: draftOf(prepareUnfreeze(command, { releases: releases.items, teams: teams.items, freezes: freezes.items }, now)) };
    }
    const resolved = await this.resolve(command.release);
    if (!resolved.ok) return resolved;
    const release = resolved.release;
    const target = releaseTarget(release);
    const [history, freezes, teams, fleetFreezes] = await Promise.all([
      // Only a rollback's plan compares two revisions' values and objects; every other verb reads the summaries.
      this.deps.storage.history(target.namespace, target.releaseName, { summary: command.verb !== 'rollback' }),
      this.deps.freezes.list(),
      this.deps.teams.list(),
      this.deps.fleetFreezes?.() ?? [],
    ]);
    const holding = freezesHolding(releaseFacts(release), [...freezes.items, ...fleetFreezes], teams.items, now);
    return { ok: true, draft: draftReleaseCommand(command, release, history, holding) };
  }

  /**
   * The plan, built once from the draft's reads, with what the change would do to the cluster's
   * objects when the controller can say (upgrade, resume). Asked only after the person is
   * authorized: a preview costs the controller a helm process.
   */
  async plan(draft: Draft): Promise<PreparedAction> {
    const preview = draft.release && !isFreezeCommand(draft.command) ? await this.previewFor(draft.command, draft.release) : undefined;
    return planned(draft, preview);
  }

  /** Draft and plan at once, without a preview: for callers that authorize nothing (tests, scripts). */
  async prepare(command: MutatingCommand, actor: Actor): Promise<Prepared> {
    const drafted = await this.draft(command, actor);
    return drafted.ok ? { ok: true, action: planned(drafted.draft) } : drafted;
  }

  /** Upgrade: the spec at the new version. Resume of a suspended release: the spec as declared. */
  private async previewFor(command: MutatingCommand, release: HelmRelease): Promise<PreviewResult | undefined> {
    const previews = this.deps.previews;
    if (!previews) return undefined;
    const { namespace, name } = release.metadata;
    if (command.verb === 'upgrade' && command.version !== release.spec.chart.version) return previews.preview({ namespace, name, version: command.version });
    if (command.verb === 'resume' && release.spec.suspend) return previews.preview({ namespace, name });
    return undefined;
  }

  /**
   * Writes the intent. Each release is re-read first: if its spec changed since the plan was
   * shown, the plan no longer says what would happen, so that release is not touched. A
   * break-glass change names the second person (`approvedBy`: a Slack user id, or an actor id from the web).
   */
  async apply(action: PreparedAction, actor: Actor, approvedBy?: string): Promise<Applied> {
    const now = this.deps.now();
    if (action.freeze) return applyFreeze(this.deps, action, actor, now);
    if (action.command.verb === 'unfreeze') return applyUnfreeze(this.deps, action, actor);
    const requestId = requestIdFor(action.command.verb);
    const lines: string[] = [];
    let failed = false;
    for (const target of action.targets) {
      const key = `${target.namespace}/${target.name}`;
      const check = stillAsPlanned(target, await this.deps.api.get(target.namespace, target.name));
      if (!check.ok) {
        lines.push(check.line);
        continue;
      }
      const patch = intentPatch(action, actor, now, requestId);
      const breakGlass = action.breakGlass
        ? { freezes: action.breakGlass, approvedBy: approvedBy?.includes(':') ? approvedBy : `slack:${approvedBy ?? '?'}` }
        : undefined;
      const written = breakGlass ? breakGlassPatch(patch, check.release, actor, breakGlass, now) : patch;
      let patched: HelmRelease;
      if (this.deps.writeIntent) {
        // A fleet agent may refuse or not answer: said in the line, and nothing is awaited for it.
        try {
          patched = await this.deps.writeIntent(target, written, {
            verb: action.command.verb,
            actor,
            ...(action.command.reason ? { reason: action.command.reason } : {}),
          });
        } catch (error) {
          lines.push(`${key}: not written in cluster ${this.deps.cluster ?? '?'}: ${(error as Error).message}; nothing done`);
          failed = true;
          continue;
        }
      } else patched = await this.deps.api.patchIntent(target.namespace, target.name, written, BOT_FIELD_MANAGER);
      await this.recordRequester(patched, actor, action.command.verb, requestId, now);
      const message = auditMessage(action.command, actor, key, breakGlass);
      await this.deps.events.record(check.release, ReleaseEvent.ActionRequested, message);
      this.deps.log.info(
        {
          release: key,
          ...(this.deps.cluster ? { cluster: this.deps.cluster } : {}),
          action: action.command.verb,
          actor: actor.id,
          channel: actor.channel,
          reason: action.command.reason,
          requestId,
          ...(breakGlass ? { breakGlass: breakGlass.freezes, approvedBy: breakGlass.approvedBy } : {}),
        },
        'release action requested',
      );
      lines.push(message);
    }
    return { summary: lines.length ? lines.join('\n') : 'nothing to do', ...(requestId ? { requestId } : {}), ...(failed ? { failed } : {}) };
  }

  /**
   * Who asked, for the controller's reports: by request id, or by the generation the patch made (a
   * spec change). Not recorded is not fatal: the change is written, its report then names nobody.
   */
  private async recordRequester(patched: HelmRelease, actor: Actor, verb: string, requestId: string | undefined, now: Date): Promise<void> {
    const { uid, generation, namespace, name } = patched.metadata;
    if (!this.deps.requesters || !uid) return;
    const key = requestId ? { requestId } : generation !== undefined ? { generation } : undefined;
    if (!key) return;
    const requester = { id: actor.id, ...(actor.name ? { name: actor.name } : {}) };
    await this.deps.requesters
      .record(uid, key, { requester, verb, at: now.toISOString() })
      .catch((error: Error) => this.deps.log.warn({ release: `${namespace}/${name}`, error: error.message }, 'who asked could not be recorded'));
  }

  /** Audit of a refusal: an Event on the release (when there is one) and a log line. Nothing changes. */
  async recordRefusal(release: HelmRelease | undefined, actor: Actor, what: string, why: string): Promise<void> {
    const message = refusalMessage(actor, what, why);
    if (release) await this.deps.events.record(release, ReleaseEvent.ActionRefused, message);
    this.deps.log.warn(
      {
        release: release ? `${release.metadata.namespace}/${release.metadata.name}` : undefined,
        ...(this.deps.cluster ? { cluster: this.deps.cluster } : {}),
        actor: actor.id,
        channel: actor.channel,
        what,
      },
      message,
    );
  }
}

import { randomBytes } from 'node:crypto';
import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { releaseTarget } from '../../core/release/release-target.js';
import type { Logger } from '../../core/log.js';
import type { MutatingCommand } from '../grammar/command.js';
import type { Actor } from '../plan/actor.js';
import { intentPatch } from '../plan/intents.js';
import { isFreezeCommand, prepareFreeze, prepareReleaseCommand, stillAsPlanned, type Prepared, type PreparedAction } from '../plan/prepared.js';
import { resolveRelease, type Resolution } from '../plan/resolve.js';
import { auditMessage, refusalMessage } from '../render/audit.js';

export const BOT_FIELD_MANAGER = 'helmcrew-bot';

/** Requests the controller handles once, by id: a rollback and a drift correction. */
function requestIdFor(verb: MutatingCommand['verb']): string | undefined {
  if (verb === 'rollback') return `rb-${randomBytes(6).toString('hex')}`;
  if (verb === 'correct') return `dc-${randomBytes(6).toString('hex')}`;
  return undefined;
}

export interface OperationsDeps {
  api: HelmReleaseApi;
  storage: ReleaseStorage;
  events: ReleaseEventSink;
  log: Logger;
  now: () => Date;
}

export interface Applied {
  /** One line per release changed; the caller posts it in the channel / prints it. */
  summary: string;
  /** The request id, when a rollback or a correction was asked for (to await its outcome). */
  requestId?: string;
}

/**
 * The one execution path for `/release` from Slack and from the terminal: read what the plan
 * needs, let plan/ decide, and on confirmation write the intent to the API server through
 * HelmReleaseApi (never helm), with an audit Event and log line.
 */
export class ReleaseOperations {
  constructor(private readonly deps: OperationsDeps) {}

  async resolve(ref: { namespace?: string; name: string }): Promise<Resolution> {
    const { items } = await this.deps.api.list(ref.namespace);
    return resolveRelease(ref, items);
  }

  async prepare(command: MutatingCommand): Promise<Prepared> {
    if (isFreezeCommand(command)) {
      const { items } = await this.deps.api.list(command.scope.kind === 'namespace' ? command.scope.namespace : undefined);
      return { ok: true, action: prepareFreeze(command, items, `fz-${randomBytes(4).toString('hex')}`) };
    }
    const resolved = await this.resolve(command.release);
    if (!resolved.ok) return resolved;
    const target = releaseTarget(resolved.release);
    const history = await this.deps.storage.history(target.namespace, target.releaseName);
    return { ok: true, action: prepareReleaseCommand(command, resolved.release, history) };
  }

  /**
   * Writes the intent. Each release is re-read first: if its spec changed since the plan was
   * shown, the plan no longer says what would happen, so that release is not touched.
   */
  async apply(action: PreparedAction, actor: Actor): Promise<Applied> {
    const now = this.deps.now();
    const requestId = requestIdFor(action.command.verb);
    const lines: string[] = [];
    for (const target of action.targets) {
      const check = stillAsPlanned(target, await this.deps.api.get(target.namespace, target.name));
      if (!check.ok) {
        lines.push(check.line);
        continue;
      }
      const key = `${target.namespace}/${target.name}`;
      await this.deps.api.patchIntent(target.namespace, target.name, intentPatch(action, actor, now, requestId), BOT_FIELD_MANAGER);
      const message = auditMessage(action.command, actor, key);
      await this.deps.events.record(check.release, ReleaseEvent.ActionRequested, message);
      this.deps.log.info(
        {
          release: key,
          action: action.command.verb,
          actor: actor.id,
          channel: actor.channel,
          reason: action.command.reason,
          requestId,
          freezeId: action.freezeId,
        },
        'release action requested',
      );
      lines.push(message);
    }
    return { summary: lines.length ? lines.join('\n') : 'nothing to do', ...(requestId ? { requestId } : {}) };
  }

  /** Audit of a refusal: an Event on the release (when there is one) and a log line. Nothing changes. */
  async recordRefusal(release: HelmRelease | undefined, actor: Actor, what: string, why: string): Promise<void> {
    const message = refusalMessage(actor, what, why);
    if (release) await this.deps.events.record(release, ReleaseEvent.ActionRefused, message);
    this.deps.log.warn(
      { release: release ? `${release.metadata.namespace}/${release.metadata.name}` : undefined, actor: actor.id, channel: actor.channel, what },
      message,
    );
  }
}

import { randomBytes } from 'node:crypto';
import type { HelmRelease } from '../../api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL, ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import { mergePatch, type KubeClients } from '../../core/kube/kube-clients.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { releaseTarget } from '../../core/release/release-target.js';
import type { Logger } from '../../core/log.js';
import type { MutatingCommand } from '../grammar/command.js';
import { planFreeze, planReleaseCommand } from '../plan/plan.js';
import type { Actor } from './actor.js';
import { selectFreeze, selectUnfreeze } from './freeze.js';
import { freezePatch, resumePatch, rollbackPatch, suspendPatch, upgradePatch, type MergePatch } from './intents.js';
import type { Prepared, PreparedAction } from './prepared.js';
import { resolveRelease, type Resolution } from './resolve.js';

export const BOT_FIELD_MANAGER = 'helmcrew-bot';

export interface OperationsDeps {
  kube: KubeClients;
  api: HelmReleaseApi;
  storage: ReleaseStorage;
  events: ReleaseEventSink;
  log: Logger;
  now: () => Date;
}

export interface Applied {
  /** One line per release changed; the caller posts it in the channel / prints it. */
  summary: string;
  /** The rollback request id, when a rollback was asked for (to await its outcome). */
  requestId?: string;
}

/**
 * The one execution path for `/release` from Slack and from the terminal: resolve, plan, and on
 * confirmation write the intent to the API server (never helm), with an audit Event and log line.
 */
export class ReleaseOperations {
  constructor(private readonly deps: OperationsDeps) {}

  async resolve(ref: { namespace?: string; name: string }): Promise<Resolution> {
    const { items } = await this.deps.api.list(ref.namespace);
    return resolveRelease(ref, items);
  }

  async prepare(command: MutatingCommand): Promise<Prepared> {
    if (command.verb === 'freeze' || command.verb === 'unfreeze') {
      const { items } = await this.deps.api.list(command.scope.kind === 'namespace' ? command.scope.namespace : undefined);
      const scopeText = command.scope.kind === 'all' ? 'every namespace' : `namespace ${command.scope.namespace}`;
      const freeze = selectFreeze(items, command.scope);
      const affected = command.verb === 'freeze' ? freeze.suspend : selectUnfreeze(items, command.scope);
      const plan = planFreeze(command.verb, scopeText, affected, command.verb === 'freeze' ? freeze.alreadySuspended : [], command.reason);
      const action: PreparedAction = { command, targets: affected.map(targetOf), plan };
      if (command.verb === 'freeze') action.freezeId = `fz-${randomBytes(4).toString('hex')}`;
      return { ok: true, action };
    }
    const resolved = await this.resolve(command.release);
    if (!resolved.ok) return resolved;
    const release = resolved.release;
    const target = releaseTarget(release);
    const history = await this.deps.storage.history(target.namespace, target.releaseName);
    const plan = planReleaseCommand(command, release, history);
    return { ok: true, action: { command, targets: [targetOf(release)], plan } };
  }

  /**
   * Writes the intent. Each release is re-read first: if its spec changed since the plan was
   * shown, the plan no longer says what would happen, so that release is not touched.
   */
  async apply(action: PreparedAction, actor: Actor): Promise<Applied> {
    const now = this.deps.now();
    const requestId = action.command.verb === 'rollback' ? `rb-${randomBytes(6).toString('hex')}` : undefined;
    const lines: string[] = [];
    for (const target of action.targets) {
      const current = await this.deps.api.get(target.namespace, target.name);
      const key = `${target.namespace}/${target.name}`;
      if (!current) {
        lines.push(`${key}: gone since the plan; nothing done`);
        continue;
      }
      if (current.metadata.generation !== target.generation) {
        lines.push(`${key}: changed since the plan (generation ${target.generation} → ${current.metadata.generation}); nothing done, ask again`);
        continue;
      }
      const patch = this.patchFor(action, actor, now, requestId);
      await this.deps.kube.custom.patchNamespacedCustomObject(
        {
          group: API_GROUP,
          version: API_VERSION,
          plural: HELMRELEASE_PLURAL,
          namespace: target.namespace,
          name: target.name,
          body: patch,
          fieldManager: BOT_FIELD_MANAGER,
        },
        mergePatch,
      );
      const message = auditMessage(action.command, actor, key);
      await this.deps.events.record(current, ReleaseEvent.ActionRequested, message);
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
    const message = `${actor.id}${actor.channel ? ` in ${actor.channel}` : ''} was refused ${what}: ${why}`;
    if (release) await this.deps.events.record(release, ReleaseEvent.ActionRefused, message);
    this.deps.log.warn(
      { release: release ? `${release.metadata.namespace}/${release.metadata.name}` : undefined, actor: actor.id, channel: actor.channel, what },
      message,
    );
  }

  private patchFor(action: PreparedAction, actor: Actor, now: Date, requestId: string | undefined): MergePatch {
    const command = action.command;
    switch (command.verb) {
      case 'suspend':
        return suspendPatch(actor, command.reason, now);
      case 'resume':
      case 'unfreeze':
        return resumePatch();
      case 'upgrade':
        return upgradePatch(command.version);
      case 'rollback':
        return rollbackPatch(actor, command.reason, command.revision, requestId!, now);
      case 'freeze':
        return freezePatch(actor, command.reason, action.freezeId!, now);
    }
  }
}

function targetOf(release: HelmRelease): PreparedAction['targets'][number] {
  return { namespace: release.metadata.namespace, name: release.metadata.name, chart: release.spec.chart.name, generation: release.metadata.generation ?? 0 };
}

export function auditMessage(command: MutatingCommand, actor: Actor, key: string): string {
  const what =
    command.verb === 'rollback'
      ? `rollback of ${key} to ${command.revision ?? 'the previous revision'}`
      : command.verb === 'upgrade'
        ? `upgrade of ${key} to ${command.version}`
        : `${command.verb} of ${key}`;
  return `${actor.id}${actor.channel ? ` in ${actor.channel}` : ''} asked for the ${what}${command.reason ? `: ${command.reason}` : ''}`;
}

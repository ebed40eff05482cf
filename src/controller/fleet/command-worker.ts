import { Worker, type Job } from 'bullmq';
import type { RedisConnection } from '../../core/redis.js';
import type { Freeze } from '../../api/freeze.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import { clusterKey, QUEUE_NAMES } from '../../core/fleet/cluster-keys.js';
import type { CommandOutcome } from '../../core/fleet/command-protocol.js';
import { eventsForFleet } from '../../core/fleet/fleet-events.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { releaseEventLister } from './release-events.js';
import { releaseObjectRows } from './release-objects.js';
import type { TenancyPolicy } from '../../core/release/tenancy-policy.js';
import {
  historyForFleet,
  imageValuesForFleet,
  maskKeyOf,
  QUERY_JOB,
  releaseForFleet,
  verifyQuery,
  type QueryAnswer,
  type SignedQuery,
} from '../../core/fleet/fleet-query.js';
import { nonceTtlMs, verifyCommand, type SignedCommand } from '../../core/fleet/signed-command.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { Logger } from '../../core/log.js';
import { servesNamespace } from '../preview/preview-worker.js';

/** The field manager of intents written on the bot's behalf: the bot's own, so chat's writes look alike wherever they were made. */
export const FLEET_COMMAND_FIELD_MANAGER = 'helmcrew-bot';

export interface CommandWorkerOptions {
  connection: RedisConnection;
  /** This cluster's keyspace (the queue lives there) and name (a command must be signed for it). */
  prefix: string;
  cluster: string;
  /** HELMCREW_COMMAND_KEY: never logged. */
  key: string;
  api: HelmReleaseApi;
  /** The namespaces this controller watches (all when empty): a query answers about these only, as its cluster is what it drives. */
  namespaces?: readonly string[];
  /** Helm's records, for the bot's `history`, `diff` and rollback plans (read-only queries). */
  storage: Pick<ReleaseStorage, 'history'>;
  /** The Freezes that hold in this cluster (its own and the fleet's taking it in), for the bot's plans. */
  freezes: () => Promise<Freeze[]>;
  /** This cluster's API server, for the Events recorded on a HelmRelease (the web's timeline of it: only people's actions and proposals leave). */
  rest?: KubeRest;
  /** Who a release acts as: its objects are read as that identity for the web's `objects` question (as drift detection reads them). */
  tenancy?: TenancyPolicy;
  events: ReleaseEventSink;
  log: Logger;
  now?: () => number;
}

/**
 * The agent's end of the fleet's command channel (core/fleet/signed-command.ts): verifies each
 * command, remembers its nonce until it expires (SET NX: a second delivery of the same command is a
 * replay), and writes the intent to the HelmRelease in this cluster — the controller then acts on
 * it as on chat's own writes. A refusal is logged (never with the key or the signature) and
 * answered; nothing is retried, the person asking is waiting.
 */
export function startCommandWorker(opts: CommandWorkerOptions): Worker<SignedCommand | SignedQuery, CommandOutcome | QueryAnswer> {
  const now = opts.now ?? Date.now;
  const maskKey = maskKeyOf(opts.key);
  const releaseEvents = opts.rest && releaseEventLister(opts.rest);
  const objectRows = opts.rest && opts.tenancy && releaseObjectRows(opts.rest, opts.tenancy);
  /** A read-only question: answered from this cluster's API server and Helm's records, with nothing secret in the answer (fleet-query.ts). */
  const answer = async (data: unknown): Promise<QueryAnswer> => {
    const verdict = verifyQuery(data, opts.cluster, opts.key, now());
    if (!verdict.ok) {
      opts.log.warn({ cluster: opts.cluster }, `fleet query refused: ${verdict.message}`);
      return { ok: false, message: verdict.message };
    }
    const question = verdict.query.question;
    const served = (namespace: string) => servesNamespace(opts.namespaces ?? [], namespace);
    try {
      if (question.kind === 'freezes') return { ok: true, kind: 'freezes', freezes: await opts.freezes() };
      if (question.kind === 'list') {
        const items = (await opts.api.list(question.namespace)).items.filter((r) => served(r.metadata.namespace));
        return { ok: true, kind: 'list', releases: items.map((r) => releaseForFleet(r, maskKey)) };
      }
      if (!served(question.namespace))
        return question.kind === 'get'
          ? { ok: true, kind: 'get' }
          : { ok: false, message: `cluster "${opts.cluster}" does not serve namespace ${question.namespace}` };
      if (question.kind === 'events') {
        if (!releaseEvents) return { ok: false, message: `cluster "${opts.cluster}" does not serve Events` };
        return { ok: true, kind: 'events', events: eventsForFleet(await releaseEvents(question.namespace, question.name)) };
      }
      if (question.kind === 'objects') {
        if (!objectRows) return { ok: false, message: `cluster "${opts.cluster}" does not serve objects` };
        const release = await opts.api.get(question.namespace, question.name);
        return { ok: true, kind: 'objects', objects: release ? await objectRows(release) : [] };
      }
      if (question.kind === 'image-values') {
        const release = await opts.api.get(question.namespace, question.name);
        return { ok: true, kind: 'image-values', values: release ? imageValuesForFleet(release) : {} };
      }
      if (question.kind === 'get') {
        const release = await opts.api.get(question.namespace, question.name);
        return { ok: true, kind: 'get', ...(release ? { release: releaseForFleet(release, maskKey) } : {}) };
      }
      return { ok: true, kind: 'history', history: historyForFleet(await opts.storage.history(question.namespace, question.releaseName), maskKey) };
    } catch (error) {
      return { ok: false, message: `cluster "${opts.cluster}" could not read: ${(error as Error).message}` };
    }
  };
  const handle = async (job: Job<SignedCommand | SignedQuery>): Promise<CommandOutcome | QueryAnswer> => {
    if (job.name === QUERY_JOB) return answer(job.data);
    return act(job as Job<SignedCommand>);
  };
  const act = async (job: Job<SignedCommand>): Promise<CommandOutcome> => {
    const at = now();
    const verdict = verifyCommand(job.data, opts.cluster, opts.key, at);
    const claimed = job.data?.command;
    const about = {
      cluster: opts.cluster,
      signedFor: claimed?.cluster,
      release: claimed ? `${claimed.namespace}/${claimed.name}` : undefined,
      action: claimed?.verb,
      nonce: claimed?.nonce,
    };
    if (!verdict.ok) {
      opts.log.warn({ ...about, refused: verdict.reason }, `fleet command refused: ${verdict.message}`);
      return { ok: false, refused: verdict.reason, message: verdict.message };
    }
    const command = verdict.command;
    const fresh = await opts.connection.set(clusterKey(opts.prefix, 'commandNonce', command.nonce), '1', 'PX', nonceTtlMs(command, at), 'NX');
    if (fresh !== 'OK') {
      opts.log.warn({ ...about, refused: 'replayed' }, 'fleet command refused: its nonce was used already (a replay)');
      return { ok: false, refused: 'replayed', message: 'this command was already received once' };
    }
    const release = await opts.api.get(command.namespace, command.name);
    if (!release) return { ok: false, message: `no HelmRelease ${command.namespace}/${command.name} in cluster "${opts.cluster}"` };
    let written;
    try {
      written = await opts.api.patchIntent(command.namespace, command.name, command.patch, FLEET_COMMAND_FIELD_MANAGER);
    } catch (error) {
      opts.log.warn({ ...about, error: (error as Error).message }, 'fleet command not written');
      return { ok: false, message: `could not write the intent in cluster "${opts.cluster}": ${(error as Error).message}` };
    }
    const message = `${command.actor} asked for ${command.verb} of ${command.namespace}/${command.name} in cluster ${opts.cluster}${command.reason ? `: ${command.reason}` : ''} (fleet command)`;
    await opts.events.record(written, ReleaseEvent.ActionRequested, message, { cause: `${command.actor} ${command.verb}` });
    opts.log.info({ ...about, actor: command.actor, reason: command.reason, generation: written.metadata.generation }, 'release action requested');
    return { ok: true, message, generation: written.metadata.generation, release: releaseForFleet(written, maskKey) };
  };
  // Reads are short and a person waits on each: enough slots that a burst of them does not queue.
  const worker = new Worker<SignedCommand | SignedQuery, CommandOutcome | QueryAnswer>(QUEUE_NAMES.command, handle, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: 16,
  });
  worker.on('error', (error) => opts.log.error({ err: error }, 'fleet command worker error'));
  return worker;
}

import type { HelmRelease } from '../../api/helmrelease.js';
import type { FleetCommandClient } from '../../core/fleet/command-client.js';
import { newCommand } from '../../core/fleet/command-protocol.js';
import type { FleetEventRecord } from '../../core/fleet/fleet-events.js';
import { objectRowsForFleet } from '../../core/fleet/fleet-objects.js';
import type { ObjectRow } from '../../core/release/object-rows.js';
import { newQuery, signQuery, type FleetQuestion, type QueryAnswer } from '../../core/fleet/fleet-query.js';
import { COMMAND_VERBS, signCommand, type CommandVerb } from '../../core/fleet/signed-command.js';
import type { FreezePort, IntentWriter, ReleaseApiPort, StoragePort } from '../execute/operations.js';
import type { ImageValuesReader } from '../flow/fleet-routing.js';

export interface RemoteClusterOptions {
  cluster: string;
  client: Pick<FleetCommandClient, 'send' | 'query'>;
  /** The cluster's key as it is now (read on each use: a rotated key needs no restart). */
  key: () => Promise<string | undefined>;
  /** How long a read waits for the agent's answer. */
  queryTimeoutMs: number;
  /** How long a command waits for the agent to write its intent. */
  commandTimeoutMs: number;
  now?: () => number;
}

/**
 * One fleet cluster's parts for the execution path, with no kubeconfig of it: reads are signed
 * questions to its agent (core/fleet/fleet-query.ts), an intent a signed command
 * (core/fleet/signed-command.ts) the agent writes and records (its Event, in its cluster). Its
 * Freezes (its own and the fleet's taking it in) are a question too, so a plan warns of them.
 */
export function remoteCluster(opts: RemoteClusterOptions): {
  api: ReleaseApiPort;
  storage: StoragePort;
  freezes: FreezePort;
  writeIntent: IntentWriter;
  imageValues: ImageValuesReader;
  events: (namespace: string, name: string) => Promise<FleetEventRecord[]>;
  objects: (namespace: string, name: string) => Promise<ObjectRow[]>;
} {
  const now = opts.now ?? Date.now;
  const keyOf = async () => {
    const key = await opts.key();
    if (!key) throw new Error(`the bot has no key for cluster "${opts.cluster}" (HELMCREW_FLEET_KEYS_DIR)`);
    return key;
  };
  const ask = async (question: FleetQuestion): Promise<Exclude<QueryAnswer, { ok: false }>> => {
    const answer = await opts.client.query(signQuery(newQuery(opts.cluster, question, now()), await keyOf()), opts.queryTimeoutMs);
    if (!answer.ok) throw new Error(answer.message);
    return answer;
  };
  const api: ReleaseApiPort = {
    list: async (namespace) => {
      const answer = await ask({ kind: 'list', ...(namespace ? { namespace } : {}) });
      return { items: answer.kind === 'list' ? answer.releases : [] };
    },
    get: async (namespace, name) => {
      const answer = await ask({ kind: 'get', namespace, name });
      return answer.kind === 'get' ? answer.release : undefined;
    },
    patchIntent: () => Promise.reject(new Error(`cluster "${opts.cluster}" is written through its agent`)),
  };
  const storage: StoragePort = {
    history: async (namespace, releaseName) => {
      const answer = await ask({ kind: 'history', namespace, releaseName });
      if (answer.kind !== 'history') throw new Error(`cluster "${opts.cluster}" answered no history`);
      return answer.history;
    },
  };
  const freezes: FreezePort = {
    // Asked of the agent: the plan warns of what holds there, and `/release freezes --cluster` lists it.
    list: async () => {
      const answer = await ask({ kind: 'freezes' });
      return { items: answer.kind === 'freezes' ? answer.freezes : [] };
    },
    create: () => Promise.reject(new Error('freezes are not set through a fleet agent')),
    delete: () => Promise.reject(new Error('freezes are not lifted through a fleet agent')),
  };
  // A promotion's source: its values arrive masked, but for the image values its own spec.imageUpdates name.
  const imageValues: ImageValuesReader = async (namespace, name) => {
    const answer = await ask({ kind: 'image-values', namespace, name });
    return answer.kind === 'image-values' ? answer.values : {};
  };
  const writeIntent: IntentWriter = async (target, patch, about): Promise<HelmRelease> => {
    if (!(COMMAND_VERBS as readonly string[]).includes(about.verb)) throw new Error(`${about.verb} cannot be sent to another cluster yet`);
    const command = newCommand(
      {
        cluster: opts.cluster,
        namespace: target.namespace,
        name: target.name,
        verb: about.verb as CommandVerb,
        patch,
        actor: about.actor.id,
        ...(about.reason ? { reason: about.reason } : {}),
      },
      now(),
    );
    const outcome = await opts.client.send(signCommand(command, await keyOf()), opts.commandTimeoutMs);
    if (!outcome.ok) throw new Error(outcome.message);
    if (!outcome.release) throw new Error(`cluster "${opts.cluster}" wrote the intent but did not say how the release is now`);
    return outcome.release;
  };
  // A release's timeline Events (people's actions, proposals' steps): the web's page of a release in that cluster.
  const events = async (namespace: string, name: string) => {
    const answer = await ask({ kind: 'events', namespace, name });
    return answer.kind === 'events' ? answer.events : [];
  };
  // A release's objects and their health, read there as the release's identity: rows only (an older agent refuses the question: it throws).
  const objects = async (namespace: string, name: string) => {
    const answer = await ask({ kind: 'objects', namespace, name });
    if (answer.kind !== 'objects') throw new Error(`cluster "${opts.cluster}" answered no objects`);
    return objectRowsForFleet(answer.objects);
  };
  return { api, storage, freezes, writeIntent, imageValues, events, objects };
}

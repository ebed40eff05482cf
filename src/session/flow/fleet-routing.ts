import type { FleetEventRecord } from '../../core/fleet/fleet-events.js';
import type { ObjectRow } from '../../core/release/object-rows.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { FleetFreezePort } from '../execute/fleet-freeze-writes.js';
import type { ReleaseOperations } from '../execute/operations.js';
import type { ChangePreviews } from '../execute/preview-client.js';
import type { ProposalStore } from '../../core/proposals/proposal-store.js';

/** What a session reads and writes of one cluster: through the bot's kubeconfig, or a fleet agent through Redis. */
export interface ClusterDeps {
  ops: ReleaseOperations;
  api: Pick<HelmReleaseApi, 'list' | 'get'>;
  freezes: Pick<FreezeApi, 'list'>;
  storage: Pick<ReleaseStorage, 'history'>;
  previews?: ChangePreviews;
  /** The cluster's proposals (issue 35), for `/release proposals` and the promotions opened there. */
  proposals?: Pick<ProposalStore, 'listLive' | 'open'>;
  /** A fleet cluster's image values of a release (its values reach the bot masked otherwise): a promotion reads what runs there. */
  imageValues?: ImageValuesReader;
  /** A fleet cluster's Events of a release's timeline (people's actions, proposals' steps), asked of its agent for the web's release page. */
  timelineEvents?: (namespace: string, name: string) => Promise<FleetEventRecord[]>;
  /** A fleet cluster's objects of a release and their health (rows only), asked of its agent for the web's release page. */
  releaseObjects?: (namespace: string, name: string) => Promise<ObjectRow[]>;
}

/** A release's image values in effect, by values path, at the paths its spec.imageUpdates name (core/fleet/fleet-query.ts). */
export type ImageValuesReader = (namespace: string, name: string) => Promise<Record<string, string>>;

/** A cluster of the fleet as the bot sees it: its own, or one it holds a key for, up or not. */
export interface FleetMember {
  name: string;
  own: boolean;
  /** Why commands cannot go there now (unreachable since …, never announced), or undefined. */
  unavailable?: string;
}

/** The bot's fleet (session/fleet/fleet-router.ts): which clusters there are, and each one's parts. */
export interface FleetRouting {
  own: string;
  members(): Promise<FleetMember[]>;
  /** A cluster's parts, or why a command cannot go there (unknown, no key, unreachable since …). */
  route(cluster: string): Promise<{ ok: true; deps: ClusterDeps } | { ok: false; message: string }>;
  /** The fleet freezes (`freeze cluster:…`), in the fleet's keyspace; without them the bot cannot freeze clusters. */
  freezes?: FleetFreezePort;
  /** Every cluster the fleet knows now (its index, its keys, its own): what a fleet freeze's plan names. */
  clusters?(): Promise<string[]>;
}

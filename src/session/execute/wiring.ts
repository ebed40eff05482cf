import type { Freeze } from '../../api/freeze.js';
import { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import { KubeEventRecorder } from '../../core/kube/event-recorder.js';
import { FreezeApi } from '../../core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import type { RequesterLedger } from '../../core/requests/requester-ledger.js';
import { SHARED_ENV } from '../../core/config/env.js';
import { ReleaseOperations } from './operations.js';
import type { ChangePreviews } from './preview-client.js';

/** The reads a surface may serve from elsewhere. */
type Reads = { api: HelmReleaseApi; freezes: FreezeApi; teams: TeamApi; storage: ReleaseStorage };

/**
 * The execution path's parts over one cluster's clients; the terminal (client-node's) and the bot
 * (the slim REST client the controller uses, so a bot process does not load client-node) share it.
 */
export function releaseOperations(
  // The clients the cluster's APIs are built on (the bot layer names no raw client: layers.test.ts).
  kube: ConstructorParameters<typeof HelmReleaseApi>[0],
  log: Logger,
  component: string,
  options: {
    previews?: ChangePreviews;
    timeZone?: string;
    requesters?: RequesterLedger;
    fleetFreezes?: () => Promise<Freeze[]>;
    /** Reads served elsewhere (the web's shared watch, for assistants' calls): these objects stand for the direct ones. */
    reads?: (direct: Reads) => Reads;
  } = {},
) {
  const { previews, requesters, fleetFreezes, timeZone = SHARED_ENV.in(process.env).text('HELMCREW_TIME_ZONE') } = options;
  const direct: Reads = { api: new HelmReleaseApi(kube), freezes: new FreezeApi(kube), teams: new TeamApi(kube), storage: new ReleaseStorage(kube) };
  const { api, freezes, teams, storage } = options.reads ? options.reads(direct) : direct;
  const events = new KubeEventRecorder(kube, log, component);
  const ops = new ReleaseOperations({ api, freezes, teams, storage, events, log, now: () => new Date(), timeZone, previews, requesters, fleetFreezes });
  return { kube, api, freezes, teams, storage, events, ops, previews };
}

import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseEvent } from '../../api/vocabulary.js';
import type { Requester } from '../requests/requester-ledger.js';

/** What a reconcile knows about a happening beyond its name and message; all optional. */
export interface EventDetails {
  /** The operation attempted (install, upgrade, uninstall, rollback…): groups its notifications. */
  action?: string;
  /** Tells apart two attempts of one action on one generation (e.g. its start time); stable across their records. */
  attempt?: string;
  fromVersion?: string;
  toVersion?: string;
  revision?: number;
  /** Who or what caused it: "spec change (generation 4)", "periodic check", "slack:U0123 rollback". */
  cause?: string;
  /** helm's error excerpt, already redacted. */
  errorExcerpt?: string;
  /** The id of the request it answers (rollback, drift correction, forced retry): finds who asked (requester-sink.ts). */
  requestId?: string;
  /** Who asked, as authenticated (requester-ledger.ts); stamped by RequesterStampingSink, never read from the object. */
  requester?: Requester;
  /** A Git chart: the commit deployed; `gitMoved` when the commit changed, which then caused it, not a person. */
  gitRevision?: string;
  gitMoved?: boolean;
  /** The distinct container images of the release's workloads after it (first MAX_EVENT_IMAGES), and how many more. */
  images?: string[];
  moreImages?: number;
  /** A proposal the event is about (ProposalOpened…) or the upgrade applies (core/proposals/proposal-store.ts). */
  proposalId?: string;
  /** Who proposed and who approved the change an upgrade applies (issue 35). */
  proposedBy?: string;
  approvers?: string[];
}

/** What the reconciler tells the world: Kubernetes Events and the notify queue (a CompositeEventSink). */
export interface ReleaseEventSink {
  record(release: HelmRelease, event: ReleaseEvent, message: string, details?: EventDetails): Promise<void>;
}

/** Tells every sink at once; a sink must not throw (each logs its own failures). */
export class CompositeEventSink implements ReleaseEventSink {
  constructor(private readonly sinks: ReleaseEventSink[]) {}

  async record(release: HelmRelease, event: ReleaseEvent, message: string, details?: EventDetails): Promise<void> {
    await Promise.all(this.sinks.map((sink) => sink.record(release, event, message, details)));
  }
}

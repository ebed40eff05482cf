import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseEvent } from '../../api/vocabulary.js';
import type { Logger } from '../log.js';
import type { Requester, RequestKey, RequesterLedger } from '../requests/requester-ledger.js';
import type { EventDetails, ReleaseEventSink } from './release-event-sink.js';
import { RunRequesters, runLookupKey, runStage } from './run-requesters.js';

/** The events a spec change (upgrade, resume) leads to: the generation's requester caused them. */
const SPEC_CHANGE_EVENTS: ReadonlySet<string> = new Set([
  'InstallStarted',
  'InstallSucceeded',
  'InstallFailed',
  'UpgradeStarted',
  'UpgradeSucceeded',
  'UpgradeFailed',
  'Resumed',
  'Suspended',
]);

/**
 * Pure: where to look for who asked. A request's id when the event answers one; else, for what a
 * spec change leads to, the generation — unless a Git chart moved, which then caused it. Periodic
 * checks, remediations and the rest were asked by nobody.
 */
export function requestKeysFor(release: HelmRelease, event: ReleaseEvent, details: EventDetails): RequestKey[] {
  if (details.requestId) return [{ requestId: details.requestId }];
  if (details.gitMoved || !SPEC_CHANGE_EVENTS.has(event)) return [];
  const generation = release.metadata.generation;
  return generation === undefined ? [] : [{ generation }];
}

/**
 * Adds who asked (from the ledger, which only helmcrew's parts write) to the events it passes on.
 * A slow or failing Redis costs the message its "by", never the report: the look-up is bounded.
 * A helm run asks once, at its start; its end reuses that answer (run-requesters.ts).
 */
export class RequesterStampingSink implements ReleaseEventSink {
  constructor(
    private readonly ledger: Pick<RequesterLedger, 'find'>,
    private readonly next: ReleaseEventSink,
    private readonly log: Logger,
    private readonly maxWaitMs = 250,
    private readonly runs = new RunRequesters(),
  ) {}

  async record(release: HelmRelease, event: ReleaseEvent, message: string, details: EventDetails = {}): Promise<void> {
    const { requester: _untrusted, ...rest } = details;
    const requester = await this.lookUp(release, event, rest);
    await this.next.record(release, event, message, requester ? { ...rest, requester } : rest);
  }

  private async lookUp(release: HelmRelease, event: ReleaseEvent, details: EventDetails) {
    const uid = release.metadata.uid;
    const keys = requestKeysFor(release, event, details);
    if (!uid || keys.length === 0) return undefined;
    const stage = runStage(event);
    const runKey = runLookupKey(uid, keys);
    if (stage === 'end') {
      const started = this.runs.take(runKey);
      if (started) return started.requester;
    }
    const answered = await this.find(release, event, uid, keys);
    if (stage === 'start' && answered.read) this.runs.keep(runKey, answered.requester);
    return answered.requester;
  }

  /** The ledger's answer within maxWaitMs; `read` is false when it did not come (slow or failing Redis). */
  private async find(release: HelmRelease, event: ReleaseEvent, uid: string, keys: RequestKey[]): Promise<{ read: boolean; requester?: Requester }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.maxWaitMs);
    });
    try {
      const found = await Promise.race([this.ledger.find(uid, keys).then((record) => ({ read: true, requester: record?.requester })), timeout]);
      return found ?? { read: false };
    } catch (error) {
      this.log.warn(
        { release: `${release.metadata.namespace}/${release.metadata.name}`, event, error: (error as Error).message },
        'who asked could not be read',
      );
      return { read: false };
    } finally {
      clearTimeout(timer);
    }
  }
}

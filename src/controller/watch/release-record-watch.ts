import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { namesToRead, recordFingerprint, type NamedRecords, type RecordRef, type Watched } from '../reconcile/decide/settled-records.js';
import { MAX_WATCH_SILENCE_MS } from './settled-histories.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import { makeMetadataInformer } from './metadata-informer.js';
import { sharedString } from '../../core/kube/watch/shared-strings.js';

/** Helm's release records and nothing else (the values-source watch leaves exactly these out). */
export const HELM_RECORDS = 'owner=helm';

interface Slot {
  scope: string;
  watch: KeptWatch;
  /** namespace/release name → record Secret name → its version (SUPERSEDED in front for a superseded record: one Map per release, no object per record). */
  byRelease: Map<string, Map<string, string>>;
}

const SUPERSEDED = '~';

/**
 * Watches the metadata of Helm's release record Secrets (label owner=helm; names, labels and
 * versions, never the records), in the namespaces the controller watches, so the periodic check
 * of a settled release can tell without a request whether its records changed since it last read
 * them (reconcile/decide/settled-records.ts). A record helm writes or deletes — helmcrew's run,
 * or helm by hand — is an event here. Until a scope's first list, after a failure, and for a
 * namespace outside the watched ones, `watched` says nothing and the check reads as before.
 */
export class ReleaseRecordWatch {
  private readonly slots: Slot[] = [];

  constructor(
    private readonly opts: {
      rest: KubeRest;
      namespaces: string[];
      log: Logger;
      /** A release's records changed (or a scope listed again), `version` the record's as the event gave it: what was remembered of them is stale. */
      onChange?: (namespace: string, releaseName: string, version: string | undefined) => void;
      /** A scope restarted: nothing remembered in it can be trusted until it is read again. */
      onReset?: (scope: string) => void;
    },
  ) {}

  async start(): Promise<void> {
    const scopes = this.opts.namespaces.length > 0 ? this.opts.namespaces : [''];
    for (const scope of scopes) this.slots.push(this.slotOf(scope));
    await Promise.all(this.slots.map((slot) => slot.watch.start()));
  }

  async retryNow(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.watch.retryNow()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.watch.stop()));
  }

  /** What the watch says of a release's records now (the non-superseded ones, as the check's LIST selects). */
  watched(namespace: string, releaseName: string): Watched | undefined {
    const slot = this.slotFor(namespace);
    const informer = slot?.watch.informer;
    if (!slot || !informer) return undefined;
    const records = slot.byRelease.get(`${namespace}/${releaseName}`) ?? [];
    // The check's LIST leaves superseded records out (status!=superseded): so does what it is compared with.
    // helm's status label from the informer's copy (kept there already), for binding what our own run wrote.
    const refs: RecordRef[] = [...records]
      .filter(([, version]) => !version.startsWith(SUPERSEDED))
      .map(([name, resourceVersion]) => ({ name, resourceVersion, status: informer.get(name, namespace)?.metadata?.labels?.status }));
    return { fingerprint: recordFingerprint(refs), records: refs, heardAgoMs: Date.now() - informer.lastHeardMs };
  }

  /**
   * Which of a release's records a read not older than `notOlderThan` may GET by name (without
   * the superseded ones if asked), and the next revision's that must be absent when the watch has
   * not yet seen that version (settled-records.ts namesToRead); undefined: the read LISTs.
   */
  recordNames(
    namespace: string,
    releaseName: string,
    notOlderThan: string | undefined,
    withoutSuperseded: boolean,
    rightsKnown = false,
  ): NamedRecords | undefined {
    const slot = this.slotFor(namespace);
    const informer = slot?.watch.informer;
    if (!slot || !informer) return undefined;
    const records = slot.byRelease.get(`${namespace}/${releaseName}`) ?? new Map<string, string>();
    const watch = { seenVersion: informer.seenVersion, heardAgoMs: Date.now() - informer.lastHeardMs, maxSilenceMs: MAX_WATCH_SILENCE_MS };
    const keep = (name: string) => !withoutSuperseded || !records.get(name)?.startsWith(SUPERSEDED);
    return namesToRead([...records.keys()], releaseName, watch, notOlderThan, keep, rightsKnown);
  }

  private slotFor(namespace: string): Slot | undefined {
    return this.slots.find((s) => s.scope === '' || s.scope === namespace);
  }

  /** How many record Secrets the watch holds (for the bench's memory per release). */
  get size(): number {
    return this.slots.reduce((n, slot) => n + (slot.watch.informer?.list().length ?? 0), 0);
  }

  private slotOf(scope: string): Slot {
    const path = scope ? `/api/v1/namespaces/${scope}/secrets` : '/api/v1/secrets';
    const slot: Slot = {
      scope,
      byRelease: new Map(),
      watch: new KeptWatch({
        make: () => makeMetadataInformer(this.opts.rest, path, HELM_RECORDS, nameAndLabels),
        beforeStart: () => {
          slot.byRelease = new Map();
          this.opts.onReset?.(scope);
        },
        wire: (informer, current) => {
          informer.on('add', (obj) => current() && this.seen(slot, obj, false));
          informer.on('update', (obj) => current() && this.seen(slot, obj, false));
          informer.on('delete', (obj) => current() && this.seen(slot, obj, true));
        },
        onFailure: (error, delayMs, repeated) =>
          this.opts.log[repeated ? 'debug' : 'warn'](
            { scope: scope || 'all namespaces', delayMs, error: apiErrorMessage(error) },
            'release record watch failed; restarting',
          ),
      }),
    };
    return slot;
  }

  private seen(slot: Slot, obj: KubernetesObject, deleted: boolean): void {
    const namespace = obj.metadata?.namespace ?? '';
    const secret = obj.metadata?.name ?? '';
    const releaseName = obj.metadata?.labels?.name;
    if (!releaseName) return;
    const key = `${namespace}/${releaseName}`;
    let records = slot.byRelease.get(key);
    if (deleted) records?.delete(secret);
    else {
      if (!records) slot.byRelease.set(sharedString(key), (records = new Map<string, string>()));
      const version = obj.metadata?.resourceVersion ?? '';
      records.set(secret, obj.metadata?.labels?.status === 'superseded' ? SUPERSEDED + version : version);
    }
    if (records?.size === 0) slot.byRelease.delete(key);
    this.opts.onChange?.(namespace, releaseName, obj.metadata?.resourceVersion);
  }
}

/** What the watch keeps of a record Secret: who it is, its version, and the two labels it is indexed by (the repeated ones shared). */
function nameAndLabels(obj: KubernetesObject): KubernetesObject {
  const { name, namespace, resourceVersion, labels } = obj.metadata ?? {};
  const labelsKept = { name: sharedString(labels?.name ?? ''), status: sharedString(labels?.status ?? '') };
  return { metadata: { name, namespace: namespace === undefined ? undefined : sharedString(namespace), resourceVersion, labels: labelsKept } };
}

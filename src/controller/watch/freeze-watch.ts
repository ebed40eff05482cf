import type { KubernetesObject } from '@kubernetes/client-node';
import { clampTimerMs } from '../../api/duration.js';
import type { Freeze } from '../../api/freeze.js';
import type { Team } from '../../api/team.js';
import { API_GROUP, API_VERSION, FREEZE_PLURAL, TEAM_PLURAL } from '../../api/vocabulary.js';
import { apiErrorMessage, isNotFound } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import type { Logger } from '../../core/log.js';
import { freezesHolding, nextFreezeChange, type HoldingFreeze } from '../../core/release/freeze-match.js';
import { heldPeriodStart, withHeldRelease } from '../status/freeze-held.js';
import type { ReleaseFacts } from '../../core/release/team-releases.js';
import type { FreezeView } from '../reconcile/ports/context.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import { ListWatch, restWatch, type Listed } from '../../core/kube/watch/list-watch.js';

type Kind = 'freezes' | 'teams';

/**
 * Freezes and Teams (for Team-scoped freezes), watched with informers: a pass matches from memory,
 * so a freeze adds no API request per release. Whenever a freeze or Team changes, and at the next
 * moment any freeze starts or ends by itself (`until`, a window), `onChange` is called: the
 * controller then enqueues every release it holds as Frozen, which goes on at once if nothing
 * holds it any more.
 */
export class FreezeWatch implements FreezeView {
  private readonly slots = new Map<Kind, KeptWatch>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly opts: {
      rest: KubeRest;
      list: { freezes: () => Promise<Listed<Freeze>>; teams: () => Promise<Listed<Team>> };
      onChange: (reason: string) => void;
      log: Logger;
      now?: () => Date;
      /** A watch failed (the API server may be unreachable: the outage probe is told). */
      onFailure?: (error: unknown) => void;
    },
  ) {
    for (const kind of ['freezes', 'teams'] as const) this.slots.set(kind, this.watchOf(kind));
  }

  async start(): Promise<void> {
    await Promise.all([...this.slots.values()].map((watch) => watch.start()));
  }

  /** The API server answers again: watches waiting out a backoff restart now; resolves once they listed. */
  async retryNow(): Promise<void> {
    await Promise.all([...this.slots.values()].map((watch) => watch.retryNow()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([...this.slots.values()].map((watch) => watch.stop()));
  }

  get ready(): boolean {
    return [...this.slots.values()].every((watch) => watch.synced);
  }

  holding(release: ReleaseFacts, now: Date): HoldingFreeze[] | undefined {
    if (!this.ready) return undefined;
    return freezesHolding(release, this.freezes(), this.teams(), now);
  }

  notYetHeld(names: readonly string[], release: string, now: Date): string[] {
    const byName = new Map(this.freezes().map((f) => [f.metadata.name, f]));
    return names.filter((name) => {
      const freeze = byName.get(name);
      return freeze !== undefined && withHeldRelease(freeze.status?.held, heldPeriodStart(freeze, now), { release, action: '', at: '' }) !== undefined;
    });
  }

  freezes(): Freeze[] {
    return (this.slots.get('freezes')?.informer?.list() ?? []) as unknown as Freeze[];
  }

  private teams(): Team[] {
    return (this.slots.get('teams')?.informer?.list() ?? []) as unknown as Team[];
  }

  private watchOf(kind: Kind): KeptWatch {
    const plural = kind === 'freezes' ? FREEZE_PLURAL : TEAM_PLURAL;
    const list = this.opts.list[kind] as () => Promise<Listed<KubernetesObject>>;
    const noun = kind === 'freezes' ? 'freeze' : 'team';
    return new KeptWatch({
      make: () => new ListWatch<KubernetesObject>(list, restWatch(this.opts.rest, `/apis/${API_GROUP}/${API_VERSION}/${plural}`)),
      wire: (informer, current) => {
        const watch = this.slots.get(kind)!;
        const changed = (what: string) => (obj: KubernetesObject) => {
          if (current() && watch.synced) this.changed(`${noun} ${obj.metadata?.name ?? ''} ${what}`);
        };
        // Only what can change whom a freeze holds: its spec (the generation) or its deletion. The
        // controller's own status.held writes and the bot's annotations would otherwise wake every held release.
        const seen = new Map<string, string>();
        const identity = (obj: KubernetesObject) => `${obj.metadata?.generation ?? ''}/${String(obj.metadata?.deletionTimestamp ?? '')}`;
        const remember = (obj: KubernetesObject) => seen.set(obj.metadata?.name ?? '', identity(obj));
        informer.on('add', (obj) => {
          remember(obj);
          changed('added')(obj);
        });
        informer.on('update', (obj) => {
          const name = obj.metadata?.name ?? '';
          if (kind === 'freezes' && seen.get(name) === identity(obj)) return;
          remember(obj);
          changed('changed')(obj);
        });
        informer.on('delete', changed('deleted'));
      },
      // A relist after an outage may have missed a deletion: let held releases look again.
      onListed: (first) => this.changed(first ? `${kind} listed` : `${kind} relisted`),
      onFailure: (error, delayMs, repeated) => {
        const message = isNotFound(error)
          ? `the ${kind === 'freezes' ? 'Freeze' : 'Team'} CRD is not installed; install it with \`helmcrew crds apply\` (helm actions wait until freezes can be read)`
          : `${kind} watch failed; restarting (helm actions wait until freezes can be read)`;
        this.opts.log[repeated ? 'debug' : 'error']({ kind, delayMs, error: apiErrorMessage(error) }, message);
        this.opts.onFailure?.(error);
      },
    });
  }

  private changed(reason: string): void {
    if (this.stopped) return;
    this.schedule();
    this.opts.onChange(reason);
  }

  /** One timer, at the next moment a freeze starts or ends by itself. */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    const now = (this.opts.now ?? (() => new Date()))();
    const next = nextFreezeChange(this.freezes(), now);
    if (!next) return;
    // A little after the boundary, so the pass it starts sees the freeze as ended.
    this.timer = setTimeout(() => this.changed('a freeze started or ended'), clampTimerMs(next.getTime() - now.getTime() + 50));
    this.timer.unref();
  }
}

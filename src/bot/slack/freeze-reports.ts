import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';
import { FREEZE_REPORTED_ANNOTATION } from '../../api/annotations.js';
import type { Freeze } from '../../api/freeze.js';
import { API_GROUP, API_VERSION, FREEZE_KIND } from '../../api/vocabulary.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import { awaitOutcomes } from '../../session/execute/await-outcome.js';
import { expired, heldNow, letGo, watchedOf, type WatchedFreeze } from '../../session/plan/freeze-end.js';
import { targetOf, type PreparedAction } from '../../session/plan/prepared.js';
import { freezeLiftedMessage, type FreezeEnding } from './blocks.js';
import type { ChannelPoster } from './channel-progress.js';
import { WindowAnnouncer } from './window-announcer.js';

/** Redis bookkeeping is kept this long: longer than any report, short enough to clean itself up. */
const KEEP_SECONDS = 30 * 24 * 3600;

export interface FreezeReportsDeps {
  freezes: FreezeApi;
  api: HelmReleaseApi;
  teams: TeamApi;
  redis: RedisConnection;
  prefix: string;
  poster: ChannelPoster;
  log: Logger;
  outcomeTimeoutMs: number;
  now?: () => Date;
}

/**
 * The end of a freeze set from Slack, told in its channel message when nobody lifted it from chat:
 * `until` passed, or the Freeze was deleted with kubectl. Every replica sweeps the Freezes every
 * few seconds (one list; one HelmRelease list while such a freeze is active) and remembers in Redis
 * which releases each one held, since the controller clears `Frozen` as soon as a freeze ends. The
 * report is claimed with SET NX on the Freeze's uid, the same claim `/release unfreeze` takes, so
 * each freeze's end is reported once across replicas and paths.
 */
export class FreezeReports {
  private timer?: NodeJS.Timeout;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  private readonly windows: WindowAnnouncer;

  constructor(private readonly deps: FreezeReportsDeps) {
    this.windows = new WindowAnnouncer(deps);
  }

  private key(what: string): string {
    return clusterKey(this.deps.prefix, 'botFreeze', what);
  }

  /** True for the one caller that may report this freeze's end. */
  async claim(uid: string): Promise<boolean> {
    return (await this.deps.redis.set(this.key(`reported:${uid}`), '1', 'EX', KEEP_SECONDS, 'NX')) === 'OK';
  }

  start(everyMs: number): void {
    const tick = () => {
      if (this.stopped) return;
      this.sweep()
        .catch((error: Error) => this.deps.log.warn({ error: error.message }, 'freeze sweep failed; trying again'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, everyMs);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  /** One look: remember what the posted freezes hold, and report the ones that ended. */
  async sweep(): Promise<void> {
    const now = this.deps.now?.() ?? new Date();
    const { items: freezes } = await this.deps.freezes.list();
    // Windows opening soon or just closed, told in their channels.
    await this.windows.look(freezes, now);
    const watching = this.key('watching');
    const live = new Map<string, { freeze: Freeze; watched: WatchedFreeze }>();
    for (const freeze of freezes) {
      const watched = watchedOf(freeze);
      if (watched) live.set(watched.uid, { freeze, watched });
    }
    if (live.size > 0) await this.deps.redis.hset(watching, Object.fromEntries([...live].map(([uid, w]) => [uid, JSON.stringify(w.watched)])));
    const active = [...live.values()].filter((w) => !expired(w.freeze, now) && !w.freeze.metadata.deletionTimestamp);
    if (active.length > 0) {
      const { items: releases } = await this.deps.api.list();
      for (const { watched } of active) {
        const held = heldNow(watched.name, releases);
        if (held.length === 0) continue;
        await this.deps.redis.sadd(this.key(`held:${watched.uid}`), ...held);
        await this.deps.redis.expire(this.key(`held:${watched.uid}`), KEEP_SECONDS);
      }
    }
    const ended: Array<{ watched: WatchedFreeze; ending: FreezeEnding; freeze?: Freeze }> = [];
    for (const { freeze, watched } of live.values()) if (expired(freeze, now)) ended.push({ watched, freeze, ending: { expiredAt: freeze.spec.until! } });
    for (const [uid, raw] of Object.entries(await this.deps.redis.hgetall(watching))) {
      if (!live.has(uid) && !freezes.some((f) => f.metadata.uid === uid)) ended.push({ watched: JSON.parse(raw) as WatchedFreeze, ending: { deleted: true } });
    }
    for (const end of ended) {
      await this.deps.redis.hdel(watching, end.watched.uid);
      if (!(await this.claim(end.watched.uid))) continue;
      const report = this.report(end.watched, end.ending, freezes, end.freeze).catch((error: Error) =>
        this.deps.log.warn({ freeze: end.watched.name, error: error.message }, "could not report the freeze's end in its channel message"),
      );
      this.running.add(report);
      void report.finally(() => this.running.delete(report));
    }
  }

  /** What the freeze let go and what then happened, in its channel message; awaited in the background, bounded. */
  private async report(watched: WatchedFreeze, ending: FreezeEnding, freezes: Freeze[], freeze: Freeze | undefined): Promise<void> {
    const now = this.deps.now?.() ?? new Date();
    // Kept, as the controller keeps it (`/release freezes` says "ended"); marked so a wiped Redis does not report it twice.
    if (freeze) await this.deps.freezes.annotate(freeze.metadata.name, { [FREEZE_REPORTED_ANNOTATION]: now.toISOString() }, 'helmcrew-bot');
    const [releases, teams, seen] = await Promise.all([
      this.deps.api.list(),
      this.deps.teams.list(),
      this.deps.redis.smembers(this.key(`held:${watched.uid}`)),
    ]);
    const held = new Set([...seen, ...heldNow(watched.name, releases.items)]);
    const others = freezes.filter((f) => f.metadata.uid !== watched.uid);
    const goOn = letGo(watched.name, held, releases.items, others, teams.items, now);
    const action: PreparedAction = {
      command: { verb: 'unfreeze', name: watched.name },
      targets: goOn.map(targetOf),
      plan: { title: `end of freeze ${watched.name}`, lines: [], warnings: [], doable: true },
    };
    const outcomes = await awaitOutcomes(this.deps.api, { ...action, unfreeze: freeze ?? placeholder(watched) }, undefined, this.deps.outcomeTimeoutMs);
    const message = freezeLiftedMessage(watched, ending, outcomes);
    await this.deps.poster.update(watched.channel, watched.ts, message);
    await this.deps.redis.del(this.key(`held:${watched.uid}`));
    this.deps.log.info({ freeze: watched.name, ending, released: goOn.length }, "freeze's end reported in its channel message");
  }
}

/** awaitOutcomes reads only the name of the lifted freeze; a deleted one is known by what the sweep remembered. */
function placeholder(watched: WatchedFreeze): Freeze {
  return {
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: FREEZE_KIND,
    metadata: { name: watched.name, uid: watched.uid },
    spec: { scope: { all: true }, reason: watched.reason },
  };
}

import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { describeHolding } from '../../../core/release/freeze-match.js';
import { releaseFacts } from '../../../core/release/team-releases.js';
import {
  fleetFreezesUnknownRecorded,
  fleetFreezesUnknownStatus,
  frozenMessage,
  frozenRecorded,
  frozenStatus,
  unfrozenStatus,
} from '../../status/freeze-status.js';
import { RetryLaterError } from '../ports/context.js';
import { decideFreeze, helmActionOf } from '../decide/freeze-decision.js';
import type { LifecycleActionName } from '../decide/lifecycle-state.js';
import type { ReleaseActionName } from '../decide/release-state.js';
import { done, type Pass, type PassEnd } from '../ports/pass.js';

/**
 * The one place every decided action passes before it runs (the lifecycle and act stages call it):
 * an active Freeze that covers the release holds any helm action. A held release keeps its spec
 * and gets `Frozen=True` naming the freezes, one `Frozen` Event and so one notification per
 * generation. Returns the release to go on with (after clearing a Frozen that no longer holds),
 * or how the pass ends.
 */
export async function freezeGate(pass: Pass, decided: ReleaseActionName | LifecycleActionName): Promise<HelmRelease | PassEnd> {
  const { ctx, release, key } = pass;
  if (!ctx.freezes) return release;
  const action = helmActionOf(decided);
  // An object on its way out that runs no helm keeps whatever it says; it is about to be gone.
  if (!action && release.metadata.deletionTimestamp) return release;
  // A freeze set a moment ago holds the next helm action, not only those after the next poll.
  if (action) await ctx.freezes.refresh?.();
  const now = ctx.now();
  const holding = action ? ctx.freezes.holding(releaseFacts(release), now) : [];
  const decision = decideFreeze(release, action, holding);
  switch (decision.kind) {
    case 'go':
      return release;
    case 'release':
      ctx.log.info({ release: key, action: 'unfreeze' }, 'no freeze holds the release any more; going on');
      return ctx.status.write(release, unfrozenStatus(release, now));
    case 'wait-for-freezes': {
      // A fleet's cluster that cannot read the fleet's freezes does not act, and says so.
      const why = ctx.freezes.unknown?.();
      if (!why) throw new RetryLaterError('the controller has not listed the Freezes yet; no helm action until it has');
      ctx.log.warn({ release: key, action: decided, reason: why }, 'held: the fleet freezes are unknown (fail closed)');
      if (!fleetFreezesUnknownRecorded(release, why)) await ctx.status.write(release, fleetFreezesUnknownStatus(release, why, now));
      throw new RetryLaterError(why);
    }
    case 'break-glass': {
      ctx.log.warn(
        { release: key, action: decided, freezes: decision.holding.map((f) => f.name), by: decision.by, approvedBy: decision.approvedBy },
        'break-glass: going through the freezes',
      );
      return release;
    }
    case 'hold': {
      const message = frozenMessage(decision.action, decision.holding);
      // The freezes whose status does not name this release yet (their report of what they held).
      const unlisted =
        ctx.freezes.notYetHeld?.(
          decision.holding.map((f) => f.name),
          key,
          now,
        ) ?? [];
      if (frozenRecorded(release, message) && unlisted.length === 0) return done(key, 'frozen');
      if (!frozenRecorded(release, message)) {
        await ctx.status.write(release, frozenStatus(release, message, now));
        // One Event (and notification) when a freeze starts holding this release, not one per check.
        if (decision.first) await ctx.effects().events.record(release, ReleaseEvent.Frozen, message, { action: 'freeze' });
        ctx.log.info({ release: key, action: decided, freezes: describeHolding(decision.holding) }, 'held by a freeze');
      }
      // After the release's own status, so a failure here is retried: the next pass finds it unlisted still.
      for (const name of unlisted) await ctx.effects().freezeHolds?.recordHeld(name, { release: key, action: decision.action }, now);
      return done(key, 'frozen');
    }
  }
}

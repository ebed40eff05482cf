import type { Freeze } from '../../api/freeze.js';
import { freezesHolding, type HoldingFreeze } from '../../core/release/freeze-match.js';
import type { ReleaseFacts } from '../../core/release/team-releases.js';
import type { FreezeView } from '../reconcile/ports/context.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/** What the view needs of the fleet freezes (FleetFreezeWatch). */
export interface FleetFreezeSource {
  unknown(): string | undefined;
  freezes(): Freeze[];
  refresh?(): Promise<void>;
}

/**
 * This cluster's Freezes and the fleet's that hold it, as one view for the freeze gate. Unknown
 * (undefined) while either is: a named cluster in a fleet does not act without knowing the fleet's
 * freezes, and `unknown()` says why.
 */
export class WithFleetFreezes implements FreezeView {
  constructor(
    private readonly local: FreezeView,
    private readonly fleet: FleetFreezeSource,
  ) {}

  holding(release: ReleaseFacts, now: Date): HoldingFreeze[] | undefined {
    const own = this.local.holding(release, now);
    if (own === undefined || this.fleet.unknown() !== undefined) return undefined;
    const fleet = freezesHolding(release, this.fleet.freezes(), [], now);
    return [...own, ...fleet].sort((a, b) => byCodeUnits(a.name, b.name));
  }

  notYetHeld(names: readonly string[], release: string, now: Date): string[] {
    return this.local.notYetHeld?.(names, release, now) ?? [];
  }

  unknown(): string | undefined {
    return this.fleet.unknown() ?? this.local.unknown?.();
  }

  async refresh(): Promise<void> {
    await this.local.refresh?.();
    await this.fleet.refresh?.();
  }
}

import type { FreezeApi } from '../../core/kube/freeze-api.js';
import { isConflict } from '../../core/kube/errors.js';
import type { FreezeHoldWriter } from '../reconcile/ports/context.js';
import { heldPeriodStart, withHeldRelease } from '../status/freeze-held.js';

const ATTEMPTS = 5;

/**
 * The controller's record, on a Freeze's status, of the releases it held (status.held): read fresh,
 * added to, written conditionally on the version read, so workers holding releases at once never
 * drop each other's entries (a conflict reads again). A Freeze gone meanwhile needs no record.
 */
export class FreezeHeldWriter implements FreezeHoldWriter {
  constructor(
    private readonly freezes: Pick<FreezeApi, 'get' | 'patchStatus'>,
    private readonly fieldManager: string,
  ) {}

  async recordHeld(name: string, hold: { release: string; action: string }, now: Date): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const freeze = await this.freezes.get(name);
      if (!freeze?.metadata.resourceVersion) return;
      const held = withHeldRelease(freeze.status?.held, heldPeriodStart(freeze, now), { ...hold, at: now.toISOString() });
      if (!held) return;
      try {
        // The whole record: a merge patch replaces the list, and the version makes that safe.
        await this.freezes.patchStatus(name, { held }, freeze.metadata.resourceVersion, this.fieldManager);
        return;
      } catch (error) {
        if (!isConflict(error) || attempt >= ATTEMPTS) throw error;
      }
    }
  }
}

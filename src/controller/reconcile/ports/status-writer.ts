import type { HelmRelease } from '../../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import { statusPatchChangesNothing } from '../../status/status-patch.js';

/** Where a pass's status goes: the HelmRelease API's status subresource (a port, so a cached pass can refuse it). */
export interface StatusPatcher {
  patchStatus(release: HelmRelease, status: HelmReleaseStatus): Promise<HelmRelease>;
}

/**
 * The one sender of status in the controller (in the spirit of fluxcd/pkg's serial patcher): the
 * status builders (status/) compute a patch in memory, and only this writer sends it. It knows the
 * status the server last answered with, so a patch that changes nothing but bookkeeping against it
 * is not sent (`writeIfChanged`); `write` sends at once, for what must be on the server before the
 * next effect: the "attempt started" record before helm runs, an outcome before its Event.
 */
export class StatusWriter {
  private known: HelmReleaseStatus | undefined;

  /** `patcher` is asked at each write, not before: a cached pass's port refuses only when a write is really due. */
  constructor(
    private readonly patcher: () => StatusPatcher,
    release: HelmRelease,
  ) {
    this.known = release.status;
  }

  /** Sends the patch now; returns the object as the server has it after the write. */
  async write(release: HelmRelease, status: HelmReleaseStatus): Promise<HelmRelease> {
    const written = await this.patcher().patchStatus(release, status);
    this.known = written.status;
    return written;
  }

  /** Sends the patch only when it changes more than bookkeeping (status-patch.ts) against the last status known; says whether it did. */
  async writeIfChanged(release: HelmRelease, status: HelmReleaseStatus): Promise<boolean> {
    if (statusPatchChangesNothing(this.known, status)) return false;
    await this.write(release, status);
    return true;
  }
}

/** The parts of a coordination.k8s.io/v1 Lease that leader election reads and writes. */
export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}

export type LeaseStep = { kind: 'create' } | { kind: 'renew' } | { kind: 'take-over' } | { kind: 'follow'; holder: string };

/**
 * Pure: what this replica does with the Lease as read. No Lease: create it. Ours: renew. Nobody's
 * (released) or not renewed within its duration: take it over. Otherwise someone else leads.
 */
export function leaseStep(lease: LeaseSpec | undefined, me: string, nowMs: number): LeaseStep {
  if (!lease) return { kind: 'create' };
  if (lease.holderIdentity === me) return { kind: 'renew' };
  if (!lease.holderIdentity) return { kind: 'take-over' };
  const renewed = Date.parse(lease.renewTime ?? lease.acquireTime ?? '');
  const durationMs = (lease.leaseDurationSeconds ?? 0) * 1000;
  if (!Number.isFinite(renewed) || renewed + durationMs < nowMs) return { kind: 'take-over' };
  return { kind: 'follow', holder: lease.holderIdentity };
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Pure: the spec this replica writes for a step that makes or keeps it the holder. */
export function heldSpec(step: LeaseStep, previous: LeaseSpec | undefined, me: string, nowMs: number, durationSeconds: number): LeaseSpec {
  const now = microTime(nowMs);
  const transitions = previous?.leaseTransitions ?? 0;
  if (step.kind === 'renew') return { ...previous, holderIdentity: me, leaseDurationSeconds: durationSeconds, renewTime: now };
  return {
    holderIdentity: me,
    leaseDurationSeconds: durationSeconds,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: step.kind === 'take-over' ? transitions + 1 : transitions,
  };
}

/** A Lease name from the queue prefix: replicas sharing a queue share a Lease (lower-case DNS label). */
export function leaseName(queuePrefix: string): string {
  const base = `${queuePrefix}-controller-leader`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return base.replace(/^-+/, '').slice(0, 63).replace(/-+$/, '') || 'helmcrew-controller-leader';
}

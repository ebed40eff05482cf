/**
 * PagerDuty's alert de-duplication, as documented: a trigger opens an alert for its dedup_key or
 * adds a log entry to the open one; acknowledge and resolve apply to the open alert of that key
 * sent through the same routing key, and are dropped when there is none. After a resolve, a
 * trigger with the same key opens a new alert.
 */

export interface FakeAlert {
  routingKey: string;
  dedupKey: string;
  status: 'triggered' | 'acknowledged' | 'resolved';
  /** Every event applied to it, in order (the alert's log). */
  log: { action: string; at: number; event: Record<string, unknown> }[];
}

export interface AppliedEvent {
  action: string;
  dedupKey: string;
  /** What happened: a new alert, a log entry on the open one, or dropped (no open alert to act on). */
  outcome: 'opened' | 'appended' | 'acknowledged' | 'resolved' | 'dropped';
}

export class AlertBook {
  readonly alerts: FakeAlert[] = [];

  apply(event: Record<string, unknown>, dedupKey: string, at = Date.now()): AppliedEvent {
    const action = String(event.event_action);
    const routingKey = String(event.routing_key);
    const open = this.alerts.find((a) => a.routingKey === routingKey && a.dedupKey === dedupKey && a.status !== 'resolved');
    const entry = { action, at, event };
    if (action === 'trigger') {
      if (open) {
        open.log.push(entry);
        return { action, dedupKey, outcome: 'appended' };
      }
      this.alerts.push({ routingKey, dedupKey, status: 'triggered', log: [entry] });
      return { action, dedupKey, outcome: 'opened' };
    }
    if (!open) return { action, dedupKey, outcome: 'dropped' };
    open.log.push(entry);
    open.status = action === 'resolve' ? 'resolved' : 'acknowledged';
    return { action, dedupKey, outcome: open.status === 'resolved' ? 'resolved' : 'acknowledged' };
  }

  /** The alerts opened under a dedup key, oldest first. */
  byDedupKey(dedupKey: string): FakeAlert[] {
    return this.alerts.filter((a) => a.dedupKey === dedupKey);
  }
}

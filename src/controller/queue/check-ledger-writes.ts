/**
 * Pure: the check ledger's writes waiting to be sent, one per release (the latest wins: a check
 * after a forget records it again, a forget after a check removes it), as one ZADD and one ZREM.
 */
export type PendingCheck = number | 'forget';

/** ZADD's score/member pairs and ZREM's members for what is pending. */
export function ledgerWrites(pending: ReadonlyMap<string, PendingCheck>): { add: (string | number)[]; remove: string[] } {
  const add: (string | number)[] = [];
  const remove: string[] = [];
  for (const [key, at] of pending) {
    if (at === 'forget') remove.push(key);
    else add.push(at, key);
  }
  return { add, remove };
}

/** The ledger as this replica knows it: what Redis holds, with its own writes not yet sent on top. */
export function withPending(stored: Map<string, number>, pending: ReadonlyMap<string, PendingCheck>): Map<string, number> {
  for (const [key, at] of pending) {
    if (at === 'forget') stored.delete(key);
    else stored.set(key, at);
  }
  return stored;
}

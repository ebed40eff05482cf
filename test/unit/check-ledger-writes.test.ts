import { describe, expect, it } from 'vitest';
import { ledgerWrites, withPending, type PendingCheck } from '../../src/controller/queue/check-ledger-writes.js';

describe('the check ledger’s pending writes', () => {
  it('one ZADD for the checks and one ZREM for the releases gone', () => {
    const pending = new Map<string, PendingCheck>([
      ['apps/a', 10],
      ['apps/b', 'forget'],
      ['apps/c', 12],
    ]);
    expect(ledgerWrites(pending)).toEqual({ add: [10, 'apps/a', 12, 'apps/c'], remove: ['apps/b'] });
    expect(ledgerWrites(new Map())).toEqual({ add: [], remove: [] });
  });

  it('what this replica has not sent yet wins over what Redis holds', () => {
    const stored = new Map([
      ['apps/a', 1],
      ['apps/b', 2],
      ['apps/d', 4],
    ]);
    const pending = new Map<string, PendingCheck>([
      ['apps/a', 10],
      ['apps/b', 'forget'],
      ['apps/c', 12],
    ]);
    expect(withPending(stored, pending)).toEqual(
      new Map([
        ['apps/a', 10],
        ['apps/d', 4],
        ['apps/c', 12],
      ]),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { RunningOperations, supersedes } from '../../src/controller/reconcile/ports/running-operations.js';

describe('a newer generation cancels the running operation', () => {
  it.each([
    { seen: 3, running: 2, want: true },
    { seen: 2, running: 2, want: false },
    { seen: 1, running: 2, want: false },
    { seen: undefined, running: 2, want: false },
  ])('generation $seen seen while $running runs → cancel: $want', ({ seen, running, want }) => {
    expect(supersedes(seen, running)).toBe(want);
  });

  it('aborts only the operation of that key and only once; an ended operation is left alone', () => {
    const operations = new RunningOperations();
    const a = operations.begin('web/a', 2);
    const b = operations.begin('web/b', 2);
    expect(operations.supersede('web/a', 2)).toBe(false);
    expect(operations.supersede('web/a', 3)).toBe(true);
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(false);
    expect(operations.supersede('web/a', 4)).toBe(false);
    b.end();
    expect(operations.supersede('web/b', 3)).toBe(false);
    expect(b.signal.aborted).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { HelmSlots, reconcileConcurrency } from '../../src/controller/helm/helm-slots.js';

describe('HelmSlots', () => {
  it('never runs more than its limit at once, and serves waiters in order', async () => {
    const slots = new HelmSlots(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const task = (i: number) =>
      slots.run(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return i;
      });
    const all = [0, 1, 2, 3, 4].map(task);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('gives the slot back when the task fails', async () => {
    const slots = new HelmSlots(1);
    await expect(slots.run(async () => Promise.reject(new Error('helm failed')))).rejects.toThrow('helm failed');
    await expect(slots.run(async () => 'next')).resolves.toBe('next');
  });
});

describe('reconcileConcurrency', () => {
  it.each([
    [1, 2],
    [4, 6],
    [8, 12],
  ])('%i helm slots → %i reconciles', (helm, want) => expect(reconcileConcurrency(helm)).toBe(want));
});

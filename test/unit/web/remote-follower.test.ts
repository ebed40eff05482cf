import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { createLogger } from '../../../src/core/log.js';
import { isAdded } from '../../../src/web/live/notify-signal.js';
import { RemoteFollower, type RemoteReading } from '../../../src/web/live/remote-follower.js';

describe('a fleet cluster’s change signal: BullMQ events stream entries', () => {
  it.each([
    [['event', 'added', 'jobId', '1', 'name', 'UpgradeSucceeded'], true],
    [['event', 'completed', 'jobId', '1', 'returnvalue', 'null'], false],
    [['event', 'waiting', 'jobId', '1'], false],
    [['jobId', '1'], false],
    [[], false],
  ])('%j → %s', (fields, expected) => expect(isAdded(fields)).toBe(expected));
});

describe('one follower for every page of a cluster', () => {
  /** A follower over a signal the test fires, and releases answered when the test says. */
  const setUp = () => {
    let fire: (() => void) | undefined;
    let stopped = 0;
    const answers: Array<(releases: HelmRelease[]) => void> = [];
    const follower = new RemoteFollower({
      cluster: 'edge',
      releases: () => new Promise((resolve) => answers.push(resolve)),
      freezes: async () => [],
      signal: (changed) => {
        fire = changed;
        return () => (stopped += 1);
      },
      log: createLogger('remote-follower-test', 'silent'),
    });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    return { follower, fire: () => fire!(), answers, settle, stopped: () => stopped };
  };

  it('asks nothing until a change; a change is one question for every page; changes during it are one question after it', async () => {
    const { follower, fire, answers, settle } = setUp();
    const heard: RemoteReading[][] = [[], [], []];
    const stops = heard.map((list) => follower.subscribe((reading) => list.push(reading)));
    await settle();
    expect(follower.asked).toBe(0);
    fire();
    await settle();
    fire();
    fire();
    await settle();
    expect(answers).toHaveLength(1);
    answers[0]!([]);
    await settle();
    await settle();
    // Freezes once, the first releases, then one more for the two changes heard meanwhile.
    expect(answers).toHaveLength(2);
    answers[1]!([]);
    await settle();
    expect(follower.asked).toBe(3);
    expect(heard.map((list) => list.length)).toEqual([2, 2, 2]);
    for (const stop of stops) stop();
  });

  it('stops its signal with the last page, and starts it again with the next', () => {
    const { follower, stopped } = setUp();
    const first = follower.subscribe(() => undefined);
    const second = follower.subscribe(() => undefined);
    first();
    expect(stopped()).toBe(0);
    second();
    expect(stopped()).toBe(1);
    follower.subscribe(() => undefined)();
    expect(stopped()).toBe(2);
  });
});

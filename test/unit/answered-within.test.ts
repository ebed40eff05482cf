import { describe, expect, it } from 'vitest';
import { answeredWithin, LATE } from '../../src/core/answered-within.js';

describe('answeredWithin', () => {
  it('gives the value of a promise settled in time, LATE for one that is not, and a rejection that came first', async () => {
    expect(await answeredWithin(Promise.resolve('PONG'), 1_000)).toBe('PONG');
    const never = new Promise<string>(() => undefined);
    expect(await answeredWithin(never, 1)).toBe(LATE);
    await expect(answeredWithin(Promise.reject(new Error('connection closed')), 1_000)).rejects.toThrow('connection closed');
  });
});

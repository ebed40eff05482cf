import { describe, expect, it } from 'vitest';
import { priorSecrets } from '../../src/controller/preview/prior-secrets.js';

describe('priorSecrets', () => {
  const isSecret = (text: string) => text === 'new-password' || text === '9999';
  it.each([
    {
      name: 'a rotated password at the same path',
      was: { db: { password: 'old-password' } },
      now: { db: { password: 'new-password' } },
      want: ['old-password'],
    },
    { name: 'inside a list, by index', was: { users: [{ pw: 'old-pw-1' }] }, now: { users: [{ pw: 'new-password' }] }, want: ['old-pw-1'] },
    { name: 'a number', was: { pin: 1234 }, now: { pin: 9999 }, want: ['1234'] },
    { name: 'a value not from a Secret', was: { color: 'pink' }, now: { color: 'blue' }, want: [] },
    { name: 'too short to be a secret', was: { db: { password: 'abc' } }, now: { db: { password: 'new-password' } }, want: [] },
    { name: 'nothing deployed', was: undefined, now: { db: { password: 'new-password' } }, want: [] },
    { name: 'a map where a value was', was: { db: 'old-password' }, now: { db: { password: 'new-password' } }, want: [] },
  ])('$name', ({ was, now, want }) => expect(priorSecrets(was, now, isSecret)).toEqual(want));
});

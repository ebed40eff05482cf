import { describe, expect, it } from 'vitest';
import { chooseTag, type TagPolicy } from '../../src/core/proposals/tag-policy.js';

describe('chooseTag', () => {
  it.each<{ name: string; policy: TagPolicy; tags: string[]; want: string }>([
    { name: 'highest in a 1.x range', policy: { semver: '1.x' }, tags: ['1.4.2', '2.0.0', '1.5.0', 'latest', '1.10.1'], want: '1.10.1' },
    { name: 'a leading v is a version', policy: { semver: '>=1.0.0 <2.0.0' }, tags: ['v1.2.0', 'v1.3.0'], want: 'v1.3.0' },
    { name: 'pre-releases only when the range asks', policy: { semver: '1.x' }, tags: ['1.4.0', '1.5.0-rc.1'], want: '1.4.0' },
    { name: 'the same version twice: the plain form', policy: { semver: '1.x' }, tags: ['v1.2.3', '1.2.3'], want: '1.2.3' },
    {
      name: 'numerical from an extracted group (Go syntax)',
      policy: { pattern: '^main-(?P<ts>\\d+)$', extract: '$ts', order: 'numerical' },
      tags: ['main-9', 'main-10', 'dev-99', 'main-x'],
      want: 'main-10',
    },
    { name: 'alphabetical is the default order', policy: { pattern: '^release-' }, tags: ['release-a', 'release-c', 'release-b'], want: 'release-c' },
    { name: '${name} and $1 expand too', policy: { pattern: '^(\\w+)-(?<n>\\d+)$', extract: '${n}', order: 'numerical' }, tags: ['a-2', 'b-11'], want: 'b-11' },
  ])('$name', ({ policy, tags, want }) => {
    expect(chooseTag(policy, tags)).toMatchObject({ kind: 'chosen', tag: want });
  });

  it('is the same whatever order the registry lists the tags in', () => {
    const tags = ['1.2.0', '1.10.0', '1.9.9', 'v1.10.0'];
    expect(chooseTag({ semver: '1.x' }, tags)).toEqual(chooseTag({ semver: '1.x' }, [...tags].reverse()));
  });

  it.each<{ name: string; policy: TagPolicy; tags: string[]; want: RegExp }>([
    { name: 'nothing in range', policy: { semver: '3.x' }, tags: ['1.0.0', 'latest'], want: /no tag in range 3\.x among 2 tags \(1 are versions\)/ },
    {
      name: 'nothing matches',
      policy: { pattern: '^main-(\\d+)$', extract: '$1', order: 'numerical' },
      tags: ['dev-1'],
      want: /no tag matches .* with a number to order by among 1 tags/,
    },
  ])('none: $name', ({ policy, tags, want }) => {
    const choice = chooseTag(policy, tags);
    expect(choice.kind).toBe('none');
    expect(choice.kind === 'none' && choice.why).toMatch(want);
  });

  it.each<{ policy: TagPolicy; want: RegExp }>([
    { policy: { semver: 'one point x' }, want: /policy\.semver "one point x" is not a semver range/ },
    { policy: { pattern: '^main-(' }, want: /policy\.pattern "\^main-\(" is not a regular expression/ },
  ])('invalid policy $policy is named', ({ policy, want }) => {
    const choice = chooseTag(policy, ['1.0.0']);
    expect(choice.kind).toBe('invalid');
    expect(choice.kind === 'invalid' && choice.why).toMatch(want);
  });
});

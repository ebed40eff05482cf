import { describe, expect, it } from 'vitest';
import { parseLsRemote, pickCommit } from '../../src/controller/charts/git/git-refs.js';
import { classifyGitFailure, gitFailureMessage } from '../../src/controller/charts/git/git-errors.js';
import { displayUrl, gitAccessFrom } from '../../src/controller/charts/git/git-access.js';
import { gitRevision } from '../../src/core/release/chart-revision.js';

const sha = (c: string) => c.repeat(40);
const lsRemote = [
  `${sha('a')}\tHEAD`,
  `${sha('a')}\trefs/heads/main`,
  `${sha('b')}\trefs/heads/release`,
  `${sha('c')}\trefs/tags/v1.2.0`,
  `${sha('d')}\trefs/tags/v1.2.0^{}`,
  `${sha('e')}\trefs/tags/1.10.0`,
  `${sha('f')}\trefs/tags/2.0.0`,
  `${sha('1')}\trefs/tags/not-a-version`,
].join('\n');

describe('git refs', () => {
  const refs = parseLsRemote(lsRemote);
  it.each([
    { name: 'no ref: HEAD', ref: undefined, want: { ok: true, commit: sha('a'), ref: 'HEAD (the default branch)' } },
    { name: 'a branch', ref: { branch: 'release' }, want: { ok: true, commit: sha('b'), ref: 'branch release' } },
    { name: 'an annotated tag is followed to its commit', ref: { tag: 'v1.2.0' }, want: { ok: true, commit: sha('d'), ref: 'tag v1.2.0', tag: 'v1.2.0' } },
    { name: 'semver: the newest match, v or not', ref: { semver: '1.x' }, want: { ok: true, commit: sha('e'), ref: 'tag 1.10.0', tag: '1.10.0' } },
    { name: 'semver: a narrower range', ref: { semver: '~1.2' }, want: { ok: true, commit: sha('d'), ref: 'tag v1.2.0', tag: 'v1.2.0' } },
    { name: 'a commit as given', ref: { commit: sha('9') }, want: { ok: true, commit: sha('9'), ref: 'commit 9999999' } },
    { name: 'a missing branch', ref: { branch: 'nope' }, want: { ok: false, problem: 'has no branch nope' } },
    { name: 'no tag in range', ref: { semver: '>=3' }, want: { ok: false, problem: 'has no tag matching >=3' } },
    {
      name: 'a bad range',
      ref: { semver: 'not a range!' },
      want: { ok: false, problem: ': "not a range!" is not a valid semver range (spec.chart.git.ref.semver)' },
    },
  ])('$name', ({ ref, want }) => expect(pickCommit(refs, ref)).toEqual(want));
});

describe('git failures', () => {
  it.each([
    { stderr: 'fatal: Authentication failed for http://x/', want: 'refused' },
    { stderr: "fatal: could not read Username for 'http://x': terminal prompts disabled", want: 'refused' },
    { stderr: 'git@x: Permission denied (publickey).', want: 'refused' },
    { stderr: 'Host key verification failed.', want: 'host-key' },
    { stderr: 'Load key "/tmp/k": invalid format', want: 'bad-key' },
    { stderr: 'fatal: unable to access: Failed to connect to 127.0.0.1 port 9: Connection refused', want: 'unreachable' },
  ])('$want: $stderr', ({ stderr, want }) => expect(classifyGitFailure(stderr, false)).toBe(want));

  it('without a Secret, a refusal reads like any other failure', () => {
    expect(gitFailureMessage('refused', 'https://x/r.git', { cacheKey: 'anonymous' })).toBe(
      gitFailureMessage('unreachable', 'https://x/r.git', { cacheKey: 'anonymous' }),
    );
  });
});

describe('git access', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  it('an ssh:// URL needs known_hosts: host keys are always checked', () => {
    expect(() => gitAccessFrom({ url: 'ssh://git@x/r.git', namespace: 'n', secretName: 's', secretData: { identity: b64('KEY') } })).toThrow(
      /needs known_hosts/,
    );
    expect(() => gitAccessFrom({ url: 'ssh://git@x/r.git', namespace: 'n' })).toThrow(/must name a Secret/);
  });
  it('shows no credential when logged', () => {
    const access = gitAccessFrom({ url: 'https://x/r.git', namespace: 'n', secretName: 's', secretData: { username: b64('u'), password: b64('hunter22') } });
    expect(JSON.stringify({ access })).not.toContain('hunter22');
    expect(access.basic?.password).toBe('hunter22');
  });
  it('URLs in messages carry no user', () => expect(displayUrl('ssh://git@x:22/r.git')).toBe('ssh://x:22/r.git'));
  it('the revision is the version plus the short commit', () => {
    expect(gitRevision('1.2.0', `git:${sha('a')}`)).toBe('1.2.0+aaaaaaa');
    expect(gitRevision('1.2.0', 'sha256:abc')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { pickCommit } from '../../src/controller/charts/git/git-refs.js';
import { submoduleUrls } from '../../src/controller/charts/git/submodules.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const refs = new Map([
  ['HEAD', A],
  ['refs/heads/main', A],
  ['refs/tags/v1.0.0', B],
  ['refs/pull/42/head', C],
]);

describe('pickCommit: ref.name (a full reference) and the tag git.verify checks', () => {
  it.each([
    { name: 'a pull request head', ref: { name: 'refs/pull/42/head' }, want: { ok: true, commit: C, ref: 'refs/pull/42/head' } },
    { name: 'a branch by its full name', ref: { name: 'refs/heads/main' }, want: { ok: true, commit: A, ref: 'refs/heads/main' } },
    { name: 'a tag by its full name names the tag', ref: { name: 'refs/tags/v1.0.0' }, want: { ok: true, commit: B, tag: 'v1.0.0' } },
    { name: 'ref.tag names the tag', ref: { tag: 'v1.0.0' }, want: { ok: true, commit: B, tag: 'v1.0.0' } },
    { name: 'ref.semver names the tag it picks', ref: { semver: '1.x' }, want: { ok: true, commit: B, tag: 'v1.0.0' } },
    { name: 'a name the server does not list', ref: { name: 'refs/pull/7/head' }, want: { ok: false, problem: 'has no refs/pull/7/head' } },
  ])('$name', ({ ref, want }) => {
    expect(pickCommit(refs, ref)).toMatchObject(want);
  });

  it('a branch names no tag (mode Tag then has none to check)', () => {
    expect(pickCommit(refs, { branch: 'main' })).not.toHaveProperty('tag');
  });
});

describe('submoduleUrls: what .gitmodules names, as git resolves it', () => {
  it.each([
    { name: 'relative to the parent', listed: 'submodule.vendor.url ../vendored.git\n', want: ['http://127.0.0.1:8080/vendored.git'] },
    { name: 'beside it', listed: 'submodule.a.url ./sub.git', want: ['http://127.0.0.1:8080/charts.git/sub.git'] },
    { name: 'absolute', listed: 'submodule.x.url https://git.example/x.git', want: ['https://git.example/x.git'] },
    { name: 'scp-like ssh', listed: 'submodule.x.url git@git.example:team/x.git', want: ['ssh://git@git.example/team/x.git'] },
    { name: 'a local path stays as written (the host policy refuses it)', listed: 'submodule.x.url /srv/x.git', want: ['/srv/x.git'] },
    { name: 'none', listed: '', want: [] },
  ])('$name', ({ listed, want }) => {
    expect(submoduleUrls(listed, 'http://127.0.0.1:8080/charts.git')).toEqual(want);
  });
});

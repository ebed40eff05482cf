import { describe, expect, it } from 'vitest';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';

/** `--cluster NAME` and the short form `NAME/namespace/release` (issue 32): which verbs take them, and what is refused. */
describe('a fleet cluster in a /release line', () => {
  it.each([
    ['suspend web/unicorn --cluster edge', { verb: 'suspend', release: { namespace: 'web', name: 'unicorn' }, cluster: 'edge' }],
    ['suspend edge/web/unicorn', { verb: 'suspend', release: { namespace: 'web', name: 'unicorn' }, cluster: 'edge' }],
    ['status unicorn --cluster=prod-eu', { verb: 'status', release: { name: 'unicorn' }, cluster: 'prod-eu' }],
    [
      'rollback prod-eu/web/unicorn to 3 --reason bad',
      { verb: 'rollback', release: { namespace: 'web', name: 'unicorn' }, revision: 3, reason: 'bad', cluster: 'prod-eu' },
    ],
    ['upgrade edge/web/unicorn 2.0.0 --cluster edge', { verb: 'upgrade', release: { namespace: 'web', name: 'unicorn' }, version: '2.0.0', cluster: 'edge' }],
    ['list --cluster all', { verb: 'list', cluster: 'all' }],
    ['list web --cluster EDGE', { verb: 'list', namespace: 'web', cluster: 'edge' }],
    ['history edge/web/unicorn', { verb: 'history', release: { namespace: 'web', name: 'unicorn' }, cluster: 'edge' }],
    ['diff edge/web/unicorn 2.0.0', { verb: 'diff', release: { namespace: 'web', name: 'unicorn' }, version: '2.0.0', cluster: 'edge' }],
    ['resume edge/web/unicorn', { verb: 'resume', release: { namespace: 'web', name: 'unicorn' }, cluster: 'edge' }],
    ['correct edge/web/unicorn', { verb: 'correct', release: { namespace: 'web', name: 'unicorn' }, cluster: 'edge' }],
    ['retry edge/web/unicorn', { verb: 'retry', release: { namespace: 'web', name: 'unicorn' }, cluster: 'edge' }],
    ['test edge/web/unicorn', { verb: 'test', release: { namespace: 'web', name: 'unicorn' }, cluster: 'edge' }],
  ])('%s', (input, command) => {
    expect(parseReleaseCommand(input)).toEqual({ ok: true, command });
  });

  it('a line without a cluster has no cluster field (a single cluster parses as before)', () => {
    expect(parseReleaseCommand('suspend web/unicorn')).toEqual({ ok: true, command: { verb: 'suspend', release: { namespace: 'web', name: 'unicorn' } } });
  });

  it.each([
    ['suspend edge/web/unicorn --cluster home', 'invalid-cluster', 'names cluster "edge" and --cluster says "home"'],
    ['suspend web/unicorn --cluster all', 'invalid-cluster', '--cluster all is for list'],
    ['suspend web/unicorn --cluster Not_A_Name', 'invalid-cluster', 'is not a cluster name'],
    ['suspend web/unicorn --cluster', 'invalid-freeze-end', '--cluster needs a value, like --cluster prod-eu'],
    ['freeze web --reason x --cluster edge', 'unexpected-argument', 'freeze takes no --cluster'],
    ['promote edge/web/unicorn --from staging --to prod', 'invalid-release', 'without a cluster'],
    ['status a/b/c/d', 'invalid-release', 'is not a release'],
    ['status EDGE_/web/unicorn', 'invalid-release', 'is not a release'],
    ['suspend web/unicorn --cluster edge --cluster home', 'unexpected-argument', 'given twice'],
  ])('%s is refused (%s)', (input, code, words) => {
    const parsed = parseReleaseCommand(input);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe(code);
    expect(parsed.error.message).toContain(words);
  });
});

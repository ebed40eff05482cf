import { describe, expect, it } from 'vitest';
import { checkKeyFiles } from '../../../src/session/fleet/fleet-keys.js';
import { commandForCluster, whichCluster } from '../../../src/session/fleet/which-cluster.js';
import { whichClusterMessage } from '../../../src/bot/slack/blocks.js';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';
import { CLUSTER_CHOICE_ACTION_PATTERN, isOurActionId } from '../../../src/core/slack/action-ids.js';

describe('which cluster a release name means', () => {
  it.each([
    {
      name: 'found in one cluster: that one',
      searches: [
        { cluster: 'home', matches: 0 },
        { cluster: 'edge', matches: 1 },
      ],
      want: { kind: 'one', cluster: 'edge' },
    },
    {
      name: 'found in two namespaces of one cluster: still that cluster (it asks which namespace)',
      searches: [
        { cluster: 'edge', matches: 2 },
        { cluster: 'home', matches: 0 },
      ],
      want: { kind: 'one', cluster: 'edge' },
    },
    {
      name: 'found in several: ask, never guess',
      searches: [
        { cluster: 'home', matches: 1 },
        { cluster: 'edge', matches: 1 },
        { cluster: 'prod', matches: 0 },
      ],
      want: { kind: 'ask', clusters: ['edge', 'home'] },
    },
    { name: 'found nowhere', searches: [{ cluster: 'home', matches: 0 }, { cluster: 'edge' }], want: { kind: 'none' } },
    {
      name: 'a cluster that could not be asked counts as no match',
      searches: [{ cluster: 'home', matches: 1 }, { cluster: 'edge' }],
      want: { kind: 'one', cluster: 'home' },
    },
  ])('$name', ({ searches, want }) => {
    expect(whichCluster(searches)).toEqual(want);
  });

  it('each button carries the same command for its cluster, and that command parses', () => {
    const message = whichClusterMessage('"unicorn" is in 2 clusters (edge, home): which cluster?', 'suspend unicorn --reason db down', ['edge', 'home']);
    const actions = message.blocks!.find((b) => (b as { type: string }).type === 'actions') as {
      elements: Array<{ action_id: string; value: string; text: { text: string } }>;
    };
    expect(actions.elements.map((e) => [e.text.text, e.value])).toEqual([
      ['edge', 'suspend unicorn --reason db down --cluster edge'],
      ['home', 'suspend unicorn --reason db down --cluster home'],
    ]);
    // Slack wants distinct ids in one block; the bot's listener and the unknown-request answer both know them.
    expect(actions.elements.map((e) => e.action_id)).toEqual(['release_cluster_choice.edge', 'release_cluster_choice.home']);
    expect(actions.elements.every((e) => CLUSTER_CHOICE_ACTION_PATTERN.test(e.action_id) && isOurActionId(e.action_id))).toBe(true);
    expect(isOurActionId('release_cluster_choice.Not_A_Cluster')).toBe(false);
    expect(parseReleaseCommand(commandForCluster('suspend unicorn --reason db down', 'edge'))).toMatchObject({
      ok: true,
      command: { cluster: 'edge', reason: 'db down' },
    });
  });

  it('a command too long for a button value is asked without buttons', () => {
    const message = whichClusterMessage('which cluster?', `suspend unicorn --reason ${'x'.repeat(1990)}`, ['edge', 'home']);
    expect(message.blocks!.some((b) => (b as { type: string }).type === 'actions')).toBe(false);
    expect(message.text).toContain('Add --cluster NAME');
  });
});

describe('the bot’s fleet keys', () => {
  it('one file per cluster; dot-names of a Secret volume skipped; bad names and short keys named, never their content', () => {
    const secret = 'short-secret';
    const checked = checkKeyFiles([
      { name: 'edge', content: `${'e'.repeat(64)}\n` },
      { name: '..data', content: 'x' },
      { name: 'home', content: secret },
      { name: 'Prod_EU', content: 'p'.repeat(64) },
      { name: 'default', content: 'd'.repeat(64) },
    ]);
    expect(checked.clusters).toEqual(['edge']);
    expect(checked.problems).toEqual([
      'the key of cluster "home" has 12 characters; at least 32 (openssl rand -hex 32)',
      '"Prod_EU" is not a cluster name (a DNS label, as HELMCREW_CLUSTER_NAME)',
      '"default" is not a cluster name (a DNS label, as HELMCREW_CLUSTER_NAME)',
    ]);
    expect(checked.problems.join()).not.toContain(secret);
  });
});

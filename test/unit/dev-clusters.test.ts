import { describe, expect, it } from 'vitest';
import { HOME_CLUSTER, kubeconfigVariable, MAX_DEV_CLUSTERS, parseClustersFlag } from '../../src/dev/dev-clusters.js';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { formatShellExports } from '../../src/dev/shell-exports.js';

describe('dev up --clusters', () => {
  it.each([
    { given: '1', want: [HOME_CLUSTER] },
    { given: '3', want: ['home', 'edge-1', 'edge-2'] },
    { given: ' home,staging,prod-eu ', want: ['home', 'staging', 'prod-eu'] },
    { given: 'prod', want: ['prod'] },
  ])('$given → $want', ({ given, want }) => {
    expect(parseClustersFlag(given)).toEqual({ ok: true, names: want });
  });

  it.each([
    { given: '', want: /--clusters takes a count \(1-8: home, edge-1, edge-2, …\) or names/ },
    { given: '0', want: /got 0$/ },
    { given: String(MAX_DEV_CLUSTERS + 1), want: /got 9$/ },
    { given: 'home,Prod,a_b', want: /each name a DNS label .*not "Prod", "a_b"/ },
    { given: 'home,,prod', want: /not ""/ },
    { given: 'home,prod,home', want: /a name is given twice in "home,prod,home"/ },
  ])('"$given" is refused: $want', ({ given, want }) => {
    const parsed = parseClustersFlag(given);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(want);
  });

  it('each cluster’s kubeconfig has a variable of its own, distinct for distinct names', () => {
    expect(kubeconfigVariable('home')).toBe('KUBECONFIG_HOME');
    expect(kubeconfigVariable('edge-1')).toBe('KUBECONFIG_EDGE_1');
    expect(kubeconfigVariable('edge1')).not.toBe(kubeconfigVariable('edge-1'));
  });

  it('dev env names every cluster and its kubeconfig for a fleet, and nothing more for one cluster', () => {
    const one: DevEnvironment = {
      stateDir: '/s',
      kubeconfig: '/s/kubeconfig',
      redisUrl: 'redis://127.0.0.1:6390',
      chartRepoUrl: 'http://127.0.0.1:1',
      ociRegistry: { url: 'oci://127.0.0.1:2/charts', authUrl: 'oci://127.0.0.1:3/charts', username: 'helmcrew', passwordFile: '/s/pw' },
      helmBin: '/h',
      kubectlBin: '/k',
      kustomizeBin: '/z',
      sopsBin: '/bin/sops',
      cosignBin: '/bin/cosign',
      notationVerifyBin: '/bin/notation-verify',
      processes: [],
    };
    expect(formatShellExports(one)).not.toMatch(/HELMCREW_DEV_CLUSTERS|KUBECONFIG_/);
    const fleet = formatShellExports({
      ...one,
      clusters: [
        { name: 'home', kubeconfig: '/s/kubeconfig', apiserverUrl: 'https://127.0.0.1:4' },
        { name: 'edge-1', kubeconfig: "/s/clusters/edge-1/it's", apiserverUrl: 'https://127.0.0.1:5' },
      ],
    });
    expect(fleet).toMatch(/^export KUBECONFIG='\/s\/kubeconfig'$/m);
    expect(fleet).toMatch(/^export REDIS_URL='redis:\/\/127\.0\.0\.1:6390'$/m);
    expect(fleet).toMatch(/^export HELMCREW_DEV_CLUSTERS='home edge-1'$/m);
    expect(fleet).toMatch(/^export KUBECONFIG_HOME='\/s\/kubeconfig'$/m);
    expect(fleet).toMatch(/^export KUBECONFIG_EDGE_1='\/s\/clusters\/edge-1\/it'\\''s'$/m);
  });
});

import type { V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planRecordMove } from '../../src/cli/import/flux/move-records.js';

const record = (name: string, revision: number, namespace: string, owner = 'helm'): V1Secret => ({
  metadata: { name: `sh.helm.release.v1.${name}.v${revision}`, namespace, labels: { owner, name, status: 'superseded', version: String(revision) } },
  type: 'helm.sh/release.v1',
  data: { release: Buffer.from(`${name}-${revision}`).toString('base64') },
});
const target = { releaseName: 'web', namespace: 'apps', storageNamespace: 'flux-system' };

describe("moving a Flux release's records to the release's namespace (pure)", () => {
  it('copies every record of the release, unchanged, oldest first, into the release namespace', () => {
    const plan = planRecordMove(target, [record('web', 2, 'flux-system'), record('web', 1, 'flux-system'), record('webby', 1, 'flux-system')], []);
    expect(plan.refusals).toEqual([]);
    expect(plan.copies.map((c) => [c.metadata?.name, c.metadata?.namespace])).toEqual([
      ['sh.helm.release.v1.web.v1', 'apps'],
      ['sh.helm.release.v1.web.v2', 'apps'],
    ]);
    expect(plan.copies[1]).toMatchObject({
      type: 'helm.sh/release.v1',
      data: record('web', 2, 'x').data,
      metadata: { labels: { owner: 'helm', name: 'web', version: '2' } },
    });
  });

  it('refuses when there is nothing to move, or the release namespace has a history of its own', () => {
    expect(planRecordMove(target, [record('web', 1, 'flux-system', 'someone')], []).refusals).toEqual([
      'no release records of web in flux-system (sh.helm.release.v1.web.v*, label owner=helm)',
    ]);
    expect(planRecordMove(target, [record('web', 1, 'flux-system')], [record('web', 1, 'apps')]).refusals).toEqual([
      'apps already holds records of a release web (sh.helm.release.v1.web.v1): two histories cannot be merged; uninstall or move that one first',
    ]);
  });
});

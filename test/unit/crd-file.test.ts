import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCrds } from '../../src/api/crd.js';
import { REPO_ROOT } from '../../src/dev/paths.js';

describe('the CRDs under helm/', () => {
  it.each(allCrds().map((c) => ({ file: c.file, yaml: c.yaml })))(
    '$file is what src/api generates (run `npx tsx src/cli/main.ts crds write` after changing the API)',
    async ({ file, yaml }) => {
      expect(await readFile(join(REPO_ROOT, file), 'utf8')).toBe(yaml);
    },
  );

  it('covers HelmRelease, Team and Freeze', () => {
    expect(allCrds().map((c) => c.file)).toEqual([
      'helm/helmcrew/crds/helmreleases.helmcrew.dev.yaml',
      'helm/helmcrew/crds/teams.helmcrew.dev.yaml',
      'helm/helmcrew/crds/freezes.helmcrew.dev.yaml',
    ]);
  });
});

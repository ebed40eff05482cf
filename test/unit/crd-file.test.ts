import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CRD_FILE, renderCrdYaml } from '../../src/api/crd.js';
import { REPO_ROOT } from '../../src/dev/paths.js';

describe('the CRD under helm/', () => {
  it('is what src/api generates (run `npx helmcrew crds write` after changing the API)', async () => {
    expect(await readFile(join(REPO_ROOT, CRD_FILE), 'utf8')).toBe(renderCrdYaml());
  });
});

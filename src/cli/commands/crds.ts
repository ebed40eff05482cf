import { writeFile } from 'node:fs/promises';
import { allCrds } from '../../api/crd.js';
import { applyCrds } from '../../core/kube/crd-installer.js';
import { loadKubeConfig } from '../../core/kube/client.js';

export async function crdsCommand(args: string[]): Promise<number> {
  switch (args[0]) {
    case 'print':
      process.stdout.write(
        allCrds()
          .map((c) => c.yaml)
          .join('---\n'),
      );
      return 0;
    case 'write':
      for (const { file, yaml } of allCrds()) {
        await writeFile(file, yaml);
        console.error(`wrote ${file}`);
      }
      return 0;
    case 'apply':
      await applyCrds(loadKubeConfig());
      console.error('HelmRelease and Team CRDs applied and established');
      return 0;
    default:
      console.error('usage: helmcrew crds print|write|apply');
      return 2;
  }
}

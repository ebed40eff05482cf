import { writeFile } from 'node:fs/promises';
import { allCrds } from '../../api/crd.js';

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
    case 'apply': {
      // Only applying needs the Kubernetes client (print and write are the CRDs' YAML alone).
      const [{ applyCrds }, { loadKubeConfig }] = await Promise.all([import('../../core/kube/crd-installer.js'), import('../../core/kube/client.js')]);
      await applyCrds(loadKubeConfig());
      console.error('HelmRelease and Team CRDs applied and established');
      return 0;
    }
    default:
      console.error('usage: helmcrew crds print|write|apply');
      return 2;
  }
}

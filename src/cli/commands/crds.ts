import { writeFile } from 'node:fs/promises';
import { CRD_FILE, renderCrdYaml } from '../../api/crd.js';
import { applyHelmReleaseCrd } from '../../controller/kube/crd-installer.js';
import { loadKubeConfig } from '../../controller/kube/client.js';

export async function crdsCommand(args: string[]): Promise<number> {
  switch (args[0]) {
    case 'print':
      process.stdout.write(renderCrdYaml());
      return 0;
    case 'write':
      await writeFile(CRD_FILE, renderCrdYaml());
      console.error(`wrote ${CRD_FILE}`);
      return 0;
    case 'apply':
      await applyHelmReleaseCrd(loadKubeConfig());
      console.error('HelmRelease CRD applied and established');
      return 0;
    default:
      console.error('usage: helmcrew crds print|write|apply');
      return 2;
  }
}

import type { HelmRunner, HelmRunOptions } from './helm-runner.js';
import { withPrivateFiles } from './private-files.js';

/**
 * Runs helm against another cluster (spec.kubeConfig): the target's kubeconfig is written for
 * each helm process as a 0600 file in a private folder of the work directory (private-files.ts),
 * named by KUBECONFIG, and removed when helm ends. Never argv, never the environment's value,
 * never logged: the file holds the target's credentials.
 */
export class KubeconfigHelmRunner implements Pick<HelmRunner, 'run'> {
  constructor(
    private readonly runner: Pick<HelmRunner, 'run'>,
    private readonly workDir: string,
    private readonly kubeconfig: string,
  ) {}

  run(args: string[], opts: HelmRunOptions): Promise<string> {
    return withPrivateFiles(this.workDir, { kubeconfig: this.kubeconfig }, (paths) =>
      this.runner.run(args, { ...opts, env: { ...opts.env, KUBECONFIG: paths.kubeconfig! } }),
    );
  }
}

import { execa, type ResultPromise } from 'execa';
import { join } from 'node:path';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';
import { REPO_ROOT } from '../../src/dev/paths.js';

export interface ControllerProcessOptions {
  helmBin: string;
  namespace: string;
  prefix: string;
  /** The replica's work directory and log go here, named after `replica`. */
  dir: string;
  replica: string;
  /** Added to (and above) the common settings. */
  env?: Record<string, string>;
}

/** `helmcrew controller` as its own process on the test environment, one replica of several on one queue; stderr goes to `<dir>/controller-<replica>.log`. */
export function startControllerProcess(env: DevEnvironment, o: ControllerProcessOptions): ResultPromise {
  return execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
    env: {
      KUBECONFIG: env.kubeconfig,
      REDIS_URL: env.redisUrl,
      HELM_BIN: o.helmBin,
      WATCH_NAMESPACES: o.namespace,
      HELMCREW_QUEUE_PREFIX: o.prefix,
      HELMCREW_WORK_DIR: join(o.dir, `work-${o.replica}`),
      LOG_LEVEL: 'info',
      // Written before the safe defaults: loopback chart servers and the controller's rights, set explicitly.
      ...CONTROLLER_RIGHTS_SETTINGS,
      ...o.env,
    },
    stdout: 'ignore',
    stderr: { file: join(o.dir, `controller-${o.replica}.log`) },
    reject: false,
  });
}

import { createLogger } from '../../log.js';
import { devDown, devUp, formatShellExports, isDevEnvironmentAlive, readDevEnvironment } from '../../dev/environment.js';

/** The state dir is HELMCREW_STATE_DIR, else <repo>/.helmcrew/dev (src/dev/paths.ts). */
export async function devCommand(args: string[]): Promise<number> {
  const log = createLogger('dev');
  switch (args[0]) {
    case 'up': {
      const env = await devUp({ log });
      process.stdout.write(formatShellExports(env));
      console.error(`\nenvironment up; use it with:  eval "$(npx helmcrew dev env)"`);
      return 0;
    }
    case 'down':
      await devDown({ log });
      return 0;
    case 'env': {
      const env = await readDevEnvironment();
      if (!env) {
        console.error('helmcrew: no local environment is up; run `npx helmcrew dev up`');
        return 1;
      }
      if (!isDevEnvironmentAlive(env)) {
        console.error('helmcrew: the local environment was started but some of its processes have died; run `npx helmcrew dev up` to restart it');
        return 1;
      }
      process.stdout.write(formatShellExports(env));
      return 0;
    }
    default:
      console.error('usage: helmcrew dev up|down|env');
      return 2;
  }
}

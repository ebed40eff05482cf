import { createLogger } from '../../core/log.js';
import { checkDevEnvironment, devDown, devUp, formatShellExports } from '../../dev/environment.js';

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}

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
      const check = await checkDevEnvironment();
      switch (check.state) {
        case 'none':
          console.error('helmcrew: no local environment is up; run `npx helmcrew dev up`');
          return 1;
        case 'down':
          console.error(
            `helmcrew: the local environment does not answer and these processes are gone: ${check.dead.join(', ')}; run \`npx helmcrew dev up\` to restart it`,
          );
          return 1;
        case 'up':
          if (check.replaced.length > 0) {
            console.error(
              `helmcrew: note: ${check.replaced.join(', ')} run with a new pid (restarted outside \`dev up\`); the environment answers, but \`dev down\` will not stop them`,
            );
          }
          process.stdout.write(formatShellExports(check.env));
          return 0;
        default:
          return assertNever(check);
      }
    }
    default:
      console.error('usage: helmcrew dev up|down|env');
      return 2;
  }
}

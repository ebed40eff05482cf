import { createLogger } from '../../core/log.js';
import { checkDevEnvironment, devDown, devUp } from '../../dev/environment.js';
import type { DevEnvironment } from '../../dev/env-file.js';
import { formatShellExports } from '../../dev/shell-exports.js';
import { kubeconfigVariable, parseClustersFlag } from '../../dev/dev-clusters.js';

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}

const USAGE = 'usage: helmcrew dev up [--clusters N|name,name,…] | down | env';

/** `--clusters 3` or `--clusters=home,prod`: the names, undefined when not given, or a message. */
function clustersOption(args: string[]): { names?: string[] } | { error: string } {
  const rest = args.slice(1);
  if (rest.length === 0) return {};
  const [flag, value] = rest[0]!.startsWith('--clusters=') ? ['--clusters', rest[0]!.slice('--clusters='.length)] : [rest[0], rest[1]];
  const used = rest[0]!.startsWith('--clusters=') ? 1 : 2;
  if (flag !== '--clusters' || rest.length > used) return { error: `${USAGE}   (unknown: ${rest.join(' ')})` };
  const parsed = parseClustersFlag(value);
  return parsed.ok ? { names: parsed.names } : { error: `helmcrew: ${parsed.message}` };
}

/** For people (stderr): how an agent of each cluster of a local fleet is started. */
function fleetHint(env: DevEnvironment): string {
  if (!env.clusters) return '';
  const lines = env.clusters.map(
    (c) => `  ${c.name.padEnd(10)} KUBECONFIG=$${kubeconfigVariable(c.name)} HELMCREW_CLUSTER_NAME=${c.name} npx helmcrew controller`,
  );
  return `\n${env.clusters.length} clusters on one Redis (REDIS_URL=${env.redisUrl}); an agent for each:\n${lines.join('\n')}`;
}

/** The state dir is HELMCREW_STATE_DIR, else <repo>/.helmcrew/dev (src/dev/paths.ts). */
export async function devCommand(args: string[]): Promise<number> {
  const log = createLogger('dev');
  switch (args[0]) {
    case 'up': {
      const option = clustersOption(args);
      if ('error' in option) {
        console.error(option.error);
        return 2;
      }
      const env = await devUp({ log, ...(option.names ? { clusters: option.names } : {}) });
      process.stdout.write(formatShellExports(env));
      console.error(`\nenvironment up; use it with:  eval "$(npx helmcrew dev env)"${fleetHint(env)}`);
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
      console.error(USAGE);
      return 2;
  }
}

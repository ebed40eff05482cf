import { ConfigError } from '../config.js';

const USAGE = `helmcrew — keeps Helm releases as declared

usage:
  helmcrew controller          run the reconcile loop (replicas share the Redis queue)
  helmcrew run                 everything in one process (today: the controller)
  helmcrew dev up|down|env     the local environment: Kubernetes, Redis, helm, chart repository
  helmcrew demo                the unicorn story on the local environment
  helmcrew crds print|write|apply
                               the HelmRelease and Team CRDs: to stdout, to helm/, or to the cluster

configuration: KUBECONFIG, REDIS_URL, HELM_BIN, WATCH_NAMESPACES, HELMCREW_CONCURRENCY, LOG_LEVEL`;

type Command = (args: string[]) => Promise<number>;

// Loaded on demand: the controller process does not carry the dev, demo and CRD-building code
// (about 10 MiB of RSS, bench/RESULTS.md).
const commands: Record<string, () => Promise<Command>> = {
  controller: async () => (await import('./commands/controller.js')).controllerCommand,
  run: async () => (await import('./commands/controller.js')).controllerCommand,
  dev: async () => (await import('./commands/dev.js')).devCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  crds: async () => (await import('./commands/crds.js')).crdsCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    console.error(`helmcrew: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  return (await load())(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(`helmcrew: ${error.message}`);
    else console.error(`helmcrew: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = error instanceof ConfigError ? 2 : 1;
  },
);

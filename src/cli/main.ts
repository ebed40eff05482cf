import { ConfigError } from '../core/config/env.js';
import { unreachableReason } from '../core/kube/errors.js';

const USAGE = `helmcrew — keeps Helm releases as declared

usage:
  helmcrew controller          run the reconcile loop (replicas share the Redis queue)
  helmcrew notify              route and deliver notifications to Teams (replicas share the queue)
  helmcrew run                 everything in one process: controller + notify, the bot when SLACK_BOT_TOKEN is set,
                               the web pages when HELMCREW_WEB_LISTEN is set
  helmcrew dev up|down|env     the local environment: Kubernetes, Redis, helm, chart repository;
                               dev up --clusters N: N control planes on one Redis (a local fleet)
  helmcrew bot                 the /release Slack bot (Socket Mode with SLACK_APP_TOKEN, else HTTP on PORT)
  helmcrew web                 the release pages on the web, with sign-in (HELMCREW_WEB_URL, an OIDC provider or Sign in with Slack)
  helmcrew token create --user <slack user id> --scope read|propose --expires <duration>
  helmcrew token revoke <id or token>
                               assistants' tokens: act as that person, read or propose (docs/mcp.md)
  helmcrew mcp --token-file F  the assistants' tools (MCP) over stdio, for a desktop client; over HTTP: <web url>/mcp
  helmcrew release <verb> …    the /release grammar as the kubeconfig user (try: helmcrew release help);
                               --yes skips the confirmation, --no-wait does not wait for the controller
  helmcrew demo                the unicorn story on the local environment
  helmcrew fleet [--json]      the clusters whose agents share this Redis: up, or unreachable since when
  helmcrew fleet acl --clusters A,B --passwords DIR
                               the fleet's Redis ACL users (an agent per cluster, the hub), passwords from files
  helmcrew crds print|write|apply
                               the HelmRelease and Team CRDs: to stdout, to helm/, or to the cluster
  helmcrew config print|write  the environment variables every part reads, as docs/configuration.md's table
  helmcrew import flux [-f FILE]… [-n NS] [--apply] [--no-handover] [--move-records]
                               Flux HelmReleases (from files or the cluster) as helmcrew's, with a
                               report of what cannot be carried (docs/flux-import.md)

configuration: environment variables, every one in docs/configuration.md (helmcrew config print)`;

type Command = (args: string[]) => Promise<number>;

// Loaded on demand: the controller process does not carry the dev, demo, Slack and CRD-building
// code (docs/performance.md, issue 9).
const commands: Record<string, () => Promise<Command>> = {
  controller: async () => (await import('./commands/controller.js')).controllerCommand,
  notify: async () => (await import('./commands/notify.js')).notifyCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  dev: async () => (await import('./commands/dev.js')).devCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  crds: async () => (await import('./commands/crds.js')).crdsCommand,
  config: async () => (await import('./commands/config.js')).configCommand,
  release: async () => (await import('./commands/release.js')).releaseCommand,
  bot: async () => (await import('./commands/bot.js')).botCommand,
  web: async () => (await import('./commands/web.js')).webCommand,
  token: async () => (await import('./commands/token.js')).tokenCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
  import: async () => (await import('./commands/import.js')).importCommand,
  fleet: async () => (await import('./commands/fleet.js')).fleetCommand,
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
    console.error(`helmcrew: ${startFailure(error)}`);
    process.exitCode = error instanceof ConfigError ? 2 : 1;
  },
);

/** One line for what a person can fix (configuration, a server that cannot be reached); the stack only for a bug. */
function startFailure(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const unreachable = unreachableReason(error);
  if (unreachable) return `cannot reach a server (${unreachable}): is it up, and does KUBECONFIG (or REDIS_URL, SLACK_API_URL) name it?`;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

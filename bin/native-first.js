// In a checkout the CLI runs its TypeScript through tsx, whose module hooks run on a thread of their
// own: every ES module imported after they are registered is resolved and loaded by messages to
// that thread, which makes a library of many ES modules 2-2.5x slower to load
// (@kubernetes/client-node, 868 modules: ~1.1 s alone, ~2.5 s after tsx). bin/helmcrew.js imports
// these, before registering tsx, for the commands that load them in any case; the TypeScript then
// finds them loaded. Only what the command loads anyway: the controller must not carry client-node
// (test/unit/controller-module-graph.test.ts checks these lists against what each command loads).
const CLIENT_NODE = '@kubernetes/client-node';
const TYPEBOX = '@sinclair/typebox';
const EXECA = 'execa';
const CEL = '@marcbachmann/cel-js';

/** @type {Readonly<Record<string, readonly string[]>>} */
export const NATIVE_FIRST = {
  controller: [TYPEBOX, EXECA, CEL],
  run: [TYPEBOX, EXECA, CEL],
  bot: [],
  release: [CLIENT_NODE, TYPEBOX],
  import: [CLIENT_NODE, TYPEBOX],
  crds: [TYPEBOX],
  dev: [CLIENT_NODE, TYPEBOX, EXECA],
  demo: [CLIENT_NODE, TYPEBOX, EXECA, CEL],
};

/** The libraries to import before tsx for the command named by the CLI's first argument. */
export function nativeFirst(command) {
  return command && Object.hasOwn(NATIVE_FIRST, command) ? NATIVE_FIRST[command] : [];
}

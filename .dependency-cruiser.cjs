// The import rule of docs/architecture.md, checked by `make test` (npm run lint:imports).
// controller, notify and the surfaces (bot: Slack; web; mcp: assistants) are siblings on a shared core; the surfaces act
// through src/session (the one release session and verb table); the CLI is the only composition root.
const PARTS = 'controller|notify|bot|web|mcp';
const SURFACES = 'bot|web|mcp';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'parts-are-siblings',
      comment: 'controller, notify and bot never import one another: what two of them need belongs in src/core (the CLI wires them together).',
      severity: 'error',
      from: { path: `^src/(${PARTS})/` },
      to: { path: `^src/(${PARTS})/`, pathNot: '^src/$1/' },
    },
    {
      name: 'part-stays-in-its-folder',
      comment: 'controller and notify import their own folder, src/core and src/api only: nothing from a folder above it, src/session, src/dev or src/cli.',
      severity: 'error',
      from: { path: '^src/(controller|notify)/' },
      to: { path: '^src/', pathNot: ['^src/$1/', '^src/core/', '^src/api/', `^src/(${PARTS})/`] },
    },
    {
      name: 'surface-acts-through-the-session',
      comment:
        'A surface (Slack, web, assistants: mcp) imports its own folder, src/session, src/core and src/api only: who may do what is decided in src/session.',
      severity: 'error',
      from: { path: `^src/(${SURFACES})/` },
      to: { path: '^src/', pathNot: ['^src/$1/', '^src/session/', '^src/core/', '^src/api/', `^src/(${PARTS})/`] },
    },
    {
      name: 'session-serves-every-surface',
      comment: "src/session (the release session, the verb table's handlers, authorization, plans) imports only itself, src/core and src/api: never a surface.",
      severity: 'error',
      from: { path: '^src/session/' },
      to: { path: '^src/', pathNot: ['^src/session/', '^src/core/', '^src/api/'] },
    },
    {
      name: 'core-imports-no-part',
      comment: 'src/core is shared by every part and imports none of them (only itself and src/api).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: ['^src/core/', '^src/api/'] },
    },
    {
      name: 'api-imports-nothing-of-ours',
      comment: 'src/api is types, schemas and the vocabulary: it imports only itself.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/api/' },
    },
    {
      name: 'dev-uses-the-core-only',
      comment: 'The local environment and its fakes build on src/core and src/api, never on a part or the CLI.',
      severity: 'error',
      from: { path: '^src/dev/' },
      to: { path: '^src/', pathNot: ['^src/dev/', '^src/core/', '^src/api/'] },
    },
    {
      name: 'cli-is-the-only-composition-root',
      comment: 'Only the CLI (and tests and benches) may import src/cli.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'controller-layers',
      comment: 'Inside the controller, helm/ and status/ are used by reconcile/, never the other way round.',
      severity: 'error',
      from: { path: '^src/controller/(helm|status)/' },
      to: { path: '^src/controller/reconcile/' },
    },
    {
      name: 'drift-and-crds-below-reconcile',
      comment: 'drift/ and crds/ are used by reconcile/, never the other way round: what they share with it belongs in helm/ or src/core.',
      severity: 'error',
      from: { path: '^src/controller/(drift|crds)/' },
      to: { path: '^src/controller/reconcile/' },
    },
    {
      name: 'decisions-are-pure',
      comment:
        'reconcile/decide/ holds the pure decisions: it may use (beyond types) only the API types, the release model, status builders and other pure helpers — no Kubernetes client, helm, Redis, file system or network. I/O belongs in actions/, stages/, desired/ or ports/.',
      severity: 'error',
      from: { path: '^src/controller/reconcile/decide/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: [
          '^src/api/',
          '^src/core/release/',
          '^src/controller/reconcile/decide/',
          '^src/controller/status/',
          '^src/controller/drift/manifest-objects[.]ts$',
          // CEL compiled and evaluated in memory, and kstatus rules over an object already read: pure.
          '^src/core/cel/',
          '^src/core/kube/object-readiness[.]ts$',
          '^src/controller/queue/retry-policy[.]ts$',
          '^node_modules/semver/',
          '^(node:)?crypto$',
        ],
      },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles make the order of module evaluation matter and hide layering mistakes.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.test.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.mjs'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

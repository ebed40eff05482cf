/**
 * Random small manifests in helm's block style for the outline's property test
 * (manifest-outline-random.test.ts): half tame (the fields read on the path to the pod spec, with
 * their usual spellings), half wild (YAML 1.1's other readings, broken indentation, anchors, flow
 * values, block scalars, tabs, CRLF).
 */
export function random(seed: number): () => number {
  // mulberry32; the seed spread first, as neighbouring seeds start alike.
  seed = Math.imul(seed, 0x9e3779b1);
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCALARS = [
  'web',
  'web',
  'nginx:1.27',
  'ghcr.io/x/y@sha256:abc',
  '"web"',
  "'web'",
  "'it''s'",
  '"nginx:1.27"',
  'apps/v1',
  'v1',
  'on',
  '"on"',
  'yes',
  'n',
  'Off',
  '012',
  '0o17',
  '1e3',
  '1_000',
  '12',
  '-1',
  '~',
  'null',
  '""',
  "''",
  '"a\\"b"',
  '"\\u0041"',
  'a # comment',
  'a#b',
  'x:y',
  '&a web',
  '*a',
  '!!str 1',
  '.inf',
  '-.Inf',
  '.nan',
  '1e999',
  '0x1F',
  '.hidden',
  './run',
  '[a, b]',
  '[]',
  '{}',
  '{a: b}',
  '["ALL"]',
  '"multi',
  'a: b',
  '- x',
  'true',
  '2001-12-14',
  '190:20:30',
  '-',
  '-x',
  '?x',
  '@x',
  '`x',
  '%x',
  '<<',
  '=',
  'x\ty',
  'é-ünï 🦄',
  '"x" y',
  'Deployment',
  'Pod',
  'CronJob',
  'ClusterRole',
  '|',
  '>-',
  '|+',
];
const KEYS: Record<string, string[]> = {
  root: ['apiVersion', 'kind', 'metadata', 'spec', 'spec', 'data', '"kind"', 'y', 'null', '<<', 'on', '__proto__', '&r apiVersion'],
  tameRoot: ['apiVersion', 'kind', 'metadata', 'spec', 'data', '"kind"', 'y', 'on', '__proto__'],
  metadata: ['name', 'name', 'namespace', 'labels', 'annotations', "'name'", 'constructor'],
  spec: ['containers', 'initContainers', 'template', 'jobTemplate', 'spec', 'replicas', 'selector'],
  container: ['name', 'image', 'image', 'args', 'env', 'ports', '"image"'],
  other: ['a', 'app.kubernetes.io/name', 'b', '1', 'true', 'x y', '? q'],
};
/** What each key holds: a context for maps, a list of containers, or a scalar. */
const HOLDS: Record<string, string> = {
  metadata: 'metadata',
  spec: 'spec',
  template: 'spec',
  jobTemplate: 'spec',
  containers: 'list',
  initContainers: 'list',
  labels: 'other',
  annotations: 'other',
  data: 'other',
  selector: 'other',
  env: 'other',
  ports: 'other',
};

/** A tame manifest's other values: YAML 1.1's readings still, but nothing the outline refuses. */
const TAME_SCALARS = [
  'web',
  'nginx:1.27',
  '"web"',
  "'it''s'",
  'on',
  '012',
  '12',
  '-1',
  '~',
  '""',
  'a # comment',
  'a#b',
  'x:y',
  './run',
  '[]',
  '{}',
  '["ALL"]',
  'true',
  '2001-12-14',
  '-x',
  'é-ünï 🦄',
  '|',
  '>-',
  '|+',
  'Deployment',
];
const TAME_OTHER_KEYS = ['a', 'app.kubernetes.io/name', 'b', '1', 'true', "'x y'"];

/** The values a tame manifest gives the fields read, so that many have an inventory and images. */
const TAME: Record<string, string[]> = {
  kind: ['Pod', 'Pod', 'Deployment', 'Deployment', 'Pod', 'CronJob', 'StatefulSet', 'Job', 'ConfigMap', 'ClusterRole', '"DaemonSet"'],
  apiVersion: ['v1', 'apps/v1', "'batch/v1'"],
  name: ['web', '"db"', "'it''s'", 'on', 'x-1'],
  namespace: ['shop', '""', '~', 'other'],
  image: ['nginx:1.27', '"redis:7"', "'busybox:1.37'", 'ghcr.io/x/y@sha256:abc # pinned', '""'],
};
/** In a tame manifest, what each map holds first (the path to the pod spec). */
const TAME_KEYS: Record<string, string[]> = {
  root: ['apiVersion', 'kind', 'metadata', 'spec'],
  metadata: ['name', 'namespace'],
  spec: ['containers', 'template', 'spec', 'initContainers', 'jobTemplate'],
  container: ['image', 'name'],
};

export function randomManifest(next: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const tame = next() < 0.5;
  const lines: string[] = [];
  const blockText = (indent: number) => {
    const extra = pick([1, 2, 2, 4, -1, 0]);
    for (let i = pick([0, 1, 2, 3]); i > 0; i--)
      lines.push(next() < 0.2 ? '' : `${' '.repeat(Math.max(0, indent + extra))}${pick(['text', 'x: 1', '- y', '# not a comment', '---x'])}`);
  };
  const scalar = (prefix: string, indent: number, key = '') => {
    const value = tame && Object.hasOwn(TAME, key) && next() < 0.9 ? pick(TAME[key]!) : pick(tame ? TAME_SCALARS : SCALARS);
    lines.push(`${prefix}${value}`.trimEnd());
    if (value.startsWith('|') || value.startsWith('>')) blockText(indent);
    else if (value === '"multi' && next() < 0.5) lines.push(`${' '.repeat(indent + 2)}line"`);
  };
  const map = (context: string, indent: number, depth: number, first?: string) => {
    const keys =
      tame && Object.hasOwn(TAME_KEYS, context)
        ? TAME_KEYS[context]!.filter((_, i) => next() < (context === 'spec' ? [0.8, 0.6, 0.2, 0.2, 0.2][i]! : 0.9))
        : [];
    const count = keys.length + Math.floor(next() * (tame ? 2 : 4)) + (keys.length ? 0 : 1);
    for (let i = 0; i < count; i++) {
      const pad = i === 0 && first !== undefined ? first : ' '.repeat(indent);
      const key = keys[i] ?? pick(next() < 0.85 ? KEYS[tame && context === 'root' ? 'tameRoot' : context]! : tame ? TAME_OTHER_KEYS : KEYS.other!);
      entry(pad, key, indent, depth);
      if (next() < 0.1) lines.push(`${' '.repeat(pick([0, indent, indent + 2]))}# comment`);
    }
  };
  const entry = (pad: string, key: string, indent: number, depth: number) => {
    const bare = key.replace(/^["'&r ]+|["']$/g, '');
    const holds = Object.hasOwn(HOLDS, bare) ? HOLDS[bare] : undefined;
    if (holds === undefined || depth > 7 || lines.length > 60 || next() < (tame ? 0.02 : 0.1)) return scalar(`${pad}${key}: `, indent, bare);
    lines.push(`${pad}${key}:${next() < 0.1 ? ' # c' : ''}`);
    const inner = indent + pick([2, 2, 4, 1]);
    if (holds === 'list') return list(next() < 0.5 ? indent : inner, depth + 1);
    if (next() < (tame ? 0.03 : 0.15)) return list(inner, depth + 1);
    map(holds, inner, depth + 1);
  };
  const list = (indent: number, depth: number) => {
    for (let i = 1 + Math.floor(next() * 3); i > 0; i--) {
      const dash = `${' '.repeat(indent)}-${' '.repeat(pick([1, 1, 1, 3]))}`;
      const shape = next();
      if (shape < (tame ? 0.9 : 0.7)) map('container', dash.length, depth + 1, dash);
      else if (shape < 0.85) scalar(dash, indent);
      else {
        lines.push(`${' '.repeat(indent)}-`);
        map('container', indent + 2, depth + 1);
      }
    }
  };
  const documents = 1 + Math.floor(next() * (tame ? 2 : 3));
  for (let d = 0; d < documents; d++) {
    lines.push(pick(['---', '---', '--- # x']), `# Source: chart/templates/t${d}.yaml`);
    if (next() < 0.05) continue; // an empty document
    map('root', tame ? 0 : pick([0, 0, 0, 0, 2]), 0);
  }
  // A few lines knocked out of place: one space more or less, a tab.
  for (let i = 0; !tame && i < lines.length; i++) {
    const roll = next();
    if (roll < 0.01) lines[i] = ` ${lines[i]}`;
    else if (roll < 0.02) lines[i] = lines[i]!.replace(/^ /, '');
    else if (roll < 0.025) lines[i] = lines[i]!.replace(/^ /, '\t');
  }
  return lines.join(next() < 0.1 ? '\r\n' : '\n') + '\n';
}

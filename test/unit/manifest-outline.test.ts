import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { manifestDocuments } from '../../src/controller/drift/manifest-objects.js';
import { outlineDocument, outlineDocuments, UNSURE } from '../../src/controller/drift/manifest-outline.js';
import { fullRead, postHelmRead } from './support/post-helm-read.js';

/**
 * Issue 50: after helm, status.inventory and the Event's images come from an outline of the
 * manifest (a line scanner that falls back to the full parse when it is not sure). Whatever the
 * manifest, the result must be exactly the full parse's.
 */
const MANIFESTS = join(import.meta.dirname, '../support/manifests');
const outlineRead = (manifest: string) => postHelmRead(outlineDocuments(manifest));
const documentsOf = (manifest: string) => manifest.split(/^---[^\n]*$/m).filter((text) => text.trim());

const deployment = (lines: { meta?: string; container?: string; extra?: string } = {}) => `---
# Source: app/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
${lines.meta ?? '  name: web'}
spec:
  template:
    spec:
      containers:
${lines.container ?? '        - name: web\n          image: nginx:1.27'}
${lines.extra ?? ''}`;

/** Documents the scanner must either read right or refuse; each names what it tries. */
const EDGE_CASES: Record<string, string> = {
  'comments and Source headers': `# Source: a\n# more\napiVersion: v1 # trailing\nkind: ConfigMap # c\nmetadata:\n  # inside\n  name: cm\n`,
  'empty documents': `---\n# Source: empty\n---\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n`,
  'quoted names': deployment({ meta: `  name: "web"\n  namespace: 'it''s'` }),
  'a name YAML 1.1 reads as a boolean': deployment({ meta: '  name: on' }),
  'a quoted boolean name': deployment({ meta: '  name: "on"' }),
  'an octal-looking name': deployment({ meta: '  name: 012' }),
  'a float-looking namespace': deployment({ meta: '  name: web\n  namespace: 1e3' }),
  'a null namespace': deployment({ meta: '  name: web\n  namespace: ~' }),
  'an empty namespace': deployment({ meta: '  name: web\n  namespace:' }),
  'a namespace as a map': deployment({ meta: '  name: web\n  namespace:\n    a: b' }),
  'a namespace as a flow list': deployment({ meta: '  name: web\n  namespace: [a, b]' }),
  'a name with escapes': deployment({ meta: '  name: "w\\u0065b"' }),
  'an anchor and an alias': deployment({ meta: '  name: &n web', container: '        - name: x\n          image: *n' }),
  'an anchored map merged': `apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: cm\nx:\n  <<: *m\n`,
  'a tag': deployment({ meta: '  name: !!str 012' }),
  'a flow map as metadata': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: x}\n`,
  'a flow list of containers': deployment({ container: '        [{name: a, image: "b:1"}]'.replace('        ', '        ') }).replace(
    'containers:\n        [',
    'containers: [',
  ),
  'empty flow collections': deployment({ extra: '      initContainers: []\n      volumes: {}\n  selector: {}' }),
  'images in several styles': deployment({
    container: `        - name: a\n          image: "a:1"\n        - image: 'b:2'\n          name: b\n        -   name: c\n            image: c:3 # pinned\n        - name: d\n          image:\n        - name: e\n          image: ""\n        - plain\n        -\n          image: f:6`,
  }),
  'init containers and a compact list': deployment({
    container: '        - name: a\n          image: a:1',
    extra: '      initContainers:\n      - name: i\n        image: init:1',
  }),
  'a CronJob': `apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: job\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n          - image: cron:1\n`,
  'a Pod and a StatefulSet': `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - image: pod:1\n---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  template:\n    spec:\n      containers:\n        - image: pod:1\n        - image: sts:2\n`,
  'CRLF line ends': deployment().replaceAll('\n', '\r\n'),
  'a lone CR': deployment().replace('kind:', 'kind:\r'),
  'a document that is not valid YAML': `${deployment()}\n---\nkind: [\n`,
  'a wrongly indented line': deployment({ meta: '  name: web\n   namespace: x' }),
  'a multi-line plain name': deployment({ meta: '  name: web\n    more' }),
  'a multi-line quoted name': deployment({ meta: '  name: "web\n    more"' }),
  'a tab': deployment({ meta: '  name: web\n\tnamespace: x' }),
  'a nested mapping on one line': deployment({ meta: '  name: web: x' }),
  'duplicate keys (the last wins)': deployment({ meta: '  name: a\n  name: b\n  namespace: x1\n  namespace: x2' }),
  'a duplicated metadata': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\nmetadata:\n  name: b\n`,
  '--- inside a block scalar': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a.txt: |\n    one\n---\n    two\n  b: c\n`,
  'block scalars of every header': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: |\n    x: 1\n    - y\n  b: >-\n\n    folded # not a comment\n  c: |+ # kept\n\n  d: |\n  e: x\nspec:\n  containers:\n  - args: |\n      multi\n    image: x:1\n`,
  'an image as a block scalar': `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - image: >-\n      x:1\n`,
  'a block scalar less indented than its key': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: |\n x\n`,
  'Infinity and NaN elsewhere': deployment({ extra: '  replicas: .inf' }),
  'a huge exponent elsewhere': deployment({ extra: '  replicas: 1e999' }),
  'a null key': deployment({ extra: '  null: 1' }),
  'a top-level list': `- apiVersion: v1\n  kind: ConfigMap\n`,
  'a top-level scalar': `just text\n`,
  'an indented top-level map': `  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n`,
  'a document end marker': `${deployment()}\n...\n`,
  'a directive': `%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n`,
  'a kind that is a number': `apiVersion: v1\nkind: 1\nmetadata:\n  name: cm\n`,
  'no metadata': `apiVersion: v1\nkind: ConfigMap\n`,
  'metadata as a string': `apiVersion: v1\nkind: ConfigMap\nmetadata: cm\n`,
  'a cluster-scoped kind': `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  namespace: ignored\n`,
  'escapes and URLs elsewhere': deployment({ extra: '  annotations:\n    a: "say \\"hi\\"\\n"\n    b: http://x:80/#frag\n    c: a#b\n    d: \'x # y\'' }),
  'keys YAML 1.1 reads as booleans': deployment({ extra: '  y: 1\n  on: 2\n  "kind": Job' }),
  'a prototype key': deployment({ extra: '  constructor: 1\n  __proto__:\n    polluted: yes' }),
  'no-break spaces around an image': deployment({ container: '        - image: \u00a0nginx:1.27\u00a0  \n          name: web' }),
  'a seq inside a seq': deployment({ container: '        - - a\n          - b' }),
};

describe('the manifest outline: the full parse’s inventory and images, for less', () => {
  it.each(['unicorn.yaml', 'podinfo.yaml'])('%s: the same result, every document outlined without the full parse', (file) => {
    const manifest = readFileSync(join(MANIFESTS, file), 'utf8');
    const full = fullRead(manifest);
    expect(full.status.inventory?.entries.length).toBeGreaterThan(2);
    expect(full.images?.images.length).toBeGreaterThan(0);
    expect(outlineRead(manifest)).toEqual(full);
    for (const text of documentsOf(manifest)) expect(outlineDocument(text)).not.toBe(UNSURE);
  });

  it.each(Object.entries(EDGE_CASES))('%s', (_, manifest) => {
    expect(outlineRead(manifest)).toEqual(fullRead(manifest));
  });

  it('refuses what it cannot be sure of, and reads the plain cases itself', () => {
    const refused = [
      'an anchor and an alias',
      'a tag',
      'a name YAML 1.1 reads as a boolean',
      'an octal-looking name',
      'a name with escapes',
      'a lone CR',
      'a flow map as metadata',
      'an image as a block scalar',
    ];
    for (const name of refused) expect(documentsOf(EDGE_CASES[name]!).map(outlineDocument), name).toContain(UNSURE);
    const read = [
      'quoted names',
      'images in several styles',
      'CRLF line ends',
      'empty flow collections',
      'block scalars of every header',
      'duplicate keys (the last wins)',
    ];
    for (const name of read) expect(documentsOf(EDGE_CASES[name]!).map(outlineDocument), name).not.toContain(UNSURE);
  });

  it('the cases tell readers apart: YAML 1.1 as helm reads it, not a YAML 1.2 reader', () => {
    // A reader that took `on` as a string, kept the first of two keys, or passed null keys and .inf on would fail the cases above.
    const yaml12 = (manifest: string) => postHelmRead(manifestDocuments(manifest, (text) => load(text) ?? null));
    const differing = Object.entries(EDGE_CASES).filter(([, manifest]) => JSON.stringify(yaml12(manifest)) !== JSON.stringify(fullRead(manifest)));
    expect(differing.map(([name]) => name)).toEqual(
      expect.arrayContaining(['a name YAML 1.1 reads as a boolean', 'duplicate keys (the last wins)', 'a null key', 'Infinity and NaN elsewhere']),
    );
    // And the full path's answers there are YAML 1.1's: `on` is true (the inventory stays as it was).
    expect(fullRead(EDGE_CASES['a name YAML 1.1 reads as a boolean']!).status.inventory?.entries).toEqual([{ id: 'shop_old_apps_Deployment', v: 'v1' }]);
    expect(fullRead(EDGE_CASES['duplicate keys (the last wins)']!).status.inventory?.entries).toEqual([{ id: 'x2_b_apps_Deployment', v: 'v1' }]);
    expect(fullRead(EDGE_CASES['a quoted boolean name']!).status.inventory?.entries).toEqual([{ id: 'shop_on_apps_Deployment', v: 'v1' }]);
  });

  it('an unreadable document leaves the inventory as it was, and the others still give their images', () => {
    const result = outlineRead(EDGE_CASES['a document that is not valid YAML']!);
    expect(result.status.inventory?.entries).toEqual([{ id: 'shop_old_apps_Deployment', v: 'v1' }]);
    expect(result.images).toEqual({ images: ['nginx:1.27'] });
    expect(result.failed).toEqual([2]);
  });

  it('reads the images of every style, in order, as the full parse does', () => {
    expect(outlineRead(EDGE_CASES['images in several styles']!).images).toEqual({ images: ['a:1', 'b:2', 'c:3', 'f:6'] });
  });
});

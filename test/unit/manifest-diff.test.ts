import { describe, expect, it } from 'vitest';
import { diffManifests } from '../../src/core/release/manifest-diff.js';
import { summarizeManifestDiff } from '../../src/core/release/manifest-diff-summary.js';

const deployment = (image: string, replicas = 1) => `---
# Source: app/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  template:
    spec:
      containers:
        - name: web
          image: ${image}
`;
const secret = (password: string) => `---
apiVersion: v1
kind: Secret
metadata:
  name: web-credentials
stringData:
  password: ${password}
`;
const service = `---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
`;

describe('diffManifests', () => {
  it('names added, removed and changed objects, with the changed fields and images', () => {
    const diff = diffManifests(deployment('nginx:1.26') + secret('hunter2-old'), deployment('nginx:1.27', 2) + service);
    expect(diff.added).toEqual([{ kind: 'Service', name: 'web', apiVersion: 'v1' }]);
    expect(diff.removed).toEqual([{ kind: 'Secret', name: 'web-credentials', apiVersion: 'v1' }]);
    expect(diff.changed).toHaveLength(1);
    expect(diff.changed[0]!.fields).toEqual(['/spec/replicas', '/spec/template/spec/containers/0/image']);
    expect(diff.changed[0]!.images).toEqual(['/spec/template/spec/containers/0/image: nginx:1.26 → nginx:1.27']);
  });

  it('says a Secret changed without its keys or values', () => {
    const diff = diffManifests(secret('hunter2-old'), secret('hunter2-new'));
    expect(diff.changed).toEqual([{ object: { kind: 'Secret', name: 'web-credentials', apiVersion: 'v1' }, fields: [], images: [], hidden: true }]);
    const text = summarizeManifestDiff(diff).lines.join('\n');
    expect(text).toContain('Secret web-credentials: contents changed (not shown)');
    expect(text).not.toMatch(/hunter2|password|stringData/);
  });

  it('finds nothing between the same objects written in another order', () => {
    const diff = diffManifests(service + deployment('nginx:1.27'), deployment('nginx:1.27') + service);
    expect(summarizeManifestDiff(diff)).toEqual({ lines: ['objects: no change'], rest: [] });
  });

  it('treats everything as added when nothing is deployed', () => {
    expect(diffManifests('', service).added.map((o) => o.kind)).toEqual(['Service']);
  });

  it('refuses a manifest that is not YAML, with a message', () => {
    expect(() => diffManifests('kind: [unclosed', service)).toThrow(/not valid YAML/);
  });
});

describe('summarizeManifestDiff', () => {
  it('keeps chat short: the first objects and fields, the rest apart', () => {
    const many = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => service.replace('name: web', `name: svc-${i}`).replace('port: 80', `port: ${tag}`)).join('');
    const summary = summarizeManifestDiff(diffManifests(many(8, '80'), many(8, '81')), { objects: 5, fields: 3 });
    expect(summary.lines[0]).toBe('objects: 8 changed');
    expect(summary.lines).toHaveLength(6);
    expect(summary.rest).toHaveLength(3);
    expect(summary.rest.join('\n')).toContain('Service svc-7: /spec/ports/0/port');
  });

  it('lists every field of a changed object in the rest when the summary cut them', () => {
    const before = deployment('a:1', 1).replace('name: web\n          image', 'name: web\n          env: [{name: A, value: "1"}]\n          image');
    const after = deployment('a:2', 2).replace('name: web\n          image', 'name: web\n          env: [{name: A, value: "2"}]\n          image');
    const summary = summarizeManifestDiff(diffManifests(before, after), { objects: 5, fields: 2 });
    expect(summary.lines[1]).toBe('~ Deployment web: /spec/template/spec/containers/0/image: a:1 → a:2, /spec/replicas, and 1 more');
    expect(summary.rest[0]).toContain('/spec/template/spec/containers/0/env/0/value');
  });
});

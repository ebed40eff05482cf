import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestChartServer } from './chart-servers.js';

/**
 * `gizmo`, a chart for post-rendering and CRD policy: a Deployment (image
 * registry.local/gizmo:<version>, 0 replicas) and a ConfigMap in templates/, and a CRD in crds/
 * whose 2.0.0 schema gains `spec.color`. CRDs are cluster-wide, so each repository gets its own
 * API group. Served from a chart repository on a free 127.0.0.1 port.
 */
export const GIZMO = { name: 'gizmo', versions: ['1.0.0', '2.0.0'] } as const;

const templates = (version: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels: { app: {{ .Release.Name }} }
spec:
  replicas: 0
  selector: { matchLabels: { app: {{ .Release.Name }} } }
  template:
    metadata: { labels: { app: {{ .Release.Name }} } }
    spec:
      containers:
        - name: gizmo
          image: registry.local/gizmo:${version}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  mode: plain
`;

const crd = (group: string, withColor: boolean) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }${withColor ? '\n                color: { type: string }' : ''}
`;

export interface GizmoRepo {
  url: string;
  /** The CRD's API group, unique to this repository. */
  group: string;
  crdName: string;
  close(): Promise<void>;
}

export async function startGizmoRepo(helmBin: string, group: string): Promise<GizmoRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-gizmo-'));
  const repoDir = join(dir, 'repo');
  await mkdir(repoDir, { recursive: true });
  for (const version of GIZMO.versions) {
    const chartDir = join(dir, `src-${version}`, GIZMO.name);
    await mkdir(join(chartDir, 'templates'), { recursive: true });
    await mkdir(join(chartDir, 'crds'), { recursive: true });
    await writeFile(join(chartDir, 'Chart.yaml'), `apiVersion: v2\nname: ${GIZMO.name}\nversion: ${version}\n`);
    await writeFile(join(chartDir, 'templates', 'gizmo.yaml'), templates(version));
    await writeFile(join(chartDir, 'crds', 'gizmos.yaml'), crd(group, version !== '1.0.0'));
    await execa(helmBin, ['package', chartDir, '--destination', repoDir]);
  }
  await execa(helmBin, ['repo', 'index', repoDir]);
  const server = await startTestChartServer(repoDir);
  return {
    url: server.url,
    group,
    crdName: `gizmos.${group}`,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

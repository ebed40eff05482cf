import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestChartServer } from './chart-servers.js';

/**
 * `widget` 1.0.0, a chart for healthCheckExprs: a CRD in crds/ (kind Widget, a status
 * subresource, its own API group per repository since CRDs are cluster-wide) and one Widget
 * named after the release in templates/ (and, asked, a claim helm waits on). Nothing sets a Widget's status: the test does, as the
 * custom resource's own controller would. Served from a chart repository on a free 127.0.0.1 port.
 */
const widget = `apiVersion: GROUP/v1
kind: Widget
metadata:
  name: {{ .Release.Name }}
spec:
  size: 1
`;

/**
 * With `holdWait`, a claim of a storage class nobody provides: it stays Pending, so helm's own
 * wait (kstatus: Bound or in progress) waits on it until the release's timeout, as on a slow rollout.
 */
const hold = `{{- if .Values.holdWait }}
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ .Release.Name }}-held
spec:
  storageClassName: helmcrew-test-none
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Mi } }
{{- end }}
`;

const crd = (group: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;

export interface WidgetRepo {
  url: string;
  group: string;
  crdName: string;
  close(): Promise<void>;
}

export async function startWidgetRepo(helmBin: string, group: string): Promise<WidgetRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-widget-'));
  const repoDir = join(dir, 'repo');
  const chartDir = join(dir, 'src', 'widget');
  await mkdir(repoDir, { recursive: true });
  await mkdir(join(chartDir, 'templates'), { recursive: true });
  await mkdir(join(chartDir, 'crds'), { recursive: true });
  await writeFile(join(chartDir, 'Chart.yaml'), 'apiVersion: v2\nname: widget\nversion: 1.0.0\n');
  await writeFile(join(chartDir, 'templates', 'widget.yaml'), widget.replace('GROUP', group));
  await writeFile(join(chartDir, 'templates', 'hold.yaml'), hold);
  await writeFile(join(chartDir, 'crds', 'widgets.yaml'), crd(group));
  await execa(helmBin, ['package', chartDir, '--destination', repoDir]);
  await execa(helmBin, ['repo', 'index', repoDir]);
  const server = await startTestChartServer(repoDir);
  return {
    url: server.url,
    group,
    crdName: `widgets.${group}`,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A CRD of its own group, for a dependsOn test to create: Established by the API server within a moment. */
export function widgetCrd(group: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

import { EXIT_CODE_ANNOTATION } from '../../src/dev/kwok-stages.js';
import type { TestChart } from './job-chart.js';

/**
 * Tiny charts for the action-option tests (issue 34), served by startTestChartRepo (job-chart.ts):
 * every option's effect is visible on the API server or in helm's records within seconds. Under
 * kwok a pod annotated with EXIT_CODE_ANNOTATION fails at once, so a hook or a test fails fast.
 *
 * `opts` 0.1.0:
 * - a ConfigMap `<release>-config` (`message`), and `<release>-extra` when `extra: true`;
 * - a Deployment `<release>-web` when `web: true` (ReplicaSets for deletionPropagation);
 * - hook pods: post-install/post-upgrade (`postHook.fails`), pre-rollback (`rollbackHook.fails`);
 * - test pods `<release>-test-a` (passes) and `<release>-test-b` (fails when `testB.fails`);
 * - values.schema.json: `mode` is one of a, b.
 * `opts-renamed` 0.1.0: the same templates under another chart name (chartNameChangeStrategy).
 * `opts-crds` 0.1.0: the same with a crds/ folder (CRD `gadgets.options.helmcrew.test`).
 */

const failing = (on: string) => `{{- if ${on} }}
    "${EXIT_CODE_ANNOTATION}": "1"
    {{- end }}`;

const hookPod = (name: string, hook: string, failsWhen: string) => `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-${name}
  labels: { app.kubernetes.io/part-of: {{ .Release.Name }} }
  annotations:
    "helm.sh/hook": ${hook}
    "helm.sh/hook-delete-policy": before-hook-creation
    ${failing(failsWhen)}
spec:
  restartPolicy: Never
  containers: [{ name: run, image: busybox:1.37, command: ["true"] }]
`;

const TEMPLATES: Record<string, string> = {
  'values.yaml': 'message: hello\nextra: false\nweb: false\nmode: a\npostHook: { fails: false }\nrollbackHook: { fails: false }\ntestB: { fails: false }\n',
  'values.schema.json': JSON.stringify({ type: 'object', properties: { mode: { enum: ['a', 'b'] } } }),
  'templates/configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata: { name: {{ .Release.Name }}-config }
data: { message: {{ .Values.message | quote }} }
`,
  'templates/extra.yaml': `{{- if .Values.extra }}
apiVersion: v1
kind: ConfigMap
metadata: { name: {{ .Release.Name }}-extra }
data: { extra: "yes" }
{{- end }}
`,
  'templates/web.yaml': `{{- if .Values.web }}
apiVersion: apps/v1
kind: Deployment
metadata: { name: {{ .Release.Name }}-web }
spec:
  replicas: 1
  selector: { matchLabels: { app: {{ .Release.Name }}-web } }
  template:
    metadata: { labels: { app: {{ .Release.Name }}-web } }
    spec: { containers: [{ name: web, image: busybox:1.37 }] }
{{- end }}
`,
  'templates/post-hook.yaml': hookPod('post-hook', 'post-install,post-upgrade', '.Values.postHook.fails'),
  'templates/rollback-hook.yaml': hookPod('rollback-hook', 'pre-rollback', '.Values.rollbackHook.fails'),
  'templates/test-a.yaml': hookPod('test-a', 'test', 'false'),
  'templates/test-b.yaml': hookPod('test-b', 'test', '.Values.testB.fails'),
};

export const GADGET_CRD = 'gadgets.options.helmcrew.test';

const CRD = {
  'crds/gadgets.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.options.helmcrew.test }
spec:
  group: options.helmcrew.test
  names: { kind: Gadget, plural: gadgets, singular: gadget }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`,
};

export const OPTIONS_CHART: TestChart = { name: 'opts', version: '0.1.0', files: TEMPLATES };
export const RENAMED_CHART: TestChart = { name: 'opts-renamed', version: '0.1.0', files: TEMPLATES };
export const CRDS_CHART: TestChart = { name: 'opts-crds', version: '0.1.0', files: { ...TEMPLATES, ...CRD } };

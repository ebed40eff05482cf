// Stage definitions for standalone kwok: what happens to fake nodes and pods. kwok's own stages
// (node-initialize, node-heartbeat-with-lease, pod-ready, pod-complete, pod-delete) ship in its Go
// module; scripts/build-toolchain.sh copies them beside the kwok binary, and they are read from
// there. One stage is helmcrew's own (below).
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * There is no container runtime under kwok, so a pod cannot fail by itself. A run-to-completion
 * pod annotated with this (a `helm test` pod whose chart says so) ends Failed with that exit
 * code instead: how the tests get a helm test that fails, cheaply.
 */
export const EXIT_CODE_ANNOTATION = 'helmcrew.dev/kwok-exit-code';

export const UPSTREAM_STAGE_FILES = [
  'node-initialize.yaml',
  'node-heartbeat-with-lease.yaml',
  'pod-ready.yaml',
  'pod-complete.yaml',
  'pod-delete.yaml',
] as const;

/**
 * helmcrew's own stage. kwok's pod-complete only finishes pods a Job owns, so a bare hook pod
 * (`helm test`, pre/post-install hooks) would stay Running and Helm would wait forever. Here a
 * Running pod that runs to completion (restartPolicy Never or OnFailure) and has no Job owner
 * ends Succeeded, every container terminated with exit code 0.
 */
export const RUN_TO_COMPLETION_STAGE = terminatedPodStage({
  name: 'helmcrew-pod-run-to-completion',
  selectors: [
    "{ key: '.spec.restartPolicy', operator: 'In', values: ['Never', 'OnFailure'] }",
    "{ key: '.metadata.ownerReferences.[].kind', operator: 'NotIn', values: ['Job'] }",
    `{ key: '.metadata.annotations["${EXIT_CODE_ANNOTATION}"]', operator: 'DoesNotExist' }`,
  ],
  phase: 'Succeeded',
  exitCode: '0',
  reason: 'Completed',
});

/** A test pod annotated with an exit code (the unicorn chart's test.kwokExitCode) fails with it. */
export const RUN_TO_FAILURE_STAGE = terminatedPodStage({
  name: 'helmcrew-pod-run-to-failure',
  selectors: [
    "{ key: '.spec.restartPolicy', operator: 'In', values: ['Never'] }",
    `{ key: '.metadata.annotations["${EXIT_CODE_ANNOTATION}"]', operator: 'Exists' }`,
  ],
  templateVars: [`{{ $code := index .metadata.annotations "${EXIT_CODE_ANNOTATION}" }}`],
  phase: 'Failed',
  exitCode: '{{ $code }}',
  reason: 'Error',
});

/** A Stage that ends a Running, not-deleted pod matching `selectors`, every container terminated alike. */
function terminatedPodStage(opts: { name: string; selectors: string[]; templateVars?: string[]; phase: string; exitCode: string; reason: string }): string {
  const selectors = [
    "{ key: '.metadata.deletionTimestamp', operator: 'DoesNotExist' }",
    "{ key: '.status.phase', operator: 'In', values: ['Running'] }",
    ...opts.selectors,
  ];
  return `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${opts.name}
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${selectors.map((s) => `    - ${s}`).join('\n')}
  next:
    statusTemplate: |
      {{ $finished := Now }}
${(opts.templateVars ?? []).map((v) => `      ${v}\n`).join('')}      phase: ${opts.phase}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated: { exitCode: ${opts.exitCode}, reason: ${opts.reason}, startedAt: {{ $finished | Quote }}, finishedAt: {{ $finished | Quote }} }
      {{ end }}
`;
}

/** All stages as one multi-document YAML, the format of kwok's --config file. */
export async function kwokStagesYaml(kwokBinary: string): Promise<string> {
  const stagesDir = join(dirname(kwokBinary), 'stages');
  const upstream = await Promise.all(
    UPSTREAM_STAGE_FILES.map(async (file) => {
      try {
        return await readFile(join(stagesDir, file), 'utf8');
      } catch {
        throw new Error(`kwok stage ${file} is missing from ${stagesDir}; run: bash scripts/build-toolchain.sh kwok`);
      }
    }),
  );
  return [...upstream, RUN_TO_COMPLETION_STAGE, RUN_TO_FAILURE_STAGE].map((doc) => doc.replace(/^---\n/, '').trimEnd() + '\n').join('---\n');
}

import { Type, type Static } from '@sinclair/typebox';
import { BoundedDuration, celRules, StringEnum } from './schema-helpers.js';
import { DURATION_BOUNDS } from './duration.js';
import { CrdsPolicy } from './post-render.js';

/**
 * spec.install, upgrade, test, rollback and uninstall of the HelmRelease API: each action's options,
 * remediation and strategy, with Flux's names (src/api/helmrelease.ts holds the spec itself).
 */

const Retries = Type.Integer({
  minimum: -1,
  maximum: 100,
  description: 'Attempts after the first failure before giving up; -1 = no limit. Default: 0.',
});

const RemediateLastFailure = Type.Boolean({
  description: 'Remediate the last failure too, once retries are used up. Default: true once a remediation block is declared (Flux: only when retries > 0).',
});

/** Flux's remediation.ignoreTestFailures: per action, over test.ignoreFailures. */
function IgnoreTestFailures(action: string) {
  return Type.Boolean({
    description: `A failed helm test after an ${action} is reported (TestSuccess=False) but not remediated; the release stays Ready. Default: test.ignoreFailures.`,
  });
}

export const InstallRemediation = Type.Object(
  {
    retries: Type.Optional(Retries),
    ignoreTestFailures: Type.Optional(IgnoreTestFailures('install')),
    remediateLastFailure: Type.Optional(RemediateLastFailure),
  },
  { description: 'What to do when an install (or its helm test) fails: the failed release is uninstalled before each retry.' },
);

export const UpgradeRemediation = Type.Object(
  {
    retries: Type.Optional(Retries),
    ignoreTestFailures: Type.Optional(IgnoreTestFailures('upgrade')),
    strategy: Type.Optional(
      StringEnum(['rollback', 'uninstall'] as const, {
        description: 'rollback (default): helm rollback to the last deployed revision; uninstall: remove the release, then install again.',
      }),
    ),
    remediateLastFailure: Type.Optional(RemediateLastFailure),
  },
  { description: 'What to do when an upgrade (or its helm test) fails.' },
);

const DisableWait = Type.Boolean({ description: 'Do not wait for the resources to become ready (no helm --wait).' });

/** A per-action timeout; the default is spec.timeout. */
function ActionTimeout(action: string) {
  return BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout, { description: `Time allowed for the ${action}. Default: spec.timeout.` });
}
const DisableHooks = Type.Boolean({ description: "Do not run the chart's hooks for this action (helm --no-hooks)." });
const DisableWaitForJobs = Type.Boolean({
  description: 'Do not wait for Jobs to complete (helm --wait-for-jobs is passed by default, as Flux does, whenever helmcrew waits).',
});
const CleanupOnFail = Type.Boolean({ description: 'Delete the objects this action created when it fails (helm --cleanup-on-fail).' });
const DisableSchemaValidation = Type.Boolean({
  description: "Do not check the values against the chart's values.schema.json (helm --skip-schema-validation).",
});
const DisableTakeOwnership = Type.Boolean({
  description:
    'Do not take over objects that already exist in the cluster (helm --take-ownership is passed by default, as Flux does; helm then adopts them whoever created them).',
});
const ServerSideApplyMode = StringEnum(['enabled', 'disabled', 'auto'] as const, {
  description: "enabled: server-side apply (forcing conflicts, as Flux does); disabled: client-side; auto (default): what the release's last revision used.",
});

export const RetryStrategy = Type.Object(
  {
    name: StringEnum(['RemediateOnFailure', 'RetryOnFailure'] as const, {
      description:
        'RemediateOnFailure (default): the remediation block applies. RetryOnFailure: try again every retryInterval, never rolling back or uninstalling.',
    }),
    retryInterval: Type.Optional(
      BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxInterval, { description: 'RetryOnFailure: the wait between attempts. Default: 5m.' }),
    ),
  },
  {
    description: 'What happens after a failure (Flux: strategy).',
    ...celRules({
      rule: "!has(self.retryInterval) || self.name == 'RetryOnFailure'",
      message: 'retryInterval is for RetryOnFailure',
      fieldPath: '.retryInterval',
    }),
  },
);

export const InstallSpec = Type.Object({
  createNamespace: Type.Optional(Type.Boolean({ description: 'Create the target namespace when missing.' })),
  remediation: Type.Optional(InstallRemediation),
  disableWait: Type.Optional(DisableWait),
  crds: Type.Optional(CrdsPolicy("On install. Default: Create (helm's own behaviour).")),
  skipCRDs: Type.Optional(Type.Boolean({ description: 'Deprecated (Flux v2beta1): true is crds: Skip. crds wins when both are set, as in Flux.' })),
  timeout: Type.Optional(ActionTimeout('install')),
  disableHooks: Type.Optional(DisableHooks),
  disableWaitForJobs: Type.Optional(DisableWaitForJobs),
  replace: Type.Optional(Type.Boolean({ description: 'Reuse the name of an uninstalled release whose records were kept (helm install --replace).' })),
  disableSchemaValidation: Type.Optional(DisableSchemaValidation),
  disableTakeOwnership: Type.Optional(DisableTakeOwnership),
  serverSideApply: Type.Optional(Type.Boolean({ description: 'Server-side apply, forcing conflicts (default true, as helm 4 and Flux); false: client-side.' })),
  strategy: Type.Optional(RetryStrategy),
});

export const UpgradeSpec = Type.Object({
  remediation: Type.Optional(UpgradeRemediation),
  force: Type.Optional(Type.Boolean({ description: 'helm upgrade --force: replace objects instead of patching them.' })),
  disableWait: Type.Optional(DisableWait),
  crds: Type.Optional(CrdsPolicy('On upgrade (helm itself never touches CRDs then). Default: Skip.')),
  timeout: Type.Optional(ActionTimeout('upgrade')),
  disableHooks: Type.Optional(DisableHooks),
  disableWaitForJobs: Type.Optional(DisableWaitForJobs),
  cleanupOnFail: Type.Optional(CleanupOnFail),
  disableSchemaValidation: Type.Optional(DisableSchemaValidation),
  disableTakeOwnership: Type.Optional(DisableTakeOwnership),
  serverSideApply: Type.Optional(ServerSideApplyMode),
  strategy: Type.Optional(RetryStrategy),
  preserveValues: Type.Optional(
    Type.Boolean({
      description:
        "Keep the last release's values and merge this HelmRelease's over them (helm upgrade --reuse-values, as Flux), instead of the HelmRelease being the whole truth (--reset-values, the default). Values removed from the HelmRelease then stay.",
    }),
  ),
  chartNameChangeStrategy: Type.Optional(
    StringEnum(['InPlaceUpdate', 'Reinstall'] as const, {
      description:
        "When spec.chart.name changes. InPlaceUpdate (default): upgrade the release to the new chart. Reinstall: uninstall the release, then install the new chart (Flux's default).",
    }),
  ),
});

export const TestSpec = Type.Object({
  enable: Type.Optional(Type.Boolean({ description: 'Run `helm test` after every install and upgrade.' })),
  ignoreFailures: Type.Optional(Type.Boolean({ description: 'A failed test is reported (TestSuccess=False) but not remediated; the release stays Ready.' })),
  timeout: Type.Optional(
    BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout, { description: 'Time allowed for the test pods. Default: spec.timeout.' }),
  ),
  filters: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 253, pattern: '^[^,=!\\s]+$', description: 'The test hook (its object name).' }),
        exclude: Type.Optional(Type.Boolean({ description: 'Skip this test instead of running only the named ones.' })),
      }),
      { maxItems: 64, description: 'Which tests run (helm test --filter): the named ones, or all but the excluded ones.' },
    ),
  ),
});

export const RollbackSpec = Type.Object(
  {
    timeout: Type.Optional(ActionTimeout('rollback')),
    disableHooks: Type.Optional(DisableHooks),
    disableWait: Type.Optional(DisableWait),
    disableWaitForJobs: Type.Optional(DisableWaitForJobs),
    cleanupOnFail: Type.Optional(CleanupOnFail),
    force: Type.Optional(Type.Boolean({ description: 'Replace objects instead of patching them (helm rollback --force-replace, client-side).' })),
    serverSideApply: Type.Optional(ServerSideApplyMode),
  },
  { description: 'Options of every helm rollback: remediation of a failed upgrade, and /release rollback.' },
);

export const UninstallSpec = Type.Object({
  keepHistory: Type.Optional(Type.Boolean({ description: 'helm uninstall --keep-history: keep the release records.' })),
  timeout: Type.Optional(
    BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout, { description: 'Time allowed for the uninstall. Default: spec.timeout.' }),
  ),
  disableHooks: Type.Optional(DisableHooks),
  disableWait: Type.Optional(Type.Boolean({ description: 'Do not wait for the objects to be deleted.' })),
  deletionPropagation: Type.Optional(
    StringEnum(['background', 'foreground', 'orphan'] as const, { description: 'How dependents are deleted (helm uninstall --cascade). Default: background.' }),
  ),
});

export type RollbackSpec = Static<typeof RollbackSpec>;
export type RetryStrategy = Static<typeof RetryStrategy>;

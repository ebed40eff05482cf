import { execa } from 'execa';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL, TEAM_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients, mergePatch } from '../../src/core/kube/client.js';
import { apiStatusCode, isNotFound } from '../../src/core/kube/errors.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

// The demo's fixed names (src/cli/commands/demo.ts, src/cli/demo/demo-slack.ts): it always tells
// its story in this namespace, with two cluster-scoped Teams carrying this label.
const DEMO_NAMESPACE = 'unicorn-demo';
const DEMO_TEAMS = 'helmcrew.dev/demo=unicorn';

/**
 * Calls `call` again while the API server answers 429: right after the CRDs are installed on a
 * fresh environment it says "storage is (re)initializing" for a moment.
 */
async function whileInitializing<T>(call: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (apiStatusCode(error) !== 429 || Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}

/**
 * What a demo run leaves on the environment, removed so that the next run starts from nothing
 * (the story expects a first install). The demo's controller is stopped by then, so the
 * HelmReleases' finalizers are taken off by hand, else the namespace would stay Terminating.
 */
async function removeDemoLeftovers(): Promise<void> {
  const kube = makeKubeClients(testEnv().kubeConfig);
  const coords = { group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace: DEMO_NAMESPACE };
  const releases = (await whileInitializing(() => kube.custom.listNamespacedCustomObject(coords))) as { items: HelmRelease[] };
  for (const release of releases.items) {
    await kube.custom
      .patchNamespacedCustomObject({ ...coords, name: release.metadata.name, body: { metadata: { finalizers: null } } }, mergePatch)
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
  }
  await kube.core.deleteNamespace({ name: DEMO_NAMESPACE }).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
  for (const team of (await whileInitializing(() => new TeamApi(kube).list(DEMO_TEAMS))).items) {
    await kube.custom
      .deleteClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, name: team.metadata.name })
      .catch(() => undefined);
  }
  await eventually(
    async () => {
      const namespace = await kube.core.readNamespace({ name: DEMO_NAMESPACE }).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      expect(namespace ? namespace.status : 'gone', `namespace ${DEMO_NAMESPACE}`).toBe('gone');
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
}

/** The README's demo command, run as a person runs it, on the test run's environment. */
describe('helmcrew demo', () => {
  // Before: an environment reused from an earlier run (or a `make demo`) may hold the story's end.
  beforeAll(removeDemoLeftovers, 180_000);
  afterAll(removeDemoLeftovers, 180_000);

  it('tells the unicorn story: pink, blue, green, broken, green again; then from chat: rollback to blue, resume to green', async () => {
    const { env } = testEnv();
    const result = await execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'demo'], {
      // No LOG_LEVEL: as `make demo` runs it, where the controller's warnings once broke the story.
      env: { HELMCREW_STATE_DIR: env.stateDir },
      reject: false,
      all: true,
      timeout: 300_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const pages = [...result.stdout.matchAll(/page: +the unicorn is (\w+)/g)].map((m) => m[1]);
    const ready = [...result.stdout.matchAll(/controller: Ready=(\w+) \((\w+)\)/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(pages).toEqual(['pink', 'blue', 'green', 'gold', 'green', 'blue', 'green']);
    expect(result.stdout).toMatch(/Alice: +\/release rollback unicorn-demo\/unicorn to \d+/);
    expect(result.stdout).toMatch(/#incident:\n.*roll back unicorn-demo\/unicorn: revision \d+ → \d+.*\n.*:white_check_mark: .*Rolled back/);
    expect(result.stdout).toMatch(/#incident:\n.*resume unicorn-demo\/unicorn\n.*:white_check_mark:/);
    expect(ready[3]).toBe('False UpgradeFailed');
    expect(ready.filter((r) => r.startsWith('True'))).toHaveLength(4);
    expect(result.stdout).toMatch(/containerPort: Invalid value: 80800/);
    expect(result.stdout).toMatch(/kubectl get hcr[\s\S]*unicorn +True/);
    // The Slack messages the run produced, read back from the local fake Slack: one per operation
    // in the team's channel (the five steps, then from chat the rollback, and the resume, whose
    // message goes on to show the upgrade it starts), the failure alone (with its buttons) in on-call's.
    expect(result.stdout).toMatch(/#unicorn-releases: 7 messages/);
    expect(result.stdout).toMatch(/\n {2}✔ unicorn-demo\/unicorn: Resumed · Upgraded \(2\.0\.0 → 3\.0\.0\)/);
    expect(result.stdout).toMatch(/\n {2}✔ unicorn-demo\/unicorn: Rolled back \(3\.0\.0 → 2\.0\.0\)\n/);
    expect(result.stdout).toMatch(/✘ unicorn-demo\/unicorn: Upgrade failed \(3\.0\.0 → 4\.0\.0\).*\[Roll back\] \[Suspend\] \[History\]/);
    expect(result.stdout).toMatch(/#oncall: 1 message\n +✘ unicorn-demo\/unicorn: Upgrade failed/);
    expect(result.stdout).toMatch(/slack: +#unicorn-releases +✔ unicorn-demo\/unicorn: Installed \(1\.0\.0\)/);
    // The chat story runs on the same fake Slack: #incident holds what Alice saw alone (plans,
    // confirmations) in their place and the bot's audit messages, edited to their outcome.
    const incident = result.stdout.slice(result.stdout.lastIndexOf('#incident: '));
    expect(incident).toMatch(/^#incident: 2 messages and 4 seen by one person only\n/);
    expect(incident).toMatch(
      /\(only <@U0ALICE> sees\) Plan: roll back unicorn-demo\/unicorn: revision \d+ → \d+ {2}\[Confirm\] \[Cancel\]\n +\(only <@U0ALICE> sees\) Confirmed.*\n +• <@U0ALICE> roll back unicorn-demo\/unicorn.*\n +:white_check_mark: .*Rolled back.*\(edited \d×\)/,
    );
    expect(incident).toMatch(
      /\(only <@U0ALICE> sees\) Plan: resume unicorn-demo\/unicorn.*\n +\(only <@U0ALICE> sees\) Confirmed.*\n +• <@U0ALICE> resume unicorn-demo\/unicorn.*\n +:white_check_mark: /,
    );
    // The story stays clean: no JSON log line anywhere in what a person sees.
    expect(result.all.split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    expect(result.stdout).toMatch(/controller started \(its log: .*demo-controller\.log\)/);
    // It ends with the release pages: their address, and a Sign in with Slack the demo made work itself.
    expect(result.stdout).toMatch(/The release pages: http:\/\/127\.0\.0\.1:\d+\n {2}sign in: http:\/\/127\.0\.0\.1:\d+\/auth\/login\/slack/);
    expect(result.stdout).toContain('checked: signed in as alice, the fleet page lists unicorn-demo/unicorn');
  });
});

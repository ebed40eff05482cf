import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { testEnv } from '../support/fixtures.js';

/** The README's demo command, run as a person runs it, on the test run's environment. */
describe('helmcrew demo', () => {
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
    expect(result.stdout).toMatch(/kubectl get helmreleases[\s\S]*unicorn +True/);
    // The Slack messages the run produced, read back from the local fake Slack: one per operation
    // in the team's channel (the five steps, then from chat the rollback, the resume and the
    // upgrade the resume starts), the failure alone (with its buttons) in on-call's.
    expect(result.stdout).toMatch(/#unicorn-releases: 8 messages/);
    expect(result.stdout).toMatch(/\n  ✔ unicorn-demo\/unicorn: Resumed\n(.*\n)*  ✔ unicorn-demo\/unicorn: Upgraded \(2\.0\.0 → 3\.0\.0\)/);
    expect(result.stdout).toMatch(/\n  ✔ unicorn-demo\/unicorn: Rolled back \(3\.0\.0 → 2\.0\.0\)\n/);
    expect(result.stdout).toMatch(/✘ unicorn-demo\/unicorn: Upgrade failed \(3\.0\.0 → 4\.0\.0\).*\[Roll back\] \[Suspend\] \[History\]/);
    expect(result.stdout).toMatch(/#oncall: 1 message\n +✘ unicorn-demo\/unicorn: Upgrade failed/);
    expect(result.stdout).toMatch(/slack: +#unicorn-releases +✔ unicorn-demo\/unicorn: Installed \(1\.0\.0\)/);
    // The chat story runs on the same fake Slack: #incident holds what Alice saw alone (plans,
    // confirmations) in their place and the bot's audit messages, edited to their outcome.
    const incident = result.stdout.slice(result.stdout.lastIndexOf('#incident: '));
    expect(incident).toMatch(/^#incident: 2 messages and 4 seen by one person only\n/);
    expect(incident).toMatch(
      /\(only <@U0ALICE> sees\) Plan: roll back unicorn-demo\/unicorn: revision \d+ → \d+  \[Confirm\] \[Cancel\]\n +\(only <@U0ALICE> sees\) Confirmed.*\n +• <@U0ALICE> roll back unicorn-demo\/unicorn.*\n +:white_check_mark: .*Rolled back.*\(edited \d×\)/,
    );
    expect(incident).toMatch(
      /\(only <@U0ALICE> sees\) Plan: resume unicorn-demo\/unicorn.*\n +\(only <@U0ALICE> sees\) Confirmed.*\n +• <@U0ALICE> resume unicorn-demo\/unicorn.*\n +:white_check_mark: /,
    );
    // The story stays clean: no JSON log line anywhere in what a person sees.
    expect(result.all.split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    expect(result.stdout).toMatch(/controller started \(its log: .*demo-controller\.log\)/);
  });
});

import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { testEnv } from '../support/fixtures.js';

type Env = Array<{ name: string; value?: string; valueFrom?: unknown }>;

/** The chart passes the Slack settings to the process: the token only by reference to a Secret. */
describe('helm/helmcrew Slack settings', () => {
  const { env } = testEnv();
  const containerEnv = async (sets: string[]): Promise<Env> => {
    const rendered = await execa(env.helmBin, [
      'template',
      'hc',
      join(REPO_ROOT, 'helm/helmcrew'),
      '--set',
      'redis.url=redis://redis:6379',
      ...sets.flatMap((s) => ['--set', s]),
    ]);
    const deployment = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJSON() as { kind?: string; spec?: { template: { spec: { containers: Array<{ env: Env }> } } } })
      .find((d) => d?.kind === 'Deployment');
    return deployment!.spec!.template.spec.containers[0]!.env;
  };

  it('no Slack Secret: no SLACK_* variables', async () => {
    expect((await containerEnv([])).filter((e) => e.name.startsWith('SLACK_'))).toEqual([]);
  });

  it('a Slack Secret and an API URL: SLACK_BOT_TOKEN from the Secret, SLACK_API_URL as given', async () => {
    const vars = await containerEnv(['slack.existingSecret=slack-bot', 'slack.apiUrl=http://slack-proxy.internal/api/']);
    expect(vars.find((e) => e.name === 'SLACK_BOT_TOKEN')).toEqual({
      name: 'SLACK_BOT_TOKEN',
      valueFrom: { secretKeyRef: { name: 'slack-bot', key: 'bot-token' } },
    });
    expect(vars.find((e) => e.name === 'SLACK_API_URL')).toEqual({ name: 'SLACK_API_URL', value: 'http://slack-proxy.internal/api/' });
  });

  it('the same Secret may hold the bot credentials: app token and signing secret as optional keys, PORT, and a Service when asked', async () => {
    const vars = await containerEnv(['slack.existingSecret=slack-bot']);
    expect(vars.find((e) => e.name === 'SLACK_APP_TOKEN')).toEqual({
      name: 'SLACK_APP_TOKEN',
      valueFrom: { secretKeyRef: { name: 'slack-bot', key: 'app-token', optional: true } },
    });
    expect(vars.find((e) => e.name === 'SLACK_SIGNING_SECRET')).toEqual({
      name: 'SLACK_SIGNING_SECRET',
      valueFrom: { secretKeyRef: { name: 'slack-bot', key: 'signing-secret', optional: true } },
    });
    expect(vars.find((e) => e.name === 'PORT')).toEqual({ name: 'PORT', value: '3000' });
    const withService = await execa(env.helmBin, [
      'template',
      'hc',
      join(REPO_ROOT, 'helm/helmcrew'),
      '--set',
      'redis.url=redis://redis:6379',
      '--set',
      'slack.existingSecret=slack-bot',
      '--set',
      'slack.bot.service.enabled=true',
    ]);
    const service = parseAllDocuments(withService.stdout)
      .map((d) => d.toJSON() as { kind?: string; spec?: { ports: unknown[] } })
      .find((d) => d?.kind === 'Service');
    expect(service?.spec?.ports).toEqual([{ name: 'slack', port: 80, targetPort: 'slack' }]);
  });
});

import { describe, expect, it } from 'vitest';
import { deployments, renderChart, type EnvVar } from '../support/chart.js';
import { testEnv } from '../support/fixtures.js';

/** The chart passes the Slack settings to the process: the token only by reference to a Secret. */
describe('helm/helmcrew Slack settings', () => {
  const { env } = testEnv();
  const containerEnv = async (sets: string[], part = 'run'): Promise<EnvVar[]> => {
    const { docs } = await renderChart(env, ['redis.external.url=redis://redis:6379', ...sets]);
    const deployment = deployments(docs).find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === part);
    return deployment!.spec!.template!.spec.containers[0]!.env;
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
    const { docs } = await renderChart(env, ['redis.external.url=redis://redis:6379', 'slack.existingSecret=slack-bot', 'slack.bot.service.enabled=true']);
    const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'hc-slack');
    expect(service?.spec).toEqual({
      selector: { 'app.kubernetes.io/name': 'helmcrew', 'app.kubernetes.io/instance': 'hc', 'app.kubernetes.io/component': 'run' },
      ports: [{ name: 'slack', port: 80, targetPort: 'slack' }],
    });
  });

  it('split parts: notify gets the bot token only, the bot all three, the controller none; the Service routes to the bot', async () => {
    const split = ['parts.split=true', 'slack.existingSecret=slack-bot', 'slack.bot.service.enabled=true'];
    const slackVars = async (part: string) => (await containerEnv(split, part)).filter((e) => e.name.startsWith('SLACK_')).map((e) => e.name);
    expect(await slackVars('controller')).toEqual([]);
    expect(await slackVars('notify')).toEqual(['SLACK_BOT_TOKEN']);
    expect(await slackVars('bot')).toEqual(['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET']);
    const { docs } = await renderChart(env, ['redis.external.url=redis://redis:6379', ...split]);
    expect(docs.find((d) => d.kind === 'Service' && d.metadata.name === 'hc-slack')?.spec).toMatchObject({
      selector: { 'app.kubernetes.io/component': 'bot' },
    });
  });
});

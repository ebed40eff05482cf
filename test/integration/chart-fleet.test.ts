import { describe, expect, it } from 'vitest';
import { deployments, literalEnv, renderChart, type KubeDoc } from '../support/chart.js';
import { testEnv } from '../support/fixtures.js';

type Mount = { name: string; mountPath: string; readOnly?: boolean };
type Volume = { name: string; secret?: { secretName: string; defaultMode?: number } };

/** Each part's variables, mounts and volumes, by component (run, controller, notify, bot, web). */
function byPart(docs: KubeDoc[]) {
  return Object.fromEntries(
    deployments(docs).map((d) => {
      const pod = d.spec!.template!.spec;
      const container = pod.containers[0]!;
      return [
        d.metadata.labels!['app.kubernetes.io/component']!,
        { env: container.env, mounts: (container.volumeMounts ?? []) as Mount[], volumes: (pod.volumes ?? []) as Volume[] },
      ];
    }),
  );
}

/**
 * Issue 32: the chart carries a fleet's settings — the controller's command key from a Secret, the
 * fleet bot's (and web's, issue 47) keys of every cluster as a mounted directory, the fleet notify's
 * clusters — each to the parts that read it, and nothing when unset. Rendered by the pinned helm.
 */
describe('helm/helmcrew fleet values', () => {
  const { env } = testEnv();
  const fleet = ['fleet.commandKey.existingSecret=hc-command-key', 'fleet.keysSecret=hc-fleet-keys', 'fleet.notifyClusters=prod-*\\,home'];
  const WEB = ['web.enabled=true', 'web.url=https://helmcrew.example.org', 'web.slack.clientId=123.456', 'web.slack.existingSecret=slack-oidc'];

  it('split parts: the command key goes to the controller, the keys directory to the bot and the web, the clusters to notify', async () => {
    const { docs } = await renderChart(env, ['parts.split=true', 'slack.existingSecret=slack', 'notifications.clusterName=home', ...WEB, ...fleet]);
    const parts = byPart(docs);
    expect(parts.controller!.env.find((e) => e.name === 'HELMCREW_COMMAND_KEY')).toEqual({
      name: 'HELMCREW_COMMAND_KEY',
      valueFrom: { secretKeyRef: { name: 'hc-command-key', key: 'command-key' } },
    });
    expect(literalEnv(parts.bot!.env).HELMCREW_FLEET_KEYS_DIR).toBe('/etc/helmcrew/fleet-keys');
    expect(parts.bot!.mounts).toContainEqual({ name: 'fleet-keys', mountPath: '/etc/helmcrew/fleet-keys', readOnly: true });
    expect(parts.bot!.volumes).toContainEqual({ name: 'fleet-keys', secret: { secretName: 'hc-fleet-keys', defaultMode: 0o440 } });
    // The web pages serve the fleet as the bot drives it (docs/web.md#a-fleet): the same keys, mounted the same way.
    expect(literalEnv(parts.web!.env).HELMCREW_FLEET_KEYS_DIR).toBe('/etc/helmcrew/fleet-keys');
    expect(parts.web!.mounts).toContainEqual({ name: 'fleet-keys', mountPath: '/etc/helmcrew/fleet-keys', readOnly: true });
    expect(parts.web!.volumes).toContainEqual({ name: 'fleet-keys', secret: { secretName: 'hc-fleet-keys', defaultMode: 0o440 } });
    expect(literalEnv(parts.notify!.env).HELMCREW_NOTIFY_CLUSTERS).toBe('prod-*,home');
    // Each setting reaches only the part that reads it: no other part holds a key it does not need.
    for (const part of ['notify', 'bot', 'web']) expect(parts[part]!.env.map((e) => e.name)).not.toContain('HELMCREW_COMMAND_KEY');
    for (const part of ['controller', 'notify']) {
      expect(parts[part]!.env.map((e) => e.name)).not.toContain('HELMCREW_FLEET_KEYS_DIR');
      expect(parts[part]!.volumes.map((v) => v.name)).not.toContain('fleet-keys');
    }
    for (const part of ['controller', 'bot', 'web']) expect(parts[part]!.env.map((e) => e.name)).not.toContain('HELMCREW_NOTIFY_CLUSTERS');
  });

  it('one `helmcrew run` holding all three parts gets all three settings', async () => {
    const { docs } = await renderChart(env, ['slack.existingSecret=slack', ...fleet]);
    const names = byPart(docs).run!.env.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['HELMCREW_COMMAND_KEY', 'HELMCREW_FLEET_KEYS_DIR', 'HELMCREW_NOTIFY_CLUSTERS']));
  });

  it('unset (the default): no fleet variable and no keys volume in any part', async () => {
    const { yaml } = await renderChart(env, ['parts.split=true', 'slack.existingSecret=slack', ...WEB]);
    expect(yaml).not.toMatch(/HELMCREW_COMMAND_KEY|HELMCREW_FLEET_KEYS_DIR|HELMCREW_NOTIFY_CLUSTERS|fleet-keys/);
  });

  it('a notifyClusters value that cannot name clusters is refused by the values schema', async () => {
    await expect(renderChart(env, ['fleet.notifyClusters=Prod_EU'])).rejects.toThrow(/notifyClusters/);
  });
});

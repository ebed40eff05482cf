import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { serveMcp, type McpTestServer } from '../support/mcp-server.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';

/**
 * A desktop client that cannot reach the cluster or Redis: `helmcrew mcp --url` relays its stdio to
 * the web server's `/mcp` with a token from a file (the process spawned as a client spawns it),
 * and a token revoked on the server is refused through the relay on the next call.
 */
describe('assistants through the stdio relay (helmcrew mcp --url)', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace } = namespaceWithController('mcprelay');
  const team = uniqueName('mcprelay');
  let server: McpTestServer;
  let client: Client | undefined;

  beforeAll(async () => {
    await createTeam(kube, team, { members: { slackUsers: ['UALICE'] }, permissions: [{ namespaces: [namespace], verbs: ['status'] }] });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '1h' }),
    );
    await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    server = await serveMcp(env, kube, `{mcprelay-${namespace}}`, new Registry());
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
    await deleteTeam(kube, team);
  });

  it('relays a desktop client over stdio to /mcp, with no kubeconfig or Redis; a revoked token is refused there', async () => {
    const { token } = await server.tokens.create('UALICE', 'read', 3_600_000);
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-relay-')), 'token');
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    client = new Client({ name: 'desktop-relay-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(REPO_ROOT, 'bin/helmcrew.js'), 'mcp', '--token-file', file, '--url', server.mcpUrl.origin],
        // Only what a desktop has: no KUBECONFIG, no REDIS_URL.
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
        stderr: 'pipe',
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('release_status');
    const status = await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    const text = (status.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
    expect(text).toMatch(new RegExp(`^<untrusted-data>\\n${namespace}/unicorn: chart unicorn`));
    expect(await server.tokens.revoke(token)).toBeDefined();
    await expect(client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } })).rejects.toThrow(/revoked/);
  });
});

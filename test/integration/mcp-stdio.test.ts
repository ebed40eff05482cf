import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { serveMcp, type McpTestServer } from '../support/mcp-server.js';

/**
 * A desktop client's way in: `helmcrew token create` prints a token once, `helmcrew mcp
 * --token-file F` serves the tools over stdio to the SDK's own Client (the process spawned as a
 * client spawns it), and `helmcrew token revoke` ends it on the next call. A desktop that cannot
 * reach the cluster or Redis: `helmcrew mcp --url` relays its stdio to the web server's `/mcp`.
 */
describe('assistants over stdio (helmcrew mcp)', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace } = namespaceWithController('mcpio');
  const team = uniqueName('mcpio');
  const cliEnv = { ...process.env, KUBECONFIG: env.kubeconfig, REDIS_URL: env.redisUrl, HELMCREW_QUEUE_PREFIX: `mcpio-${namespace}`, LOG_LEVEL: 'warn' };
  const helmcrew = (...args: string[]) => execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), ...args], { env: cliEnv, reject: false });
  let client: Client | undefined;
  let relayed: Client | undefined;
  let server: McpTestServer | undefined;

  beforeAll(async () => {
    await createTeam(kube, team, { members: { slackUsers: ['UALICE'] }, permissions: [{ namespaces: [namespace], verbs: ['status'] }] });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '1h' }),
    );
    await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await relayed?.close().catch(() => undefined);
    await server?.close();
    await deleteTeam(kube, team);
  });

  it('token create → mcp over stdio reads as the person → token revoke refuses the next call', async () => {
    expect((await helmcrew('token', 'create', '--user', 'alice', '--scope', 'read', '--expires', '1h')).exitCode).toBe(2);
    const created = await helmcrew('token', 'create', '--user', 'UALICE', '--scope', 'read', '--expires', '1h');
    expect(created.exitCode).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^hcmcp_[A-Za-z0-9_-]{43}$/);
    const id = /token ([0-9a-f]{12}) for slack:UALICE, scope read/.exec(created.stderr)?.[1];
    expect(id).toBeDefined();
    const file = join(await mkdtemp(join(tmpdir(), 'mcpio-')), 'token');
    await writeFile(file, `${token}\n`, { mode: 0o600 });

    client = new Client({ name: 'desktop-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(REPO_ROOT, 'bin/helmcrew.js'), 'mcp', '--token-file', file],
        env: cliEnv,
        stderr: 'pipe',
      }),
    );
    const status = await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    expect(status.isError).toBeFalsy();
    expect((status.content as { text: string }[])[0]!.text).toContain(`<untrusted-data>\n${namespace}/unicorn: chart unicorn 1.0.0 declared`);
    // Its chart's NOTES, read from helm's record of revision 1 (stdio has no watch), inside the marker too.
    expect((status.content as { text: string }[])[0]!.text).toMatch(
      /NOTES of revision 1:\n<untrusted-data>\nThe \w+ unicorn \(unicorn 1\.0\.0\) is served by Service/,
    );

    const revoked = await helmcrew('token', 'revoke', id!);
    expect(revoked.exitCode).toBe(0);
    const after = await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    expect(after.isError).toBe(true);
    expect((after.content as { text: string }[])[0]!.text).toContain(`token ${id} was revoked`);
  });

  it('helmcrew mcp --url relays a desktop client over stdio to /mcp, with no kubeconfig or Redis; a revoked token is refused there', async () => {
    server = await serveMcp(env, kube, `{mcprelay-${namespace}}`, new Registry());
    const { token } = await server.tokens.create('UALICE', 'read', 3_600_000);
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-relay-')), 'token');
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    relayed = new Client({ name: 'desktop-relay-test', version: '1' });
    await relayed.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(REPO_ROOT, 'bin/helmcrew.js'), 'mcp', '--token-file', file, '--url', server.mcpUrl.origin],
        // Only what a desktop has: no KUBECONFIG, no REDIS_URL.
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
        stderr: 'pipe',
      }),
    );
    expect((await relayed.listTools()).tools.map((t) => t.name)).toContain('release_status');
    const status = await relayed.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    expect((status.content as { text: string }[])[0]!.text).toMatch(new RegExp(`^<untrusted-data>\\n${namespace}/unicorn: chart unicorn`));
    expect(await server.tokens.revoke(token)).toBeDefined();
    await expect(relayed.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } })).rejects.toThrow(/revoked/);
  });
});

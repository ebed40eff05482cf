import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetAclCommand } from '../../src/cli/commands/fleet-acl.js';
import { agentAclLine, hubAclLine } from '../../src/core/fleet/acl.js';

/** `helmcrew fleet acl`: the fleet's ACL lines from password files, and a clear refusal of what it cannot use. */
async function run(args: string[], env: Record<string, string> = { HELMCREW_QUEUE_PREFIX: 'helmcrew' }) {
  let out = '';
  let err = '';
  const code = await fleetAclCommand(
    args,
    env,
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}

async function passwords(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-acl-cli-'));
  for (const [name, value] of Object.entries(files)) await writeFile(join(dir, name), `${value}\n`);
  return dir;
}

const PW = { 'agent-edge': 'edge-password-0123456789', 'agent-home': 'home-password-0123456789', hub: 'hub-password-0123456789' };

describe('helmcrew fleet acl', () => {
  it('prints an agent line per cluster and the hub line, passwords only as their SHA-256', async () => {
    const dir = await passwords(PW);
    const { code, out, err } = await run(['--clusters', 'edge,home', '--passwords', dir]);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toBe(
      `${[agentAclLine('agent-edge', PW['agent-edge'], 'helmcrew', 'edge'), agentAclLine('agent-home', PW['agent-home'], 'helmcrew', 'home'), hubAclLine('hub', PW.hub, 'helmcrew')].join('\n')}\n`,
    );
    for (const secret of Object.values(PW)) expect(out).not.toContain(secret);
  });

  it('follows HELMCREW_QUEUE_PREFIX', async () => {
    const dir = await passwords(PW);
    const { out } = await run(['--clusters', 'edge,home', '--passwords', dir], { HELMCREW_QUEUE_PREFIX: 'acme' });
    expect(out).toContain('~{acme:edge}:*');
    expect(out).not.toContain('{helmcrew');
  });

  it.each([
    [[], '--clusters is required'],
    [['--clusters', 'edge'], '--passwords is required'],
    [['--clusters'], '--clusters needs a value'],
    [['--clusters', 'Prod_EU', '--passwords', '/x'], '"Prod_EU" is not a cluster name'],
    [['--clusters', 'edge,edge', '--passwords', '/x'], 'names a cluster twice'],
    [['--verbose'], 'unknown argument "--verbose"'],
  ])('%j is refused with usage: %s', async (args, message) => {
    const { code, out, err } = await run(args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
    expect(err).toContain('usage: helmcrew fleet acl');
  });

  it('a missing or weak password file names the file, never a password', async () => {
    const missing = await passwords({ 'agent-edge': PW['agent-edge'] });
    const gone = await run(['--clusters', 'edge', '--passwords', missing]);
    expect(gone).toMatchObject({ code: 1, out: '' });
    expect(gone.err).toContain(`cannot read hub's password from ${join(missing, 'hub')}: ENOENT`);
    const weak = await passwords({ 'agent-edge': 'short', hub: PW.hub });
    const refused = await run(['--clusters', 'edge', '--passwords', weak]);
    expect(refused).toMatchObject({ code: 1, out: '' });
    expect(refused.err).toContain(`${join(weak, 'agent-edge')} must hold one password of at least 16 characters`);
    expect(refused.err).not.toContain('short');
  });

  it('a prefix that cannot be an ACL pattern is refused', async () => {
    const dir = await passwords(PW);
    const { code, err } = await run(['--clusters', 'edge', '--passwords', dir], { HELMCREW_QUEUE_PREFIX: 'a*b' });
    expect(code).toBe(2);
    expect(err).toContain('HELMCREW_QUEUE_PREFIX must not contain');
  });
});

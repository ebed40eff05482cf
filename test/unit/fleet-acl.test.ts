import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentAclLine, hubAclLine } from '../../src/core/fleet/acl.js';

describe('fleet ACL lines', () => {
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');

  it('an agent gets its keyspace, SADD on the index, and no password in clear', () => {
    const line = agentAclLine('agent-edge', 'p4ss', '{hc}', 'edge');
    expect(line).toMatch(/^user agent-edge on #[0-9a-f]{64} resetkeys ~\{hc:edge\}:\* resetchannels &\{hc:edge\}:\* /);
    expect(line).toContain(`#${sha('p4ss')}`);
    expect(line).not.toContain('p4ss');
    expect(line).toMatch(/-scan -randomkey .* \(~\{hc\}:fleet:clusters \+sadd\) \(~\{hc\}:fleet:freezes \+hgetall\)$/);
    expect(line).not.toContain('~{hc:home}');
  });

  it('the hub gets every named cluster’s keyspace and the fleet’s own keys (index, freezes, channel buckets)', () => {
    expect(hubAclLine('hub', 'x', 'hc')).toMatch(/resetkeys ~\{hc:\*\}:\* ~\{hc\}:fleet:\* resetchannels/);
  });
});

import { describe, expect, it } from 'vitest';
import { mcpArgs } from '../../../src/cli/commands/mcp.js';
import { agreedVersion, relayFailure } from '../../../src/mcp/stdio-relay.js';

describe('helmcrew mcp arguments', () => {
  it('takes a token file, and a web server whose /mcp it relays to', () => {
    expect(mcpArgs(['--token-file', 'f'])).toEqual({ tokenFile: 'f' });
    expect(mcpArgs(['--token-file', 'f', '--url', 'https://helmcrew.example.org/some/page'])).toEqual({
      tokenFile: 'f',
      url: new URL('https://helmcrew.example.org/mcp'),
    });
    expect(mcpArgs(['--url', 'http://127.0.0.1:8080', '--token-file', 'f'])?.url?.href).toBe('http://127.0.0.1:8080/mcp');
  });

  it.each([
    [[]],
    [['--url', 'https://x.test']],
    [['--token-file']],
    [['--token-file', 'f', '--url', 'not a url']],
    [['--token-file', 'f', '--url', 'file:///etc/passwd']],
    [['--token-file', 'f', '--token-file', 'g']],
    [['--tokenfile', 'f']],
  ])('refuses %j', (args) => expect(mcpArgs(args)).toBeUndefined());
});

describe('the stdio relay', () => {
  it('answers a request the web server refused with a JSON-RPC error naming why; a notification gets no answer', () => {
    const refused = new Error('Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32001,"message":"token 0123abcd4567 was revoked"}}');
    expect(relayFailure({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }, refused)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: expect.stringContaining('was revoked') as unknown },
    });
    expect(relayFailure({ jsonrpc: '2.0', method: 'notifications/initialized' }, refused)).toBeUndefined();
  });

  it('reads the protocol version an initialize result agreed on', () => {
    expect(agreedVersion({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'x', version: '1' } } })).toBe(
      '2025-06-18',
    );
    expect(agreedVersion({ jsonrpc: '2.0', id: 2, result: { tools: [] } })).toBeUndefined();
  });
});

// oidc-provider ships no types; the part test/support/oidc-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & { findAccount?: (ctx: unknown, id: string) => unknown });
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}

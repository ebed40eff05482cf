import Mustache from 'mustache';
import { renderLayout } from '../render/layout.js';
import type { WebPrincipal } from '../contract.js';
import type { AuthorizationAsk } from './authorize-request.js';

/**
 * The consent page an assistant's sign-in stops at: which client (as it named itself, and where the
 * code will be sent, so a client calling itself something it is not can be told apart), which
 * scope, as whom. Allow and Deny are POSTs carrying the session's CSRF token; no script needed.
 * Mustache escapes every value: a client's name is the client's to choose.
 */

const CONSENT = `<h1>Let an assistant act as you?</h1>
<p><strong>{{clientName}}</strong> (it named itself so) asks to use helmcrew as <strong>{{person}}</strong>.</p>
<p>When you allow it, it is sent to <code>{{redirectHost}}</code> and gets a token for one hour that may:</p>
<ul>
<li>read the releases, freezes and proposals your Teams let you see</li>
{{#propose}}<li>propose changes in your name, which another person must approve on the web; it can never apply one</li>{{/propose}}
</ul>
<p>Your Teams still decide every call it makes.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="_csrf" value="{{csrfToken}}">
<input type="hidden" name="request" value="{{requestId}}">
{{#propose}}<p><button class="primary" type="submit" name="decision" value="allow-propose">Allow: read and propose</button>
<button type="submit" name="decision" value="allow-read">Allow reading only</button></p>{{/propose}}
{{^propose}}<p><button class="primary" type="submit" name="decision" value="allow-read">Allow: read</button></p>{{/propose}}
<p><button type="submit" name="decision" value="deny">Deny</button></p>
</form>`;

export function renderConsentPage(input: { ask: AuthorizationAsk; principal: WebPrincipal; requestId: string; csrfToken: string }): string {
  const url = new URL(input.ask.redirectUri);
  return renderLayout({
    title: 'Allow an assistant',
    signedIn: { name: input.principal.name, via: input.principal.via },
    csrfToken: input.csrfToken,
    body: Mustache.render(CONSENT, {
      clientName: input.ask.clientName,
      person: input.principal.name,
      redirectHost: `${url.protocol}//${url.host}`,
      propose: input.ask.scope === 'propose',
      requestId: input.requestId,
      csrfToken: input.csrfToken,
    }),
  });
}

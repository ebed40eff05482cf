import Mustache from 'mustache';
import { renderLayout } from '../render/layout.js';

/**
 * The server's own pages — sign-in and every error — drawn in the shared layout. Mustache escapes
 * each value, so a provider's error text or a person's name cannot become markup.
 */

const SIGN_IN = `<h1>Sign in to helmcrew</h1>
{{#reason}}<p class="error">{{reason}}</p>{{/reason}}
{{#providers}}<form method="get" action="/auth/login/{{id}}"><input type="hidden" name="returnTo" value="{{returnTo}}"><p><button class="primary" type="submit">{{label}}</button></p></form>{{/providers}}`;

const ERROR = `<h1>{{heading}}</h1>
<p class="error">{{message}}</p>
{{#signedInAs}}<p>You are signed in as <strong>{{signedInAs}}</strong>.</p>{{/signedInAs}}
<p><a href="{{next}}">{{nextLabel}}</a></p>`;

export interface SignInPageInput {
  providers: Array<{ id: string; label: string }>;
  returnTo: string;
  reason?: string;
}

export function renderSignInPage(input: SignInPageInput): string {
  return renderLayout({
    title: 'Sign in',
    body: Mustache.render(SIGN_IN, { ...input, providers: input.providers.map((p) => ({ ...p, returnTo: input.returnTo })) }),
  });
}

export interface ErrorPageInput {
  status: number;
  heading: string;
  message: string;
  /** The person's name, when the page is about who they are (a user in no Team). */
  signedInAs?: string;
  /** Where the page's one link goes; default the sign-in page. */
  next?: { href: string; label: string };
}

export function renderErrorPage(input: ErrorPageInput): string {
  const next = input.next ?? { href: '/auth/login', label: 'Sign in again' };
  return renderLayout({ title: input.heading, body: Mustache.render(ERROR, { ...input, next: next.href, nextLabel: next.label }) });
}

/** The pages every route may answer with, by status. */
export const ERROR_PAGES = {
  forbiddenCsrf: {
    status: 403,
    heading: 'Request refused',
    message:
      'This form was not sent from a page of this session (its CSRF token is missing or wrong). Nothing was changed; go back, reload the page and try again.',
  },
  notFound: { status: 404, heading: 'Not found', message: 'There is no page here.', next: { href: '/', label: 'Back to the fleet' } },
  tooMany: { status: 429, heading: 'Too many sign-in attempts', message: 'Too many sign-in attempts from your address. Wait a minute and try again.' },
  providerDown: (detail: string) => ({
    status: 503,
    heading: 'Sign-in is not available',
    message: `The sign-in provider does not answer (${detail}). helmcrew itself keeps working; try again in a little while.`,
  }),
  signInRefused: (reason: string) => ({
    status: 400,
    heading: 'Sign-in failed',
    message: `This sign-in cannot be completed: ${reason}. Nothing was signed in.`,
  }),
  notMember: (name: string) => ({
    status: 403,
    heading: 'No access',
    message: 'You are signed in, but you are in no helmcrew Team, so there is nothing you may see here. Ask a Team’s owners to add you.',
    signedInAs: name,
  }),
  serverError: {
    status: 500,
    heading: 'Something went wrong',
    message: 'helmcrew could not answer this request. It was logged; try again.',
    next: { href: '/', label: 'Back to the fleet' },
  },
} satisfies Record<string, ErrorPageInput | ((arg: string) => ErrorPageInput)>;

/**
 * A browser without a screen, for sign-ins driven over HTTP: one cookie jar per origin, redirects
 * followed by hand (so a test can stop at one and read it), and a provider's HTML forms submitted
 * with their hidden fields — enough for oidc-provider's development login and consent pages.
 */

export interface Page {
  url: URL;
  status: number;
  headers: Headers;
  body: string;
}

export class HttpBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  /** One request; cookies kept; no redirect followed. */
  async request(url: string | URL, init: { method?: string; form?: Record<string, string> } = {}): Promise<Page> {
    const target = new URL(url);
    const jar = this.jars.get(target.origin) ?? new Map<string, string>();
    this.jars.set(target.origin, jar);
    const headers: Record<string, string> = { accept: 'text/html' };
    if (jar.size > 0) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(target, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()));
      if (gone) jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join('='));
    }
    return { url: target, status: response.status, headers: response.headers, body: await response.text() };
  }

  /** Follows redirects from `url` until `stop(location)` says so (that redirect is returned) or a page answers. */
  async follow(
    url: string | URL,
    stop: (location: URL) => boolean = () => false,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<Page> {
    let page = await this.request(url, init);
    for (let hops = 0; hops < 20 && page.status >= 300 && page.status < 400; hops++) {
      const location = new URL(page.headers.get('location')!, page.url);
      if (stop(location)) return page;
      page = await this.request(location);
    }
    return page;
  }

  /** Submits the page's first form (oidc-provider's login or consent), with `fields` beside its hidden ones, and follows on. */
  async submitForm(page: Page, fields: Record<string, string>, stop?: (location: URL) => boolean): Promise<Page> {
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page.body);
    if (!form) throw new Error(`no form on ${page.url.href} (${page.status}): ${page.body.slice(0, 300)}`);
    const hidden = Object.fromEntries(
      [...form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, decode(m[2]!)]),
    );
    return this.follow(new URL(decode(form[1]!), page.url), stop, { form: { ...hidden, ...fields } });
  }
}

function decode(html: string): string {
  return html
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x2F;/g, '/')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/**
 * Signs in on the web through oidc-provider's development pages (login, then consent) as `login`,
 * starting at `start` (a page of the web that needs a session) and ending where the web sends the
 * browser back: that page is returned.
 */
export async function signInAtProvider(browser: HttpBrowser, start: string, webOrigin: string, login: string): Promise<Page> {
  let page = await browser.follow(start, (location) => location.pathname === '/auth/login' && location.origin === webOrigin);
  // The web's sign-in page: start the provider's sign-in, coming back to `start`.
  const returnTo = new URL(page.headers.get('location')!, page.url).searchParams.get('returnTo') ?? '/';
  page = await browser.follow(`${webOrigin}/auth/login/oidc?returnTo=${encodeURIComponent(returnTo)}`);
  for (let step = 0; step < 4 && page.url.origin !== webOrigin; step++) {
    const isLogin = page.body.includes('name="login"');
    page = await browser.submitForm(page, isLogin ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' });
  }
  if (page.url.origin !== webOrigin) throw new Error(`the sign-in did not come back to the web: ${page.url.href} ${page.status} ${page.body.slice(0, 300)}`);
  return page;
}

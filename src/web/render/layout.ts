import Mustache from 'mustache';

/**
 * The shell every page of the web surface is drawn in: head, the stylesheet, who is signed in, the
 * sign-out form (a POST with the CSRF token), an optional banner (freezes) and the page's body.
 * Mustache escapes every `{{value}}` by default (STYLE.md: escape at the edge that renders); only
 * `body` and `banner`, HTML that a template already rendered, go in unescaped.
 */

export interface LayoutInput {
  title: string;
  /** Absent on the pages before sign-in (the sign-in page, errors). */
  signedIn?: { name: string; via: 'slack' | 'oidc' };
  csrfToken?: string;
  /** HTML rendered by a page's own template (its values escaped there). */
  body: string;
  /** HTML rendered by a template: shown above the body on every page (active freezes). */
  banner?: string;
}

const LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} · helmcrew</title>
<link rel="stylesheet" href="/assets/web.css">
</head>
<body>
<header class="top">
<a class="brand" href="/">helmcrew</a>
<nav><a href="/">Fleet</a> <a href="/freezes">Freezes</a> <a href="/proposals">Proposals</a></nav>
{{#signedIn}}<form class="who" method="post" action="/auth/logout"><span>{{name}}</span> <input type="hidden" name="_csrf" value="{{csrfToken}}"><button type="submit">Sign out</button></form>{{/signedIn}}
</header>
{{{banner}}}
<main>
{{{body}}}
</main>
</body>
</html>
`;

export function renderLayout(input: LayoutInput): string {
  return Mustache.render(LAYOUT, {
    ...input,
    banner: input.banner ?? '',
    signedIn: input.signedIn ? { ...input.signedIn, csrfToken: input.csrfToken ?? '' } : false,
  });
}

/** The stylesheet, served at /assets/web.css: readable at 375 px wide (on-call on a phone), no script needed. */
export const WEB_CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1d1f;background:#fafafa}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.6rem 1rem;background:#22223b;color:#fff}
header.top a{color:#fff;text-decoration:none}
header.top .brand{font-weight:700}
header.top nav{display:flex;gap:.8rem;flex:1}
header.top .who{display:flex;gap:.5rem;align-items:center;margin:0}
main{padding:1rem;max-width:72rem;margin:0 auto}
h1{font-size:1.35rem;margin:.2rem 0 .8rem}
h2{font-size:1.1rem;margin:1.2rem 0 .5rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
.scroll{overflow-x:auto}
.mark{display:inline-block;padding:0 .4rem;border-radius:.6rem;font-size:.8rem;margin-right:.2rem;background:#e0e0e0}
.mark.ready{background:#d3f4dc}.mark.failed{background:#ffd6d6}.mark.suspended{background:#fff0c2}
.mark.frozen{background:#d6e9ff}.mark.drifted{background:#f3dcff}.mark.proposal{background:#ffe3cc}
.banner{padding:.6rem 1rem;background:#d6e9ff;border-bottom:1px solid #9cc3f5}
.banner.frozen strong{margin-right:.3rem}
pre,code{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;word-break:break-word;background:#f0f0f0;padding:.5rem;border-radius:.3rem}
.diff .before{background:#ffecec}.diff .after{background:#eaffea}
details{margin:.3rem 0;border:1px solid #ddd;border-radius:.3rem;padding:.3rem .6rem;background:#fff}
summary{cursor:pointer}
form.inline{display:inline}
button{font:inherit;padding:.3rem .8rem;border-radius:.3rem;border:1px solid #888;background:#fff;cursor:pointer}
button.primary{background:#22223b;color:#fff;border-color:#22223b}
.error{padding:.8rem 1rem;background:#ffecec;border:1px solid #f5a3a3;border-radius:.3rem}
@media (max-width:480px){th,td{padding:.3rem .3rem}main{padding:.6rem}}
`;

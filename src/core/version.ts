import { readFileSync } from 'node:fs';

/** helmcrew's version, from package.json beside src/ (a checkout) or dist/ (the image); `unknown` if it cannot be read. */
export function helmcrewVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

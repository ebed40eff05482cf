/**
 * Pure: the submodule URLs of `git config -f .gitmodules --get-regexp '^submodule\..*\.url$'`,
 * relative ones (../other.git) resolved against the parent repository's URL as git does.
 */
export function submoduleUrls(listed: string, parentUrl: string): string[] {
  const urls: string[] = [];
  for (const line of listed.split('\n')) {
    const value = line.trim().split(/\s+/)[1];
    if (!value) continue;
    if (value.startsWith('./') || value.startsWith('../')) urls.push(new URL(value, `${parentUrl.replace(/\/+$/, '')}/`).href);
    else if (/^[^/:@]+@[^/:]+:/.test(value)) urls.push(`ssh://${value.replace(':', '/')}`);
    else urls.push(value);
  }
  return urls;
}

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { HELM_CHART_LAYER } from '../../api/chart-fetch.js';
import { accessRefused, credentialsFor, type ChartAccess } from './chart-access.js';
import { guardedRequest, type GuardedGetOptions, type GuardedResponse } from './guarded-get.js';
import type { HostPolicy } from './host-policy.js';
import { ChartNotFoundError, RepositoryNotAllowedError, RepositoryUnreachableError } from './repository-errors.js';

/**
 * The few calls of the OCI distribution API a chart needs: list a repository's tags, and the
 * digest a tag points at. Authentication as registries ask for it: a `Basic` challenge (the
 * distribution registry's htpasswd) is answered with the user and password; a `Bearer` one
 * (GHCR, Harbor, ECR, Artifactory) with a token fetched from the realm it names.
 */

export interface OciChartRef {
  /** host[:port], as in the URL. */
  host: string;
  /** http(s)://host[:port] */
  base: string;
  /** Repository path in the registry: `<path>/<chart>`. */
  name: string;
  /** oci://host/path/chart: what helm pulls, with `@digest` added. */
  ref: string;
}

/** Pure: where `chart` lives under the oci:// `repository`. */
export function ociChartRef(repository: string, chart: string, insecure: boolean): OciChartRef {
  let url: URL;
  try {
    url = new URL(repository.replace(/^oci:/, 'http:'));
  } catch {
    throw new RepositoryNotAllowedError(repository, 'it is not a URL');
  }
  const path = url.pathname.replace(/^\/+|\/+$/g, '');
  const name = path ? `${path}/${chart}` : chart;
  return { host: url.host, base: `${insecure ? 'http' : 'https'}://${url.host}`, name, ref: `oci://${url.host}/${name}` };
}

/** Pure: helm pushes version `1.0.0+build.1` as tag `1.0.0_build.1` (`+` is not allowed in a tag). */
export const tagToVersion = (tag: string): string => tag.replaceAll('_', '+');
export const versionToTag = (version: string): string => version.replaceAll('+', '_');

const MANIFEST_TYPES = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json'].join(', ');
const MAX_TAG_PAGES = 20;

export interface RegistryOptions {
  policy: HostPolicy;
  timeoutMs: number;
  /** Largest answer read (a tag list). */
  maxBytes: number;
  now?: () => number;
}

/** How long an Authorization that worked with Basic is sent at once; a Bearer token lives as its `expires_in` says (default 60 s). */
const BASIC_REMEMBERED_MS = 60 * 60_000;
const TOKEN_MARGIN_MS = 10_000;
const MAX_REMEMBERED = 1000;

export class OciRegistryClient {
  /**
   * The Authorization that last worked per repository and set of credentials: a periodic check
   * sends it at once instead of meeting the challenge (and fetching a token) on every request.
   */
  private readonly remembered = new Map<string, { authorization: string; until: number }>();

  constructor(private readonly options: RegistryOptions) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Every tag of the chart's repository (following `Link: rel="next"` pages). */
  async tags(repository: string, chart: OciChartRef, access: ChartAccess): Promise<string[]> {
    const tags: string[] = [];
    let next: string | undefined = `${chart.base}/v2/${chart.name}/tags/list?n=1000`;
    for (let page = 0; next && page < MAX_TAG_PAGES; page++) {
      const res = await this.get(repository, chart, access, next, { accept: 'application/json' });
      if (res.status === 404) throw new ChartNotFoundError(`chart "${chart.name}" is not in the registry ${repository}`);
      if (res.status !== 200) throw new RepositoryUnreachableError(repository);
      const body = parseJson(res.body) as { tags?: unknown } | undefined;
      if (Array.isArray(body?.tags)) tags.push(...body.tags.filter((t): t is string => typeof t === 'string'));
      next = nextPage(res.headers, next);
    }
    return tags;
  }

  /** The manifest digest `tag` points at now (`sha256:…`). */
  async digest(repository: string, chart: OciChartRef, access: ChartAccess, tag: string): Promise<string> {
    const url = `${chart.base}/v2/${chart.name}/manifests/${encodeURIComponent(tag)}`;
    let res = await this.get(repository, chart, access, url, { accept: MANIFEST_TYPES }, 'HEAD');
    let digest = headerValue(res.headers, 'docker-content-digest');
    if (res.status === 200 && !digest) {
      // Not every registry names the digest on HEAD: the manifest's own hash is the digest.
      res = await this.get(repository, chart, access, url, { accept: MANIFEST_TYPES });
      digest = `sha256:${createHash('sha256').update(res.body).digest('hex')}`;
    }
    if (res.status === 404) throw new ChartNotFoundError(`chart "${chart.name}" has no tag ${tag} in the registry ${repository}`);
    if (res.status !== 200 || !digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new RepositoryUnreachableError(repository);
    return digest;
  }

  /**
   * The chart archive of the manifest `digest`: its helm chart layer's blob, checked against the
   * layer's digest. For a source with a proxy, so the pull passes the proxy and the host policy as
   * the tag list did (helm would ask the proxy by name, and never for a loopback registry).
   */
  async chartArchive(repository: string, chart: OciChartRef, access: ChartAccess, digest: string): Promise<Buffer> {
    const manifest = await this.get(repository, chart, access, `${chart.base}/v2/${chart.name}/manifests/${digest}`, { accept: MANIFEST_TYPES });
    if (manifest.status !== 200) throw new ChartNotFoundError(`the registry ${repository} has no manifest ${digest} of chart "${chart.name}"`);
    const layer = chartLayerOf(parseJson(manifest.body), repository);
    const blob = await this.get(repository, chart, access, `${chart.base}/v2/${chart.name}/blobs/${layer}`, { accept: '*/*' });
    if (blob.status !== 200) throw new RepositoryUnreachableError(repository);
    if (`sha256:${createHash('sha256').update(blob.body).digest('hex')}` !== layer) throw new ChartNotFoundError(`the chart layer ${layer} from ${repository} does not match its digest`);
    return blob.body;
  }

  /** One call, answering the registry's challenge when it sends one. */
  private async get(repository: string, chart: OciChartRef, access: ChartAccess, url: string, headers: Record<string, string>, method: 'GET' | 'HEAD' = 'GET'): Promise<GuardedResponse> {
    const opts: GuardedGetOptions = { ...this.options, repository, headers, tls: access.tls, method, ...(access.proxy ? { proxy: access.proxy } : {}) };
    const memo = `${chart.base}/${chart.name}|${access.cacheKey}`;
    const known = this.remembered.get(memo);
    let first: GuardedResponse;
    if (known && known.until > this.now()) {
      first = await guardedRequest(url, { ...opts, headers: { ...headers, authorization: known.authorization } });
      if (first.status !== 401) return refused(first, repository, access);
      this.remembered.delete(memo);
    } else {
      first = await guardedRequest(url, opts);
      if (first.status !== 401) return refused(first, repository, access);
    }
    const challenge = parseChallenge(headerValue(first.headers, 'www-authenticate'));
    const login = credentialsFor(access, chart.host);
    let answer: { authorization: string; ttlMs: number } | undefined;
    if (challenge?.scheme === 'basic' && login) answer = { authorization: basicAuth(login), ttlMs: BASIC_REMEMBERED_MS };
    if (challenge?.scheme === 'bearer') {
      const token = await this.token(repository, challenge.params, chart, access, login);
      answer = { authorization: `Bearer ${token.token}`, ttlMs: token.expiresInS * 1000 - TOKEN_MARGIN_MS };
    }
    if (!answer) throw accessRefused(repository, access);
    const res = refused(await guardedRequest(url, { ...opts, headers: { ...headers, authorization: answer.authorization } }), repository, access);
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear();
    this.remembered.set(memo, { authorization: answer.authorization, until: this.now() + answer.ttlMs });
    return res;
  }

  private async token(
    repository: string,
    params: Record<string, string>,
    chart: OciChartRef,
    access: ChartAccess,
    login?: { username: string; password: string },
  ): Promise<{ token: string; expiresInS: number }> {
    if (!params.realm) throw new RepositoryUnreachableError(repository);
    const url = new URL(params.realm);
    if (params.service) url.searchParams.set('service', params.service);
    url.searchParams.set('scope', params.scope ?? `repository:${chart.name}:pull`);
    const headers: Record<string, string> = { accept: 'application/json', ...(login ? { authorization: basicAuth(login) } : {}) };
    const res = await guardedRequest(url.href, { ...this.options, repository, headers, tls: access.tls, ...(access.proxy ? { proxy: access.proxy } : {}) });
    if (res.status === 401 || res.status === 403) throw accessRefused(repository, access);
    const body = parseJson(res.body) as { token?: unknown; access_token?: unknown; expires_in?: unknown } | undefined;
    const token = body?.token ?? body?.access_token;
    if (res.status !== 200 || typeof token !== 'string') throw new RepositoryUnreachableError(repository);
    // The spec's default lifetime is 60 s when the server names none.
    const expiresInS = typeof body?.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
    return { token, expiresInS };
  }
}

function refused(res: GuardedResponse, repository: string, access: ChartAccess): GuardedResponse {
  if (res.status === 401 || res.status === 403) throw accessRefused(repository, access);
  return res;
}

const basicAuth = (login: { username: string; password: string }) => `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Pure: the digest of a manifest's helm chart layer (the only layer helm installs). */
export function chartLayerOf(manifest: unknown, repository: string): string {
  const layers = (manifest as { layers?: Array<{ mediaType?: unknown; digest?: unknown }> } | undefined)?.layers ?? [];
  const chart = layers.find((l) => l.mediaType === HELM_CHART_LAYER && typeof l.digest === 'string' && /^sha256:[0-9a-f]{64}$/.test(l.digest));
  if (!chart) throw new ChartNotFoundError(`the artifact in ${repository} has no helm chart layer (${HELM_CHART_LAYER})`);
  return chart.digest as string;
}

/** Pure: `Bearer realm="…",service="…",scope="…"` → scheme and parameters. */
export function parseChallenge(header: string | undefined): { scheme: 'basic' | 'bearer'; params: Record<string, string> } | undefined {
  const match = /^\s*(basic|bearer)\b(.*)$/i.exec(header ?? '');
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (const [, key, quoted, bare] of match[2]!.matchAll(/([a-z_]+)\s*=\s*(?:"([^"]*)"|([^\s,]+))/gi)) params[key!.toLowerCase()] = quoted ?? bare ?? '';
  return { scheme: match[1]!.toLowerCase() as 'basic' | 'bearer', params };
}

/** Pure: the next page of a tag list (`Link: </v2/…?last=x>; rel="next"`), on the same origin only. */
export function nextPage(headers: IncomingHttpHeaders, current: string): string | undefined {
  const link = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(headerValue(headers, 'link') ?? '');
  if (!link) return undefined;
  const next = new URL(link[1]!, current);
  return next.origin === new URL(current).origin ? next.href : undefined;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

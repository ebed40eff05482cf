// What a registry was asked, as the counting proxy in front of it saw it (registry-proxy.ts): tag
// lists and digests per repository, token requests, and the 401 challenges that precede a token.
// Pure, so the image-rest bench's figures rest on tested counting.

export type RegistryRequestKind = 'list' | 'digest' | 'token' | 'other';

/** One request as the proxy logged it. */
export interface RegistryRequest {
  method: string;
  /** The path and query, as in the request line. */
  url: string;
  status: number;
  /** Milliseconds since the epoch, when it arrived. */
  at: number;
}

/** Pure: what a request to an OCI registry (or its token realm, `/token`) asks for, and of which repository. */
export function classifyRegistryRequest(method: string, url: string): { kind: RegistryRequestKind; repository?: string } {
  const path = url.split('?')[0]!;
  if (path === '/token') return { kind: 'token' };
  const list = /^\/v2\/(.+)\/tags\/list$/.exec(path);
  if (list && method === 'GET') return { kind: 'list', repository: list[1]! };
  const manifest = /^\/v2\/(.+)\/manifests\/[^/]+$/.exec(path);
  if (manifest && (method === 'HEAD' || method === 'GET')) return { kind: 'digest', repository: manifest[1]! };
  return { kind: 'other' };
}

export interface RegistryTally {
  /** Requests answered (anything but a 401), by kind. */
  answered: Record<RegistryRequestKind, number>;
  /** Requests answered 401 (a challenge: the client then fetches a token and asks again). */
  challenged: number;
  /** Tag lists answered, per repository. */
  listsByRepository: Record<string, number>;
  /** Digest requests answered, per repository. */
  digestsByRepository: Record<string, number>;
}

/** Pure: the requests of a window counted by kind and repository; a 401 is counted apart, not as the list or digest it refused. */
export function tallyRegistryRequests(requests: readonly RegistryRequest[]): RegistryTally {
  const tally: RegistryTally = { answered: { list: 0, digest: 0, token: 0, other: 0 }, challenged: 0, listsByRepository: {}, digestsByRepository: {} };
  for (const request of requests) {
    if (request.status === 401) {
      tally.challenged++;
      continue;
    }
    const { kind, repository } = classifyRegistryRequest(request.method, request.url);
    tally.answered[kind]++;
    const byRepository = kind === 'list' ? tally.listsByRepository : kind === 'digest' ? tally.digestsByRepository : undefined;
    if (byRepository && repository) byRepository[repository] = (byRepository[repository] ?? 0) + 1;
  }
  return tally;
}

export interface PerRepository {
  total: number;
  /** Fewest and most requests any one of the watched repositories got (0 for one never asked). */
  min: number;
  max: number;
  /** Intervals in the window: window / interval. */
  intervals: number;
  /** total / (repositories × intervals): 1 is one request per repository per interval. */
  perRepositoryPerInterval: number;
  /**
   * The most one repository may get in the window when each is asked at most once per interval: a
   * window can hold one more start than it holds whole intervals.
   */
  allowedMax: number;
}

/** Pure: requests per repository over a window of `windowS` seconds at one request per `intervalS`, for the repositories watched. */
export function perRepository(counts: Readonly<Record<string, number>>, repositories: readonly string[], windowS: number, intervalS: number): PerRepository {
  const each = repositories.map((repository) => counts[repository] ?? 0);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const intervals = windowS / intervalS;
  return {
    total,
    min: each.length ? Math.min(...each) : 0,
    max: each.length ? Math.max(...each) : 0,
    intervals,
    perRepositoryPerInterval: repositories.length && intervals > 0 ? total / (repositories.length * intervals) : 0,
    allowedMax: Math.floor(intervals) + 1,
  };
}

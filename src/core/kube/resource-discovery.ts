import { isNotFound } from './errors.js';
import { seg, type KubeRest } from './rest-client.js';

/** Where a kind lives in the REST API: its plural resource name and whether it is namespaced. */
export interface ResourceInfo {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

interface ApiResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean }>;
}

/** A group version's kinds, as discovery answered at `readAt`; `undefined` kinds: the API server does not serve it. */
interface Entry {
  kinds?: Map<string, ResourceInfo>;
  readAt: number;
}

const DEFAULT_TTL_MS = 5 * 60_000;

/**
 * Maps apiVersion + kind to a REST path, as kubectl's RESTMapper does, from one discovery read per
 * group version, cached for every release in the process. Discovery is read as the controller
 * (every authenticated user may), not as a release's identity.
 */
export class ResourceDiscovery {
  private readonly cache = new Map<string, Entry>();
  private readonly reading = new Map<string, Promise<Entry>>();

  constructor(
    private readonly rest: KubeRest,
    private readonly ttlMs = DEFAULT_TTL_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** undefined when the API server serves no such kind (a CRD not installed, a removed API). */
  async resolve(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    let entry = await this.entry(apiVersion, false);
    // A kind missing from a cached answer may be new (a CRD installed since): ask once more.
    if (!entry.kinds?.has(kind) && this.clock() - entry.readAt > 5_000) entry = await this.entry(apiVersion, true);
    return entry.kinds?.get(kind);
  }

  private async entry(apiVersion: string, refresh: boolean): Promise<Entry> {
    const cached = this.cache.get(apiVersion);
    if (cached && !refresh && this.clock() - cached.readAt < this.ttlMs) return cached;
    const running = this.reading.get(apiVersion);
    if (running) return running;
    const read = this.read(apiVersion).finally(() => this.reading.delete(apiVersion));
    this.reading.set(apiVersion, read);
    const entry = await read;
    this.cache.set(apiVersion, entry);
    return entry;
  }

  private async read(apiVersion: string): Promise<Entry> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion.split('/').map(seg).join('/')}` : `/api/${seg(apiVersion)}`;
    try {
      const list = await this.rest.request<ApiResourceList>({ method: 'GET', path });
      const kinds = new Map<string, ResourceInfo>();
      // Subresources (deployments/scale) share their parent's kind name; only top-level resources count.
      for (const r of list.resources ?? [])
        if (!r.name.includes('/')) kinds.set(r.kind, { apiVersion, kind: r.kind, plural: r.name, namespaced: r.namespaced });
      return { kinds, readAt: this.clock() };
    } catch (error) {
      if (isNotFound(error)) return { readAt: this.clock() };
      throw error;
    }
  }
}

/** The REST path of one object of a resource. */
export function objectPath(info: ResourceInfo, namespace: string | undefined, name: string): string {
  const base = info.apiVersion.includes('/') ? `/apis/${info.apiVersion.split('/').map(seg).join('/')}` : `/api/${seg(info.apiVersion)}`;
  const scope = info.namespaced ? `/namespaces/${seg(namespace ?? 'default')}` : '';
  return `${base}${scope}/${seg(info.plural)}/${seg(name)}`;
}

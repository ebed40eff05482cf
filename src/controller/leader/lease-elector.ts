import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../core/log.js';
import { apiErrorMessage, isConflict, isNotFound } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { heldSpec, leaseStep, microTime, type LeaseSpec } from './lease-decision.js';

interface Lease {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

export interface LeaseElectorOptions {
  rest: KubeRest;
  namespace: string;
  name: string;
  log: Logger;
  /** How long a holder that stopped renewing keeps the Lease (client-go's default: 15 s). */
  leaseDurationMs: number;
  /** How often the Lease is tried or renewed (client-go: 2 s). */
  retryMs: number;
  /** Became the leader: start what runs once per cluster. */
  onStartedLeading: () => Promise<void>;
  /** No longer the leader (lost or handed back): stop it at once. */
  onStoppedLeading: () => Promise<void>;
  identity?: string;
  now?: () => number;
}

/**
 * Leader election through a coordination.k8s.io/v1 Lease, as client-go does it: the holder renews
 * every retry period; a replica that cannot renew within the lease duration stops leading before
 * another may take over (the others wait the full duration after the last renewal they saw).
 * Writes carry the read resourceVersion, so two replicas never both win one round.
 */
export class LeaseElector {
  readonly identity: string;
  private leading = false;
  private lastRenewed = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private round: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly path: string;

  constructor(private readonly opts: LeaseElectorOptions) {
    this.identity = opts.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.now = opts.now ?? Date.now;
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${opts.namespace}/leases`;
  }

  /** A request that hangs must not outlast the lease: the loss would be noticed too late. */
  private get timeoutMs(): number {
    return Math.max(1000, Math.floor(this.opts.leaseDurationMs / 3));
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    const tick = () => {
      this.round = this.tryOnce().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.opts.retryMs);
      });
    };
    tick();
  }

  /** Stops trying; a leader stops its once-only work and hands the Lease back so another takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
    if (!this.leading) return;
    await this.setLeading(false);
    await this.release().catch((error: unknown) =>
      this.opts.log.warn({ error: apiErrorMessage(error) }, 'could not hand the lease back; it expires by itself'),
    );
  }

  private async tryOnce(): Promise<void> {
    try {
      const lease = await this.read();
      const step = leaseStep(lease?.spec, this.identity, this.now());
      if (step.kind === 'follow') {
        if (this.leading) await this.setLeading(false);
        return;
      }
      const spec = heldSpec(step, lease?.spec, this.identity, this.now(), Math.ceil(this.opts.leaseDurationMs / 1000));
      if (step.kind === 'create') await this.opts.rest.request({ method: 'POST', path: this.path, body: this.body(spec), timeoutMs: this.timeoutMs });
      else
        await this.opts.rest.request({
          method: 'PUT',
          path: `${this.path}/${this.opts.name}`,
          body: this.body(spec, lease?.metadata.resourceVersion),
          timeoutMs: this.timeoutMs,
        });
      this.lastRenewed = this.now();
      if (!this.leading && !this.stopped) {
        this.opts.log.info({ lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.identity, step: step.kind }, 'became the leader');
        await this.setLeading(true);
      }
    } catch (error) {
      // 409: another replica wrote first this round. Anything else: the API server is unreachable.
      if (!isConflict(error) && !isNotFound(error)) this.opts.log.warn({ error: apiErrorMessage(error) }, 'leader election: could not read or write the lease');
      // Stop leading before the lease may be taken over: the others wait the whole duration.
      if (this.leading && this.now() - this.lastRenewed > this.opts.leaseDurationMs * (2 / 3)) {
        this.opts.log.warn({ identity: this.identity }, 'could not renew the lease in time; stopping the once-per-cluster work');
        await this.setLeading(false);
      }
    }
  }

  private async setLeading(leading: boolean): Promise<void> {
    if (this.leading === leading) return;
    this.leading = leading;
    if (!leading) this.opts.log.info({ identity: this.identity }, 'no longer the leader');
    await (leading ? this.opts.onStartedLeading() : this.opts.onStoppedLeading()).catch((error: unknown) =>
      this.opts.log.error(
        { error: apiErrorMessage(error) },
        leading ? 'could not start the once-per-cluster work' : 'could not stop the once-per-cluster work',
      ),
    );
  }

  private async read(): Promise<Lease | undefined> {
    try {
      return await this.opts.rest.request<Lease>({ method: 'GET', path: `${this.path}/${this.opts.name}`, timeoutMs: this.timeoutMs });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async release(): Promise<void> {
    const lease = await this.read();
    if (lease?.spec?.holderIdentity !== this.identity) return;
    // As client-go's ReleaseOnCancel: no holder, so the next replica's try takes it over.
    const spec: LeaseSpec = { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(this.now()) };
    await this.opts.rest.request({ method: 'PUT', path: `${this.path}/${this.opts.name}`, body: this.body(spec, lease.metadata.resourceVersion) });
  }

  private body(spec: LeaseSpec, resourceVersion?: string): Lease & { apiVersion: string; kind: string } {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.opts.name, namespace: this.opts.namespace, ...(resourceVersion ? { resourceVersion } : {}) },
      spec,
    };
  }
}

import type { HelmRelease } from '../../api/helmrelease.js';
import { chainDependantsOf, dependencyKeys } from '../reconcile/decide/dependency-decision.js';

const NONE: readonly string[] = [];

/**
 * Who names whom in dependsOn, kept up to date from the watch's events: a watch event then finds
 * the releases to wake in the size of the answer, not by scanning every release (a scan per event
 * made adopting N releases cost N² — 10,000 releases: 10⁸ dependsOn reads). Releases without
 * dependsOn, nearly all of them, take no memory here.
 */
export class DependantsIndex {
  /** A dependency's key → the keys of the releases naming it. */
  private readonly dependants = new Map<string, Set<string>>();
  /** A release's key → the keys it names (only releases that name some). */
  private readonly named = new Map<string, readonly string[]>();

  /** Records what this release names now (an add or an update from the watch). */
  set(key: string, release: HelmRelease): void {
    const next = release.spec?.dependsOn?.length ? dependencyKeys(release) : NONE;
    const previous = this.named.get(key) ?? NONE;
    if (previous.length === 0 && next.length === 0) return;
    this.forget(key, previous);
    for (const dependency of next) {
      const set = this.dependants.get(dependency) ?? new Set<string>();
      set.add(key);
      this.dependants.set(dependency, set);
    }
    if (next.length > 0) this.named.set(key, next);
    else this.named.delete(key);
  }

  delete(key: string): void {
    this.forget(key, this.named.get(key) ?? NONE);
    this.named.delete(key);
  }

  /** The releases that list `key` in dependsOn. */
  dependantsOf(key: string): string[] {
    return [...(this.dependants.get(key) ?? NONE)];
  }

  /** Every release whose dependsOn reaches `key`, directly or through others. */
  chainDependantsOf(key: string): string[] {
    return chainDependantsOf(key, (at) => this.dependants.get(at) ?? NONE);
  }

  private forget(key: string, names: readonly string[]): void {
    for (const dependency of names) {
      const set = this.dependants.get(dependency);
      set?.delete(key);
      if (set?.size === 0) this.dependants.delete(dependency);
    }
  }
}

/** helm's name for a release record Secret (its secrets storage driver): `sh.helm.release.v1.<release>.v<revision>`. */
export function releaseSecretName(releaseName: string, revision: number): string {
  return `sh.helm.release.v1.${releaseName}.v${revision}`;
}

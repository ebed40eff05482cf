import { Type } from '@sinclair/typebox';
import { stringify } from 'yaml';
import { HelmReleaseSpec, HelmReleaseStatus } from './helmrelease.js';
import { celRules, toOpenApi } from './schema-helpers.js';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND, HELMRELEASE_PLURAL } from './vocabulary.js';

/** The HelmRelease CustomResourceDefinition, built from the TypeBox source of truth. */
export function helmReleaseCrd(): Record<string, unknown> {
  const root = Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
      spec: HelmReleaseSpec,
      status: Type.Optional(HelmReleaseStatus),
    },
    celRules({
      // Helm refuses release names over 53 characters; say so at apply time, not at install time.
      rule: 'has(self.spec.releaseName) || self.metadata.name.size() <= 53',
      message: 'metadata.name is longer than the 53 characters a Helm release name allows; set spec.releaseName',
    }),
  );
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${HELMRELEASE_PLURAL}.${API_GROUP}` },
    spec: {
      group: API_GROUP,
      names: {
        kind: HELMRELEASE_KIND,
        listKind: `${HELMRELEASE_KIND}List`,
        plural: HELMRELEASE_PLURAL,
        singular: 'helmrelease',
        shortNames: ['hr', 'hcr'],
        categories: ['helmcrew'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Suspended', type: 'string', jsonPath: '.status.conditions[?(@.type=="Suspended")].status' },
            { name: 'Status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].message', priority: 0 },
            { name: 'Chart', type: 'string', jsonPath: '.spec.chart.name' },
            { name: 'Version', type: 'string', jsonPath: '.status.history[0].chartVersion' },
            { name: 'Revision', type: 'integer', jsonPath: '.status.history[0].revision' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: { openAPIV3Schema: toOpenApi(root) },
        },
      ],
    },
  };
}

export const CRD_FILE = 'helm/helmcrew/crds/helmreleases.helmcrew.dev.yaml';

/** The CRD as it is written under helm/: a header that says where it comes from, then YAML. */
export function renderCrdYaml(): string {
  const header = '# Generated from src/api/helmrelease.ts by `helmcrew gen crds`. Do not edit by hand.\n';
  return header + stringify(helmReleaseCrd(), { lineWidth: 0 });
}

import { Type, type TSchema } from '@sinclair/typebox';
import { stringify } from 'yaml';
import { HelmReleaseSpec } from './helmrelease.js';
import { HelmReleaseStatus } from './helmrelease-status.js';
import { celRules, toOpenApi, type CelRule } from './schema-helpers.js';
import { FreezeSpec, FreezeStatus } from './freeze.js';
import { TeamSpec, TeamStatus } from './team.js';
import { API_GROUP, API_VERSION, FREEZE_KIND, FREEZE_PLURAL, HELMRELEASE_KIND, HELMRELEASE_PLURAL, TEAM_KIND, TEAM_PLURAL } from './vocabulary.js';

/** What differs between helmcrew's CustomResourceDefinitions; everything else is shared. */
interface CrdSource {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: 'Namespaced' | 'Cluster';
  spec: TSchema;
  status: TSchema;
  /** The TypeBox file the CRD comes from, named in the generated file's header. */
  source: string;
  printerColumns: Array<{ name: string; type: string; jsonPath: string; priority?: number; description?: string }>;
  rules?: CelRule[];
}

function buildCrd(source: CrdSource): Record<string, unknown> {
  const root = Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
      spec: source.spec,
      status: Type.Optional(source.status),
    },
    source.rules ? celRules(...source.rules) : {},
  );
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${source.plural}.${API_GROUP}` },
    spec: {
      group: API_GROUP,
      names: {
        kind: source.kind,
        listKind: `${source.kind}List`,
        plural: source.plural,
        singular: source.singular,
        shortNames: source.shortNames,
        categories: ['helmcrew'],
      },
      scope: source.scope,
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: source.printerColumns,
          schema: { openAPIV3Schema: toOpenApi(root) },
        },
      ],
    },
  };
}

const HELMRELEASE: CrdSource = {
  kind: HELMRELEASE_KIND,
  plural: HELMRELEASE_PLURAL,
  singular: 'helmrelease',
  // Not `hr`: Flux's HelmRelease has it, and `kubectl get hr` must not be ambiguous beside Flux.
  shortNames: ['hcr'],
  scope: 'Namespaced',
  spec: HelmReleaseSpec,
  status: HelmReleaseStatus,
  source: 'src/api/helmrelease.ts',
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Suspended', type: 'string', jsonPath: '.status.conditions[?(@.type=="Suspended")].status' },
    { name: 'Frozen', type: 'string', jsonPath: '.status.conditions[?(@.type=="Frozen")].status', priority: 1, description: 'A Freeze holds its helm action.' },
    { name: 'Status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].message', priority: 0 },
    {
      name: 'Cluster',
      type: 'string',
      jsonPath: '.spec.kubeConfig.secretRef.name',
      // With -o wide: a single cluster's users would see an empty column.
      priority: 1,
      description: 'The kubeconfig Secret of the cluster it installs into; empty: this cluster.',
    },
    { name: 'Chart', type: 'string', jsonPath: '.spec.chart.name' },
    { name: 'Version', type: 'string', jsonPath: '.status.history[0].chartVersion' },
    { name: 'Revision', type: 'integer', jsonPath: '.status.history[0].revision' },
    { name: 'Image', type: 'string', jsonPath: '.status.approvedImages', description: 'Images approved changes put in effect (spec.imageUpdates).' },
    {
      name: 'Approved',
      type: 'string',
      jsonPath: '.status.approvedChart.version',
      // With -o wide: Version already shows the chart version deployed; this one says an approval pins it.
      priority: 1,
      description: 'The chart version an approved proposal put in effect over spec.chart.version (status.approvedChart).',
    },
    { name: 'Drifted', type: 'string', jsonPath: '.status.conditions[?(@.type=="Drifted")].status', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  rules: [
    {
      // Helm refuses release names over 53 characters; say so at apply time, not at install time.
      rule: 'has(self.spec.releaseName) || self.metadata.name.size() <= 53',
      message: 'metadata.name is longer than the 53 characters a Helm release name allows; set spec.releaseName',
    },
  ],
};

const TEAM: CrdSource = {
  kind: TEAM_KIND,
  plural: TEAM_PLURAL,
  singular: 'team',
  shortNames: ['hct'],
  scope: 'Cluster',
  spec: TeamSpec,
  status: TeamStatus,
  source: 'src/api/team.ts',
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Every channel delivers.' },
    { name: 'Slack', type: 'string', jsonPath: '.spec.channels[*].slack', description: 'Slack channels.' },
    { name: 'Webhooks', type: 'string', jsonPath: '.spec.channels[*].webhook.secretRef.name', description: 'Webhook channels, by Secret.', priority: 1 },
    { name: 'Namespaces', type: 'string', jsonPath: '.spec.subscriptions[*].namespaces', description: 'Subscribed namespaces.' },
    { name: 'Charts', type: 'string', jsonPath: '.spec.subscriptions[*].charts', description: 'Subscribed charts.' },
    { name: 'Last Delivery', type: 'date', jsonPath: '.status.lastDeliveryAt' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

const FREEZE: CrdSource = {
  kind: FREEZE_KIND,
  plural: FREEZE_PLURAL,
  singular: 'freeze',
  shortNames: ['hcf'],
  scope: 'Cluster',
  spec: FreezeSpec,
  status: FreezeStatus,
  source: 'src/api/freeze.ts',
  printerColumns: [
    { name: 'Reason', type: 'string', jsonPath: '.spec.reason' },
    { name: 'All', type: 'boolean', jsonPath: '.spec.scope.all', description: 'Holds every HelmRelease.' },
    { name: 'Teams', type: 'string', jsonPath: '.spec.scope.teams' },
    { name: 'Namespaces', type: 'string', jsonPath: '.spec.scope.namespaces' },
    { name: 'Charts', type: 'string', jsonPath: '.spec.scope.charts' },
    { name: 'Until', type: 'date', jsonPath: '.spec.until', description: 'When it ends by itself.' },
    { name: 'Windows', type: 'string', jsonPath: '.spec.windows[*].schedule', priority: 1 },
    { name: 'Set By', type: 'string', jsonPath: '.spec.setBy' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

export interface CrdFile {
  /** Path under the repository where the generated YAML lives. */
  file: string;
  crd: Record<string, unknown>;
  yaml: string;
}

function crdFile(source: CrdSource): CrdFile {
  const crd = buildCrd(source);
  const header = `# Generated from ${source.source} by \`helmcrew crds write\`. Do not edit by hand.\n`;
  return { file: `helm/helmcrew/crds/${source.plural}.${API_GROUP}.yaml`, crd, yaml: header + stringify(crd, { lineWidth: 0 }) };
}

/** Every helmcrew CRD, generated from its TypeBox source: what `crds write` and `crds apply` use. */
export function allCrds(): CrdFile[] {
  return [crdFile(HELMRELEASE), crdFile(TEAM), crdFile(FREEZE)];
}

export function helmReleaseCrd(): Record<string, unknown> {
  return buildCrd(HELMRELEASE);
}

export function teamCrd(): Record<string, unknown> {
  return buildCrd(TEAM);
}

export function freezeCrd(): Record<string, unknown> {
  return buildCrd(FREEZE);
}

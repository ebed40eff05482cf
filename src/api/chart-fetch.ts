import { Type, type Static } from '@sinclair/typebox';
import { celRules, LocalObjectName, StringEnum } from './schema-helpers.js';

/**
 * Flux's source fields that say how a chart is fetched, beyond where from: a proxy
 * (HelmRepository/OCIRepository/GitRepository `proxySecretRef`), which OCI layer is the chart
 * (OCIRepository `layerSelector`), and a filter over tags before the semver range
 * (OCIRepository `ref.semverFilter`). docs/api/helmrelease.md#chart-sources-flux-fields.
 */

/** The media type of helm's chart layer: the only layer the helm CLI installs. */
export const HELM_CHART_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';

export const ProxySecretRef = LocalObjectName({
  description:
    "A Secret in this namespace with `address` (http://host:port) and optionally `username` + `password`: every fetch of this source goes through that proxy (CONNECT for https), the controller's host policy still applied to the repository.",
});

export const LayerSelector = Type.Object(
  {
    mediaType: Type.String({ minLength: 1, maxLength: 255, description: `The layer's media type. helm installs only its chart layer, ${HELM_CHART_LAYER}.` }),
    operation: Type.Optional(
      StringEnum(['extract', 'copy'] as const, { description: "extract (default) or copy: helm takes the chart layer's archive either way." }),
    ),
  },
  {
    description: "oci:// only (Flux's OCIRepository layerSelector): which layer is the chart. Only helm's chart layer can be installed.",
    ...celRules({
      rule: `self.mediaType == '${HELM_CHART_LAYER}'`,
      message: `helm installs only the chart layer (${HELM_CHART_LAYER}); a release cannot be made of another layer`,
      fieldPath: '.mediaType',
    }),
  },
);

export const SemverFilter = Type.String({
  minLength: 1,
  maxLength: 250,
  description:
    "A regular expression the repository's versions must match before the semver range picks one (Flux's OCIRepository ref.semverFilter), e.g. '.*-rc.*'.",
});

export type LayerSelector = Static<typeof LayerSelector>;

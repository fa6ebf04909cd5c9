import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { defineResource } from '@tosdk/core';
import type { CustomResource } from '@tosdk/core';

/**
 * The schemas of `WebPage` v1: the one source of the TypeScript types below and of the CRD in
 * `deploy/webpage-crd.yaml` (`tosdk generate crds`; a later version is another `defineResource` of
 * the same kind with its own schemas, `storage` on exactly one of them).
 */
export const WebPageV1Schema = {
  description:
    'A web page served by nginx; the operator keeps a ConfigMap, a Deployment, a Service and (when exposed) an Ingress for it.',
  spec: Type.Object({
    html: Type.String({
      minLength: 1,
      maxLength: 524288,
      description:
        'The page, served as index.html. Blank (whitespace only) pages are rejected by the operator with an error status.',
    }),
    exposed: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Whether an Ingress makes the page reachable from outside the cluster.',
      }),
    ),
  }),
  status: Type.Object({
    configMapName: Type.Optional(Type.String({ description: 'The ConfigMap holding the page.' })),
    observedGeneration: Type.Optional(
      Type.Integer({ format: 'int64', description: 'The generation of the spec this status describes.' }),
    ),
    ready: Type.Optional(
      Type.Boolean({ description: 'Whether the nginx Deployment has all its replicas ready.' }),
    ),
    errorMessage: Type.Optional(
      Type.String({ description: 'Why the last reconciliation failed; absent when it succeeded.' }),
    ),
  }),
};

/** What a user asks for: the page (required, not blank) and whether it is reachable from outside the cluster (default false). */
export type WebPageSpec = Static<typeof WebPageV1Schema.spec>;

/** What the operator reports. */
export type WebPageStatus = Static<typeof WebPageV1Schema.status>;

/** A `WebPage` object (`sample.tosdk.io/v1`). */
export type WebPage = CustomResource<WebPageSpec, WebPageStatus>;

/** The `WebPage` kind: group `sample.tosdk.io`, version `v1`, namespaced, plural `webpages`, with its CRD data. */
export const WebPage = defineResource({
  group: 'sample.tosdk.io',
  version: 'v1',
  kind: 'WebPage',
  storage: true,
  shortNames: ['wp'],
  schema: WebPageV1Schema,
  printerColumns: [
    { name: 'Exposed', type: 'boolean', jsonPath: '.spec.exposed' },
    { name: 'ConfigMap', type: 'string', jsonPath: '.status.configMapName' },
    { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
    { name: 'Error', type: 'string', jsonPath: '.status.errorMessage', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});

/** The CRD manifest of {@link WebPage}, generated from it by `tosdk generate crds` (the same file `kubectl apply -f apps/webpage/deploy/` applies). */
export const WEBPAGE_CRD_PATH = fileURLToPath(new URL('../deploy/webpage-crd.yaml', import.meta.url));

/**
 * The schemas of `WebPage` v2: the page moves under `spec.content.html` and `exposed` becomes
 * `spec.exposure` (`ClusterOnly` or `Public`). Served beside v1 (the storage version); the
 * conversion webhook in `webhooks/webpage.conversion.ts` converts between them.
 */
export const WebPageV2Schema = {
  description: WebPageV1Schema.description,
  spec: Type.Object({
    content: Type.Object({
      html: Type.String({ minLength: 1, maxLength: 524288, description: 'The page, served as index.html.' }),
    }),
    exposure: Type.Optional(
      Type.Union([Type.Literal('ClusterOnly'), Type.Literal('Public')], {
        default: 'ClusterOnly',
        description: 'Public: an Ingress makes the page reachable from outside the cluster.',
      }),
    ),
  }),
  status: WebPageV1Schema.status,
};

/** A `WebPage` object at `sample.tosdk.io/v2`. */
export type WebPageV2 = CustomResource<Static<typeof WebPageV2Schema.spec>, WebPageStatus>;

/** The `WebPage` kind at version v2 (served, not stored; converted by the conversion webhook). */
export const WebPageV2 = defineResource({
  group: 'sample.tosdk.io',
  version: 'v2',
  kind: 'WebPage',
  storage: false,
  shortNames: ['wp'],
  schema: WebPageV2Schema,
  printerColumns: [
    { name: 'Exposure', type: 'string', jsonPath: '.spec.exposure' },
    { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});

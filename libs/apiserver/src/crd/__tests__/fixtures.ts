import type { JsonObject } from '../../types.js';
import type { JsonSchemaProps } from '../index.js';

/** One version of a CRD fixture. */
export interface VersionFixture {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema: JsonSchemaProps };
  subresources?: JsonObject;
  additionalPrinterColumns?: unknown[];
  selectableFields?: unknown[];
  [k: string]: unknown;
}

/** A CRD fixture with the fields tests edit. */
export interface CrdFixture {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group?: string;
    scope?: string;
    names: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[] };
    versions: VersionFixture[];
    conversion?: JsonObject;
    preserveUnknownFields?: boolean;
  };
  [k: string]: unknown;
}

/** A valid WebPage CRD; `mutate` edits a deep copy before it is returned. */
export function webPageCrd(mutate?: (crd: CrdFixture) => void): CrdFixture {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'webpages.sample.tosdk.io' },
    spec: {
      group: 'sample.tosdk.io',
      scope: 'Namespaced',
      names: { plural: 'webpages', singular: 'webpage', kind: 'WebPage', shortNames: ['wp'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          selectableFields: [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.replicas' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'A web page served by nginx.',
              properties: {
                spec: {
                  type: 'object',
                  description: 'What the page shows.',
                  required: ['html'],
                  properties: {
                    html: { type: 'string', description: 'The page body.' },
                    replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, default: 1 },
                    color: { type: 'string', enum: ['red', 'green', 'blue'] },
                    port: { 'x-kubernetes-int-or-string': true },
                    note: { type: 'string', nullable: true },
                    when: { type: 'string', format: 'date-time' },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    conditions: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                      items: {
                        type: 'object',
                        required: ['type', 'status'],
                        properties: { type: { type: 'string' }, status: { type: 'string' } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  } satisfies CrdFixture as CrdFixture;
  const copy = structuredClone(crd);
  mutate?.(copy);
  return copy;
}

/** The first version of a CRD fixture. */
export function v0(crd: CrdFixture): VersionFixture {
  const first = crd.spec.versions[0];
  if (!first) throw new Error('no versions');
  return first;
}

/** The schema node of the first version reached through `properties` by `names` (the root with none). */
export function schemaAt(crd: CrdFixture, ...names: string[]): JsonSchemaProps {
  let s = v0(crd).schema!.openAPIV3Schema;
  for (const n of names) {
    const next = s.properties?.[n];
    if (!next) throw new Error(`no property ${n}`);
    s = next;
  }
  return s;
}

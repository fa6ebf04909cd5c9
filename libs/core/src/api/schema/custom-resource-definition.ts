import type { ResourceType } from '../resource-type.js';
import { InvalidResourceDefinitionError } from './errors.js';
import type {
  ConversionDefinition,
  PrinterColumn,
  ResourceDefinition,
  ScaleSubresourceDefinition,
} from './resource-definition.js';
import { toStructuralSchema } from './structural-schema.js';
import type { JsonSchemaProps } from './structural-schema.js';

/** A generated `apiextensions.k8s.io/v1` CustomResourceDefinition (plain JSON, ready for YAML). */
export interface GeneratedCustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: GeneratedCustomResourceDefinitionVersion[];
    conversion?: ConversionDefinition;
  };
}

/** One entry of a generated CRD's `spec.versions`. */
export interface GeneratedCustomResourceDefinitionVersion {
  /** The version name, e.g. `v1`. */
  name: string;
  /** Whether the API server serves this version. */
  served: boolean;
  /** Whether objects are stored at this version (exactly one version is). */
  storage: boolean;
  /** Set when the version is deprecated. */
  deprecated?: boolean;
  /** The warning clients get for a deprecated version (the API server's default when absent). */
  deprecationWarning?: string;
  /** The structural schema of the version. */
  schema: { openAPIV3Schema: JsonSchemaProps };
  /** The status (`{}`) and scale subresources, when enabled. */
  subresources?: { status?: Record<string, never>; scale?: ScaleSubresourceDefinition };
  /** Columns `kubectl get` shows. */
  additionalPrinterColumns?: PrinterColumn[];
}

const sameList = (a: string[] | undefined, b: string[] | undefined) =>
  JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/**
 * The CRDs of the given kinds: versions of one group and kind make one CRD. Only kinds declared with
 * a schema (`defineResource({ ..., schema })`) are included; others are skipped.
 *
 * ```ts
 * const [crd] = customResourceDefinitions([WebPage]);
 * ```
 *
 * @throws InvalidResourceDefinitionError naming the CRD and field when Kubernetes would reject the
 * result: a schema that is not structural, not exactly one storage version, versions that disagree on
 * scope or names, a version declared twice.
 */
export function customResourceDefinitions(
  types: readonly ResourceType[],
): GeneratedCustomResourceDefinition[] {
  const byCrd = new Map<string, Array<ResourceType & { definition: ResourceDefinition }>>();
  for (const type of types) {
    if (!type.definition) continue;
    const name = `${type.plural}.${type.group}`;
    const list = byCrd.get(name) ?? [];
    if (!list.some((t) => t === type)) list.push(type as ResourceType & { definition: ResourceDefinition });
    byCrd.set(name, list);
  }
  return [...byCrd.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, versions]) => buildCrd(name, versions));
}

function buildCrd(
  name: string,
  types: Array<ResourceType & { definition: ResourceDefinition }>,
): GeneratedCustomResourceDefinition {
  const fail = (field: string, message: string): never => {
    throw new InvalidResourceDefinitionError(name, field, message);
  };
  const first = types[0];
  const names = first.definition.names;
  const seen = new Set<string>();
  types.forEach((t, i) => {
    if (seen.has(t.version))
      fail(`spec.versions[${i}].name`, `version ${t.version} of ${t.kind} is declared twice`);
    seen.add(t.version);
    if (t.kind !== first.kind) {
      fail(
        'spec.names.kind',
        `versions ${first.version} and ${t.version} name different kinds (${first.kind}, ${t.kind})`,
      );
    }
    if (t.namespaced !== first.namespaced) {
      fail(
        'spec.scope',
        `versions ${first.version} and ${t.version} declare different scopes; give every version the same scope`,
      );
    }
    const n = t.definition.names;
    if (
      (n.singular ?? '') !== (names.singular ?? '') ||
      !sameList(n.shortNames, names.shortNames) ||
      !sameList(n.categories, names.categories) ||
      JSON.stringify(n.conversion) !== JSON.stringify(names.conversion)
    ) {
      fail(
        'spec.names',
        `versions ${first.version} and ${t.version} declare different singular, shortNames, categories or conversion; they are per kind`,
      );
    }
  });
  const storage = types.filter((t) => t.definition.version.storage ?? types.length === 1);
  if (storage.length !== 1) {
    fail(
      'spec.versions[].storage',
      storage.length === 0
        ? `no version of ${first.kind} is the storage version; set storage: true on exactly one of ${types.map((t) => t.version).join(', ')}`
        : `versions ${storage.map((t) => t.version).join(' and ')} of ${first.kind} are both storage versions; set storage: true on exactly one`,
    );
  }
  const versions = types.map((t, i) => buildVersion(t, name, `spec.versions[${i}]`, t === storage[0]));
  if (!versions.some((v) => v.served)) fail('spec.versions[].served', 'at least one version must be served');
  const crdNames: GeneratedCustomResourceDefinition['spec']['names'] = {
    kind: first.kind,
    listKind: `${first.kind}List`,
    plural: first.plural,
    singular: names.singular ?? first.kind.toLowerCase(),
  };
  if (names.shortNames?.length) crdNames.shortNames = [...names.shortNames];
  if (names.categories?.length) crdNames.categories = [...names.categories];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: first.group,
      names: crdNames,
      scope: first.namespaced ? 'Namespaced' : 'Cluster',
      versions,
      ...(names.conversion ? { conversion: structuredClone(names.conversion) } : {}),
    },
  };
}

function buildVersion(
  type: ResourceType & { definition: ResourceDefinition },
  crd: string,
  at: string,
  storage: boolean,
): GeneratedCustomResourceDefinitionVersion {
  const { schema, version } = type.definition;
  const root = `${at}.schema.openAPIV3Schema`;
  const properties: JsonSchemaProps = {
    spec: toStructuralSchema(schema.spec, crd, `${root}.properties.spec`),
  };
  if (schema.status)
    properties['status'] = toStructuralSchema(schema.status, crd, `${root}.properties.status`);
  const openAPIV3Schema: JsonSchemaProps = { type: 'object' };
  if (schema.description) openAPIV3Schema['description'] = schema.description;
  if (schema.specRequired ?? true) openAPIV3Schema['required'] = ['spec'];
  openAPIV3Schema['properties'] = properties;
  if (schema.validations?.length) {
    const checked = toStructuralSchema(
      { type: 'object', 'x-kubernetes-validations': schema.validations },
      crd,
      root,
    );
    openAPIV3Schema['x-kubernetes-validations'] = checked['x-kubernetes-validations'];
  }
  const v: GeneratedCustomResourceDefinitionVersion = {
    name: type.version,
    served: version.served ?? true,
    storage,
    schema: { openAPIV3Schema },
  };
  if (version.deprecated) {
    v.deprecated = true;
    if (typeof version.deprecated === 'string') v.deprecationWarning = version.deprecated;
  }
  const statusSubresource = version.statusSubresource ?? schema.status !== undefined;
  if (statusSubresource && !schema.status) {
    throw new InvalidResourceDefinitionError(
      crd,
      `${at}.subresources.status`,
      'a status subresource needs a status schema',
    );
  }
  if (statusSubresource || version.scale) {
    const subresources: NonNullable<GeneratedCustomResourceDefinitionVersion['subresources']> = {};
    if (statusSubresource) subresources.status = {};
    if (version.scale) subresources.scale = { ...version.scale };
    v.subresources = subresources;
  }
  if (version.printerColumns?.length) {
    v.additionalPrinterColumns = version.printerColumns.map((c, i) => {
      if (!c.jsonPath.startsWith('.')) {
        throw new InvalidResourceDefinitionError(
          crd,
          `${at}.additionalPrinterColumns[${i}].jsonPath`,
          `"${c.jsonPath}" must be a JSON path starting with "." such as .status.ready`,
        );
      }
      return { ...c };
    });
  }
  return v;
}

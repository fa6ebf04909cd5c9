/**
 * Turns a validated CRD into what the server needs per version: names, scope, subresources, the
 * admission pipeline (prune, default, validate), patch semantics, printer columns and selectable fields.
 */
import type { JsonObject, PatchSchema, StatusCause } from '../types.js';
import { CrdError } from './errors.js';
import { CauseReason } from './field-errors.js';
import { fieldValue } from './field-value.js';
import { evaluateRules, unsupportedRules } from './internal/cel/rules.js';
import type { SkippedRule } from './internal/cel/rules.js';
import { applyDefaults, dropNonNullableNulls } from './internal/defaulting.js';
import type { LocatedCause } from './internal/located-cause.js';
import { pruneObject } from './internal/prune.js';
import { unchangedAt } from './internal/ratchet.js';
import { SchemaValidator } from './internal/schema-validator.js';
import { structuralChecks } from './internal/structural-checks.js';
import { arrayAt, isObject, objectAt, stringAt } from './json-util.js';
import { compareKubeVersions } from './kube-version.js';
import { buildPatchSchema } from './patch-schema.js';
import type { PrinterColumn, PrinterColumnType } from './printer-column.js';
import { AGE_COLUMN } from './printer-column.js';
import type { JsonSchemaProps } from './schema-types.js';
import { asSchema } from './schema-types.js';
import { validateCrdDefinition } from './validate-crd.js';

/** The names of a custom resource kind. */
export interface CrdNames {
  /** The resource name in URLs (`webpages`). */
  plural: string;
  /** Defaults to the lower-cased kind. */
  singular: string;
  kind: string;
  /** Defaults to `<kind>List`. */
  listKind: string;
  /** Defaults to none. */
  shortNames: string[];
  /** Defaults to none (`kubectl get all` uses the `all` category). */
  categories: string[];
}

/** The scale subresource's paths (simple JSONPaths such as `.spec.replicas`). */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  /** Defaults to none (the Scale's `status.selector` stays empty). */
  labelSelectorPath?: string;
}

/** Whether admission runs for a create or an update. */
export type AdmitMode = 'create' | 'update';

/** Options of {@link CompiledVersion.admit}. */
export interface AdmitOptions {
  /**
   * The stored object, on update: validation errors on values that did not change are not reported
   * (validation ratcheting, as kube-apiserver does since 1.30). Defaults to none (everything is checked).
   */
  old?: JsonObject;
}

/** One version of a compiled CRD. */
export interface CompiledVersion {
  /** The version name (`v1`). */
  name: string;
  /** Whether the version is served over REST. */
  served: boolean;
  /** Whether objects are stored in this version (exactly one version is). */
  storage: boolean;
  /** True when the version is deprecated. Defaults to absent (false). */
  deprecated?: boolean;
  /** The warning for a deprecated version (the CRD's or Kubernetes' default text). */
  deprecationWarning?: string;
  /** Whether `/status` is a subresource (then main-resource writes ignore status). */
  statusSubresource: boolean;
  /** The scale subresource, when declared. Defaults to absent. */
  scaleSubresource?: ScaleSubresource;
  /** The version's `openAPIV3Schema` as declared (for OpenAPI documents). */
  schema: JsonSchemaProps;
  /**
   * Admits a custom resource of this version, in place and in kube-apiserver's order: prunes unknown
   * fields, applies defaults, drops non-nullable nulls, then validates against the schema. The root's
   * `metadata` is not validated here except `name`/`generateName` constraints of the schema.
   * @returns the causes; empty when `obj` is valid.
   */
  admit(obj: JsonObject, mode: AdmitMode, options?: AdmitOptions): StatusCause[];
  /**
   * Applies this version's defaults to a stored object in place, as kube-apiserver does when it reads
   * objects (a default added to the schema later shows up on read).
   */
  applyDefaults(obj: JsonObject): void;
  /**
   * Decodes a request's object at this version in place, as kube-apiserver's decoder does before a
   * write is converted for storage: prunes unknown fields, applies defaults, drops non-nullable
   * nulls; no validation.
   */
  decode(obj: JsonObject): void;
  /**
   * Coerces an object converted to this version in place, as kube-apiserver's schemaCoercingConverter
   * does after a conversion (strategy None included): prunes unknown fields and drops non-nullable
   * nulls; no defaults, no validation.
   */
  coerce(obj: JsonObject): void;
  /**
   * The fields pruning would drop from `obj` (`spec.foo`, `spec.items[0].bar`), without changing it:
   * what `fieldValidation=Warn` reports as `unknown field "spec.foo"` and `Strict` rejects.
   */
  unknownFields(obj: JsonObject): string[];
  /** List and map semantics for strategic merge patch and server-side apply. */
  patchSchema: PatchSchema;
  /**
   * `x-kubernetes-validations` rules outside the CEL subset this server evaluates (see the README);
   * they are accepted but not enforced. Empty when every rule is enforced.
   */
  unevaluatedRules: SkippedRule[];
  /** The Table columns after Name (the CRD's, or Age when it declares none). */
  printerColumns: PrinterColumn[];
  /** Selectable fields as `spec.color` (without the leading dot). */
  selectableFields: string[];
  /** The string form of `field` in `obj` for field selectors, or undefined when absent. */
  fieldValue(obj: JsonObject, field: string): string | undefined;
}

/** A CRD ready to serve. */
export interface CompiledCrd {
  /** The API group (`sample.tosdk.io`). */
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  /** All versions in declaration order, served or not. */
  versions: CompiledVersion[];
  /** The name of the storage version. */
  storageVersion: string;
  /** The conversion strategy; webhooks are not called by this server. */
  conversion: 'None' | 'Webhook';
}

/** How many compiled CRDs are kept for reuse (by content). */
const CACHE_LIMIT = 256;
const cache = new Map<string, CompiledCrd>();

/**
 * Compiles a CRD (apiextensions.k8s.io/v1). Results are cached by the CRD's name and spec, so compiling
 * the same CRD again is cheap and reuses its compiled validators; treat the result as read-only.
 * @throws CrdError with code `CRD_INVALID` when {@link validateCrdDefinition} finds problems.
 */
export function compileCrd(crd: JsonObject): CompiledCrd {
  const key = JSON.stringify([objectAt(crd, 'metadata').name, crd.spec]);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const compiled = compileUncached(crd);
  cache.set(key, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return compiled;
}

function compileUncached(crd: JsonObject): CompiledCrd {
  const causes = validateCrdDefinition(crd);
  if (causes.length > 0) {
    const name = stringAt(objectAt(crd, 'metadata'), 'name') ?? '';
    throw new CrdError('CRD_INVALID', `CustomResourceDefinition ${JSON.stringify(name)} is invalid`, causes);
  }
  const spec = objectAt(crd, 'spec');
  const rawNames = objectAt(spec, 'names');
  const kind = stringAt(rawNames, 'kind') ?? '';
  const names: CrdNames = {
    plural: stringAt(rawNames, 'plural') ?? '',
    singular: stringAt(rawNames, 'singular') || kind.toLowerCase(),
    kind,
    listKind: stringAt(rawNames, 'listKind') || `${kind}List`,
    shortNames: arrayAt(rawNames, 'shortNames').filter((s): s is string => typeof s === 'string'),
    categories: arrayAt(rawNames, 'categories').filter((s): s is string => typeof s === 'string'),
  };
  const group = stringAt(spec, 'group') ?? '';
  const rawVersions = arrayAt(spec, 'versions').filter(isObject);
  const versions = rawVersions.map((v) => compileVersion(v, group, kind, rawVersions));
  return {
    group,
    names,
    scope: spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
    versions,
    storageVersion: versions.find((v) => v.storage)?.name ?? '',
    conversion: objectAt(spec, 'conversion').strategy === 'Webhook' ? 'Webhook' : 'None',
  };
}

function compileVersion(
  v: JsonObject,
  group: string,
  kind: string,
  all: readonly JsonObject[],
): CompiledVersion {
  const name = stringAt(v, 'name') ?? '';
  const schema = asSchema(objectAt(v, 'schema').openAPIV3Schema) ?? { type: 'object' };
  const subresources = objectAt(v, 'subresources');
  const validator = new SchemaValidator(schema);
  const hasRules = JSON.stringify(schema).includes('"x-kubernetes-validations"');
  const printerColumns = compileColumns(arrayAt(v, 'additionalPrinterColumns'));
  const selectableFields = arrayAt(v, 'selectableFields')
    .map((f) => (isObject(f) ? stringAt(f, 'jsonPath') : undefined))
    .filter((p): p is string => typeof p === 'string')
    .map((p) => p.slice(1));
  const compiled: CompiledVersion = {
    name,
    served: v.served === true,
    storage: v.storage === true,
    statusSubresource: subresources.status !== undefined,
    schema,
    admit(obj, _mode, options) {
      pruneObject(obj, schema, true);
      applyDefaults(obj, schema, true);
      dropNonNullableNulls(obj, schema, true);
      const old = options?.old;
      const reported = (located: LocatedCause[]): StatusCause[] =>
        located
          .filter((l) => !old || l.noRatchet === true || !unchangedAt(l.segments, obj, old, schema))
          .map((l) => l.cause);
      const causes = [...reported(validator.validate(obj)), ...checkStructure(obj, old, schema)];
      if (hasRules) {
        // As kube-apiserver (hasBlockingErr): a wrong type, a missing required field, an unsupported
        // value or a too long string or list keeps the rules from running; ratcheted errors do not.
        if (causes.some((c) => BLOCKING.has(c.reason))) causes.push(RULES_NOT_CHECKED.cause);
        else causes.push(...reported(evaluateRules(obj, schema, old)));
      }
      return causes;
    },
    applyDefaults(obj) {
      applyDefaults(obj, schema, true);
    },
    decode(obj) {
      pruneObject(obj, schema, true);
      applyDefaults(obj, schema, true);
      dropNonNullableNulls(obj, schema, true);
    },
    coerce(obj) {
      pruneObject(obj, schema, true);
      dropNonNullableNulls(obj, schema, true);
    },
    unknownFields(obj) {
      return pruneObject(obj, schema, false);
    },
    patchSchema: buildPatchSchema(schema),
    unevaluatedRules: unsupportedRules(schema),
    printerColumns,
    selectableFields,
    fieldValue,
  };
  if (v.deprecated === true) {
    compiled.deprecated = true;
    compiled.deprecationWarning =
      stringAt(v, 'deprecationWarning') ?? defaultDeprecationWarning(group, name, kind, all);
  }
  if (subresources.scale !== undefined) {
    const scale = objectAt(subresources, 'scale');
    compiled.scaleSubresource = {
      specReplicasPath: stringAt(scale, 'specReplicasPath') ?? '',
      statusReplicasPath: stringAt(scale, 'statusReplicasPath') ?? '',
    };
    const selector = stringAt(scale, 'labelSelectorPath');
    if (selector) compiled.scaleSubresource.labelSelectorPath = selector;
  }
  return compiled;
}

/**
 * The list-type and embedded-resource checks, as kube-apiserver's strategy makes them: embedded
 * resources are checked on update as on create (not ratcheted), and the duplicates of set and map
 * lists are reported only when the old object has none (all or nothing, not per value).
 */
function checkStructure(
  obj: JsonObject,
  old: JsonObject | undefined,
  schema: JsonSchemaProps,
): StatusCause[] {
  const isDuplicate = (l: LocatedCause): boolean => l.cause.reason === CauseReason.Duplicate;
  const found = structuralChecks(obj, schema);
  const embedded = found.filter((l) => !isDuplicate(l)).map((l) => l.cause);
  if (old && structuralChecks(old, schema).some(isDuplicate)) return embedded;
  return [...embedded, ...found.filter(isDuplicate).map((l) => l.cause)];
}

/** The schema errors that keep CEL rules from running (kube-apiserver's hasBlockingErr). */
const BLOCKING: ReadonlySet<string | undefined> = new Set([
  CauseReason.TypeInvalid,
  CauseReason.NotSupported,
  CauseReason.Required,
  CauseReason.TooLong,
  CauseReason.TooMany,
]);

const RULES_NOT_CHECKED: LocatedCause = {
  cause: {
    reason: CauseReason.Invalid,
    field: '',
    message:
      'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  },
  segments: [],
};

/**
 * `<group>/<version> <Kind> is deprecated`, naming the preferred served, non-deprecated version that
 * ranks above the deprecated one, if any (kube-apiserver's defaultDeprecationWarning never points back
 * to an older version).
 */
function defaultDeprecationWarning(
  group: string,
  name: string,
  kind: string,
  all: readonly JsonObject[],
): string {
  const text = `${group}/${name} ${kind} is deprecated`;
  const replacement = all
    .filter((x) => x.served === true && x.deprecated !== true)
    .map((x) => stringAt(x, 'name') ?? '')
    .filter((n) => n !== '' && compareKubeVersions(n, name) < 0)
    .sort(compareKubeVersions)[0];
  return replacement ? `${text}; use ${group}/${replacement} ${kind}` : text;
}

function compileColumns(raw: unknown[]): PrinterColumn[] {
  if (raw.length === 0) return [{ ...AGE_COLUMN }];
  return raw.filter(isObject).map((c) => {
    const col: PrinterColumn = {
      name: stringAt(c, 'name') ?? '',
      type: (stringAt(c, 'type') ?? 'string') as PrinterColumnType,
      jsonPath: stringAt(c, 'jsonPath') ?? '',
      priority: typeof c.priority === 'number' ? c.priority : 0,
    };
    const description = stringAt(c, 'description');
    if (description) col.description = description;
    const format = stringAt(c, 'format');
    if (format) col.format = format;
    return col;
  });
}

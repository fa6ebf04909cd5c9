import type { PrinterColumn } from '../../crd/index.js';
import type { JsonObject, PatchSchema, StatusCause } from '../../types.js';

/** A column of Table output. */
export interface TableColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  /** Computes the cell from an object (built-ins). */
  value: (obj: JsonObject) => unknown;
}

/** One served version of a resource. */
export interface ResourceVersion {
  name: string;
  served: boolean;
  storage: boolean;
  statusSubresource: boolean;
  /** Schema admission of a custom resource (prune, default, validate); mutates obj. */
  admit?: (obj: JsonObject, mode: 'create' | 'update', old?: JsonObject) => StatusCause[];
  /** A custom resource's fields this version's schema prunes (`spec.foo`), without changing it. */
  unknownFields?: (obj: JsonObject) => string[];
  /** Decodes a custom resource at this version in place (prune, default; no validation). */
  decode?: (obj: JsonObject) => void;
  /** Coerces a custom resource converted to this version in place (prune, drop non-nullable nulls). */
  coerce?: (obj: JsonObject) => void;
  patchSchema: PatchSchema;
  /** Extra field selectors (beyond metadata.name/namespace) and how to read them. */
  fieldValue?: (obj: JsonObject, field: string) => string | undefined;
  selectableFields: readonly string[];
  /** CRD printer columns (for crd/ buildTable); undefined for built-ins. */
  printerColumns?: readonly PrinterColumn[];
  /** The scale subresource's paths, when the version has one. */
  scale?: ScalePaths;
  /** When set, reads of this (non-storage) version fail with this conversion error. */
  conversionError?: string;
  /** A deprecated CRD version's warning, sent with every request at this version. */
  deprecationWarning?: string;
}

/** Where a scale subresource reads and writes replicas (simple `.a.b` paths). */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
  /**
   * The selector at `labelSelectorPath` is a plain label map (a ReplicationController's
   * `spec.selector`), reported as `k=v` pairs sorted by key; default false.
   */
  selectorIsLabelSet?: boolean;
}

import type { NameRule } from '../storage/names.js';

/** How names of a kind are validated (defined with the name checks). */
export type { NameRule };

/** A resource the server serves: one entry per group and plural. */
export interface ResourceType {
  group: string;
  /** The preferred (first served) version. */
  preferredVersion: string;
  versions: ResourceVersion[];
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  namespaced: boolean;
  verbs: readonly string[];
  nameRule: NameRule;
  /** Create-only virtual resources (access reviews): answered, never stored. */
  virtual?: boolean;
  /** Built-in Table columns after Name (CRDs use printer columns). */
  columns?: readonly TableColumn[];
  /**
   * false for a built-in whose Table starts with its own columns instead of Name (core/v1 Event,
   * whose Name is a wide column among `columns`); default true.
   */
  nameColumn?: false;
  /** Set for resources served from a CRD: the CRD's name. */
  crdName?: string;
  /**
   * Set once a CRD's schemas changed while it was served: objects stored before may lack a default
   * or carry a field the schema no longer has, so every read decodes them with the storage version
   * (prune, default), as kube-apiserver's storage codec does on every read.
   */
  decodeOnRead?: boolean;
  /** Whether strategic merge patch is allowed (built-ins only). */
  strategicMerge: boolean;
  /**
   * Set for a CRD whose `status.storedVersions` lists a version besides the storage version: objects
   * written before the storage version moved may still be stored at it, and reads convert them.
   */
  storedAtOtherVersions?: boolean;
  /** Set for a CRD converted by its conversion webhook (`spec.conversion.strategy: Webhook`). */
  convertedByWebhook?: boolean;
}

/** The storage key of a resource: `group/plural`. */
export function storageKey(rt: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${rt.group}/${rt.plural}`;
}

/** `apiVersion` for a group and version (`v1` for core). */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/**
 * Whether objects read at `version` get their apiVersion rewritten to it (kube-apiserver's conversion
 * without a webhook): at a version other than the storage version, and at the storage version of a
 * CRD that may hold objects stored at an older one, unless the CRD is converted by webhook: there the
 * objects keep the apiVersion they were stored at, for the admission layer to convert them by webhook.
 */
export function rewritesApiVersion(rt: ResourceType, version: ResourceVersion): boolean {
  return !version.storage || (rt.storedAtOtherVersions === true && rt.convertedByWebhook !== true);
}

/** The storage version's name. */
export function storageVersion(rt: ResourceType): ResourceVersion {
  return rt.versions.find((v) => v.storage) ?? rt.versions[0];
}

/**
 * How a stored custom resource is read at `version`, in place: decoded with the storage version once
 * the CRD's schemas changed while served ({@link ResourceType.decodeOnRead}), and coerced by
 * `version`'s schema when that is not the storage version (kube's schemaCoercingConverter);
 * undefined when reading changes nothing (the stored JSON serves as it is).
 */
export function readDecoder(
  rt: ResourceType,
  version: ResourceVersion,
): ((obj: JsonObject) => void) | undefined {
  const decode = rt.decodeOnRead === true ? storageVersion(rt).decode : undefined;
  const coerce = version.storage ? undefined : version.coerce;
  if (decode === undefined) return coerce;
  if (coerce === undefined) return decode;
  return (obj) => {
    decode(obj);
    coerce(obj);
  };
}

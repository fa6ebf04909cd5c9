/**
 * The contracts of the patch/, crd/, selectors/ and rbac/ modules, loaded once at server start.
 *
 * The engine calls them only through this file. A module that is missing (not yet built) makes
 * the features that need it answer 500 with a clear message instead of breaking the server.
 */
import type { JsonObject, ManagedFieldsEntry, PatchSchema, StatusCause } from '../types.js';
import { errors } from './errors.js';

export interface PatchModule {
  applyJsonPatch(target: JsonObject, patch: unknown): JsonObject;
  applyMergePatch(target: JsonObject, patch: unknown): JsonObject;
  applyStrategicMergePatch(target: JsonObject, patch: unknown, schema: PatchSchema): JsonObject;
  builtinPatchSchema(group: string, version: string, kind: string): PatchSchema;
  trackUpdate(args: {
    before: JsonObject | undefined;
    after: JsonObject;
    manager: string;
    apiVersion: string;
    subresource?: string;
    now: string;
    schema: PatchSchema;
  }): ManagedFieldsEntry[];
  serverSideApply(args: {
    live: JsonObject | undefined;
    applied: JsonObject;
    manager: string;
    force: boolean;
    apiVersion: string;
    subresource?: string;
    now: string;
    schema: PatchSchema;
  }): JsonObject;
}

export interface CompiledVersion {
  name: string;
  served: boolean;
  storage: boolean;
  statusSubresource: boolean;
  admit(obj: JsonObject, mode: 'create' | 'update'): StatusCause[];
  patchSchema: PatchSchema;
  printerColumns: unknown;
  selectableFields: string[];
  fieldValue(obj: JsonObject, field: string): string | undefined;
}

export interface CompiledCrd {
  group: string;
  names: {
    plural: string;
    singular: string;
    kind: string;
    listKind: string;
    shortNames: string[];
    categories: string[];
  };
  scope: 'Namespaced' | 'Cluster';
  versions: CompiledVersion[];
  storageVersion: string;
}

export interface CrdModule {
  validateCrd(crd: JsonObject, old?: JsonObject): StatusCause[];
  compileCrd(crd: JsonObject): CompiledCrd;
  buildTable(
    objects: JsonObject[],
    columns: unknown,
    opts: { includeObject: 'None' | 'Metadata' | 'Object' },
  ): JsonObject;
  buildOpenApiV2(crds: CompiledCrd[]): JsonObject;
  buildOpenApiV3(crds: CompiledCrd[]): {
    paths: Record<string, JsonObject>;
    document(gvPath: string): JsonObject | undefined;
  };
  /** CRD status (conditions, acceptedNames, storedVersions); optional in the contract. */
  crdStatus?(crd: JsonObject, now: string, conflict?: { reason: string; message: string }): JsonObject;
  /** A names conflict with other CRDs of the group; optional in the contract. */
  findNameConflict?(
    crd: JsonObject,
    others: readonly JsonObject[],
  ): { reason: string; message: string } | undefined;
  /** Printer columns of built-in kinds; optional in the contract. */
  builtinColumns?(group: string, version: string, kind: string): unknown[];
}

export interface LabelSelector {
  readonly __labelSelector?: never;
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

export interface SelectorsModule {
  parseLabelSelector(s: string): LabelSelector;
  matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean;
  parseFieldSelector(s: string): FieldRequirement[];
}

export interface AuthorizationAttributes {
  user: string;
  groups: string[];
  verb: string;
  apiGroup: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface RbacObjects {
  roles: JsonObject[];
  clusterRoles: JsonObject[];
  roleBindings: JsonObject[];
  clusterRoleBindings: JsonObject[];
}

export interface RbacModule {
  authorize(attrs: AuthorizationAttributes, rbac: RbacObjects): { allowed: boolean; reason: string };
  forbiddenMessage(attrs: AuthorizationAttributes): string;
}

/** The loaded peer modules (each undefined when missing). */
export interface Peers {
  patch: PatchModule | undefined;
  crd: CrdModule | undefined;
  selectors: SelectorsModule | undefined;
  rbac: RbacModule | undefined;
}

let loaded: Promise<Peers> | undefined;

async function tryImport<T>(spec: string): Promise<T | undefined> {
  try {
    return (await import(spec)) as T;
  } catch (err) {
    const code = (err as { code?: string }).code;
    const msg = err instanceof Error ? err.message : '';
    if (code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module/.test(msg)) return undefined;
    throw err;
  }
}

/** Loads the peer modules once. */
export function loadPeers(): Promise<Peers> {
  loaded ??= (async () => {
    const [patch, crd, selectors, rbac] = await Promise.all([
      tryImport<PatchModule>('../patch/index.js'),
      tryImport<CrdModule>('../crd/index.js'),
      tryImport<SelectorsModule>('../selectors/index.js'),
      tryImport<RbacModule>('../rbac/index.js'),
    ]);
    return {
      patch: complete(patch, ['trackUpdate', 'serverSideApply']),
      crd: complete(crd, ['buildTable', 'buildOpenApiV2', 'buildOpenApiV3']),
      selectors,
      rbac,
    };
  })();
  return loaded;
}

/**
 * Replaces functions a peer module does not export yet by ones that answer 500 naming them, so a
 * partly finished module never turns into a TypeError.
 */
function complete<T extends object>(mod: T | undefined, names: string[]): T | undefined {
  if (!mod) return undefined;
  const out = { ...mod } as Record<string, unknown>;
  for (const n of names) {
    if (typeof out[n] !== 'function') {
      out[n] = () => {
        throw errors.internal(`${n} is not available in this build of @tosdk/apiserver`);
      };
      out[`${n}Missing`] = true;
    }
  }
  return out as T;
}

/** Whether a peer function was missing at load (see {@link complete}). */
export function isMissing(mod: object | undefined, name: string): boolean {
  return mod === undefined || (mod as Record<string, unknown>)[`${name}Missing`] === true;
}

/** The module or a 500 naming what is missing. */
export function need<T>(mod: T | undefined, name: string): T {
  if (mod === undefined) throw errors.internal(`the ${name} module of @tosdk/apiserver is not available`);
  return mod;
}

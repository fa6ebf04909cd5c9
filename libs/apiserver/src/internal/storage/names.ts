import { randomBytes } from 'node:crypto';
import type { StatusCause } from '../../types.js';

/** How names of a kind are validated (a DNS subdomain, a DNS label, or a path segment). */
export type NameRule = 'subdomain' | 'label' | 'path';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A random 5-character suffix from Kubernetes' alphabet (no vowels, no look-alike digits). */
export function randomSuffix(): string {
  const bytes = randomBytes(5);
  let s = '';
  for (const b of bytes) s += ALPHABET[b % ALPHABET.length];
  return s;
}

/** The name a generateName produces (prefix cut so the result fits 63 characters). */
export function generatedName(prefix: string): string {
  const max = 63 - 5;
  return (prefix.length > max ? prefix.slice(0, max) : prefix) + randomSuffix();
}

/** Validates a name by the kind's rule; returns causes worded as kube-apiserver does. */
export function validateName(name: string, rule: NameRule, field = 'metadata.name'): StatusCause[] {
  const invalid = (msg: string): StatusCause[] => [
    { reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(name)}: ${msg}` },
  ];
  if (rule === 'path') {
    if (name === '.' || name === '..') return invalid(`may not be '${name}'`);
    if (name.includes('/')) return invalid(`may not contain '/'`);
    if (name.includes('%')) return invalid(`may not contain '%'`);
    return [];
  }
  if (rule === 'label') {
    if (name.length > 63) return invalid('must be no more than 63 characters');
    if (!LABEL.test(name))
      return invalid(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    return [];
  }
  if (name.length > 253) return invalid('must be no more than 253 characters');
  if (!SUBDOMAIN.test(name))
    return invalid(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  return [];
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * Validates a label or annotation key, a finalizer name: a qualified name (`name` or `prefix/name`),
 * worded as apimachinery's IsQualifiedName (its first complaint only).
 */
export function validateKey(k: string, field: string): StatusCause[] {
  const parts = k.split('/');
  const bad = (m: string): StatusCause[] => [
    { reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(k)}: ${m}` },
  ];
  if (parts.length > 2)
    return bad(
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  const [prefix, nm] = parts.length === 2 ? [parts[0], parts[1]] : ['', parts[0]];
  if (parts.length === 2 && (prefix.length === 0 || prefix.length > 253 || !SUBDOMAIN.test(prefix)))
    return bad(
      "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
    );
  if (nm.length === 0 || nm.length > 63 || !QUALIFIED_NAME.test(nm))
    return bad(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  return [];
}

/**
 * Label and annotation keys already found valid (the same few keys come with every write; a key's
 * validity does not depend on where it is used). Bounded: cleared when full.
 */
const validKeys = new Set<string>();

function rememberValidKey(k: string): void {
  if (validKeys.size >= 4096) validKeys.clear();
  validKeys.add(k);
}

/** Validates metadata.labels (keys and values) and annotation keys. */
export function validateLabelsAndAnnotations(meta: Record<string, unknown>): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const which of ['labels', 'annotations'] as const) {
    const m = meta[which];
    if (m === undefined || m === null) continue;
    if (typeof m !== 'object' || Array.isArray(m)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `metadata.${which}`,
        message: 'Invalid value: must be an object',
      });
      continue;
    }
    const entries = m as Record<string, unknown>;
    // keys by for...in (own only): no [key, value] pair allocated per label on every write
    for (const k in entries) {
      if (!Object.hasOwn(entries, k)) continue;
      const v = entries[k];
      if (!validKeys.has(k)) {
        const keyCauses = validateKey(k, `metadata.${which}`);
        if (keyCauses.length > 0) causes.push(...keyCauses);
        else rememberValidKey(k);
      }
      if (typeof v !== 'string') {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `metadata.${which}.${k}`,
          message: 'Invalid value: must be a string',
        });
      } else if (which === 'labels' && (v.length > 63 || !LABEL_VALUE.test(v))) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `metadata.labels`,
          message: `Invalid value: ${JSON.stringify(v)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        });
      }
    }
  }
  return causes;
}

/** The one owner kind kube refuses (apimachinery's BannedOwners): the core v1 Event. */
const BANNED_OWNER = { group: '', version: 'v1', kind: 'Event' };

/** Group and version of an apiVersion as apimachinery's ParseGroupVersion reads it (undefined: refused). */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return undefined;
}

/** A string field of a reference ('' when absent). */
function refString(ref: Record<string, unknown>, key: string): string {
  const v = ref[key];
  return typeof v === 'string' ? v : '';
}

/**
 * One reference as Go's `%#v` prints a metav1.OwnerReference (what kube-apiserver shows as the value of
 * an invalid reference). A set pointer is printed by address in Go; the addresses here are made up.
 */
function goOwnerReference(ref: Record<string, unknown>, address: () => string): string {
  const ptr = (v: unknown): string => (typeof v === 'boolean' ? `(*bool)(${address()})` : '(*bool)(nil)');
  const q = (k: string): string => JSON.stringify(refString(ref, k));
  return `v1.OwnerReference{APIVersion:${q('apiVersion')}, Kind:${q('kind')}, Name:${q('name')}, UID:${q('uid')}, Controller:${ptr(ref.controller)}, BlockOwnerDeletion:${ptr(ref.blockOwnerDeletion)}}`;
}

/** A made-up Go heap address per call, so that two pointers in one message differ as in Go. */
function addresses(): () => string {
  let next = 0xc0000a4e10;
  return () => {
    const a = `0x${next.toString(16)}`;
    next += 0x8;
    return a;
  };
}

/**
 * Validates metadata.ownerReferences as kube-apiserver 1.32 does (apimachinery v0.32
 * `ValidateOwnerReferences`): the fields of every reference are reported on the list's path
 * (`metadata.ownerReferences.uid`, not indexed), an apiVersion that is no `group/version` or `version`
 * reads as an empty version, a core v1 Event cannot be an owner, and each controller reference after the
 * first is refused naming both. Values that are not objects are refused too (kube fails decoding them).
 */
export function validateOwnerReferences(meta: Record<string, unknown>): StatusCause[] {
  const refs = meta.ownerReferences;
  if (refs === undefined || refs === null) return [];
  const listField = 'metadata.ownerReferences';
  if (!Array.isArray(refs))
    return [{ reason: 'FieldValueInvalid', field: listField, message: 'Invalid value: must be a list' }];
  const causes: StatusCause[] = [];
  const invalid = (field: string, message: string): void => {
    causes.push({ reason: 'FieldValueInvalid', field, message });
  };
  const objects = refs.map((r: unknown) =>
    r !== null && typeof r === 'object' && !Array.isArray(r) ? r : {},
  );
  let firstController: string | undefined;
  let listText: string | undefined;
  refs.forEach((r: unknown, i) => {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) {
      invalid(`${listField}[${i}]`, 'Invalid value: must be an object');
      return;
    }
    const ref = r as Record<string, unknown>;
    const apiVersion = refString(ref, 'apiVersion');
    const kind = refString(ref, 'kind');
    const gv = parseGroupVersion(apiVersion) ?? { group: '', version: '' };
    if (gv.version === '')
      invalid(
        `${listField}.apiVersion`,
        `Invalid value: ${JSON.stringify(apiVersion)}: version must not be empty`,
      );
    for (const k of ['kind', 'name', 'uid']) {
      const v = refString(ref, k);
      if (v === '') invalid(`${listField}.${k}`, `Invalid value: "": ${k} must not be empty`);
    }
    if (gv.group === BANNED_OWNER.group && gv.version === BANNED_OWNER.version && kind === BANNED_OWNER.kind)
      invalid(
        listField,
        `Invalid value: ${goOwnerReference(ref, addresses())}: ${gv.group}/${gv.version}, Kind=${kind} is disallowed from being an owner`,
      );
    if (ref.controller === true) {
      const current = `${kind}/${refString(ref, 'name')}`;
      if (firstController === undefined) firstController = current;
      else {
        if (listText === undefined) {
          const address = addresses();
          listText = `[]v1.OwnerReference{${objects.map((o) => goOwnerReference(o as Record<string, unknown>, address)).join(', ')}}`;
        }
        invalid(
          listField,
          `Invalid value: ${listText}: Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
        );
      }
    }
  });
  return causes;
}

/** The fields of a metav1.OwnerReference, in the order kube compares them. */
const OWNER_REFERENCE_FIELDS = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];

/** A reference's identity as kube's Semantic.DeepEqual sees the decoded struct (unknown fields dropped). */
function ownerReferenceKey(ref: Record<string, unknown>): string {
  return JSON.stringify(OWNER_REFERENCE_FIELDS.map((k) => (ref[k] === undefined ? null : ref[k])));
}

/**
 * Drops from metadata.ownerReferences every reference equal in all its fields to an earlier one with its
 * uid, as kube-apiserver's handlers do (k8s.io/apiserver endpoints/handlers/rest.go
 * dedupOwnerReferencesAndAddWarning), and returns the warning to give (undefined when none was dropped).
 * `afterAdmission` words it as the patch handler does (the check after mutating admission).
 */
export function dedupOwnerReferences(
  meta: Record<string, unknown>,
  afterAdmission: boolean,
): string | undefined {
  const refs = meta.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return undefined;
  const kept: unknown[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const r of refs) {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) {
      kept.push(r);
      continue;
    }
    const ref = r as Record<string, unknown>;
    const key = ownerReferenceKey(ref);
    if (seen.has(key)) duplicates.push(typeof ref.uid === 'string' ? ref.uid : '');
    else {
      seen.add(key);
      kept.push(r);
    }
  }
  if (duplicates.length === 0) return undefined;
  meta.ownerReferences = kept;
  const after = afterAdmission ? ' after mutating admission happens' : '';
  return `.metadata.ownerReferences contains duplicate entries${after}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${duplicates.join(', ')}`;
}

/** The finalizer names that need no domain (kube's standardFinalizers). */
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * kube's validateKubeFinalizerName (pkg/apis/core/validation): a finalizer without '/' must be a
 * standard one.
 */
export function kubeFinalizerNameCauses(name: string, field: string): StatusCause[] {
  if (name.includes('/') || STANDARD_FINALIZERS.has(name)) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${JSON.stringify(name)}: name is neither a standard finalizer name nor is it fully qualified`,
    },
  ];
}

/** API groups whose kinds kube validates with core's ValidateObjectMeta (finalizer names checked). */
const CORE_META_GROUPS = new Set(['', 'apps', 'batch', 'networking.k8s.io', 'rbac.authorization.k8s.io']);

/**
 * The checks core's ValidateObjectMeta and ValidateObjectMetaUpdate add to apimachinery's for the
 * built-in kinds of core, apps, batch, networking and rbac: `metadata.finalizers[i]` without a domain
 * must be a standard finalizer. Other kinds (admission, coordination, CRDs, custom resources) skip it.
 */
export function validateKubeFinalizerNames(
  rt: { group: string; crdName?: string },
  meta: Record<string, unknown>,
): StatusCause[] {
  if (rt.crdName !== undefined || !CORE_META_GROUPS.has(rt.group)) return [];
  const finalizers = meta.finalizers;
  if (!Array.isArray(finalizers)) return [];
  const causes: StatusCause[] = [];
  finalizers.forEach((f: unknown, i) => {
    if (typeof f === 'string') causes.push(...kubeFinalizerNameCauses(f, `metadata.finalizers[${i}]`));
  });
  return causes;
}

/**
 * The warnings kube-apiserver gives a write of a custom resource that adds finalizers without a domain
 * (apiextensions' generateWarningsFromObj): one per added name, sorted.
 */
export function customResourceFinalizerWarnings(
  meta: Record<string, unknown>,
  oldMeta?: Record<string, unknown>,
): string[] {
  const names = (m: Record<string, unknown> | undefined): string[] =>
    Array.isArray(m?.finalizers) ? m.finalizers.filter((f): f is string => typeof f === 'string') : [];
  const before = new Set(names(oldMeta));
  const added = [...new Set(names(meta))].filter((f) => !before.has(f)).sort();
  const warnings: string[] = [];
  for (const f of added) {
    if (f.includes('/') || STANDARD_FINALIZERS.has(f)) continue;
    const which = f.includes('.')
      ? 'a domain-qualified finalizer name including a path (/)'
      : 'a domain-qualified finalizer name';
    warnings.push(
      `metadata.finalizers: ${JSON.stringify(f)}: prefer ${which} to avoid accidental conflicts with other finalizer writers`,
    );
  }
  return warnings;
}

/**
 * Validates `metadata.finalizers` as kube-apiserver's ValidateObjectMeta does on every kind
 * (apimachinery `ValidateFinalizers`): each name is a qualified name (`example.com/name` or `name`),
 * and `orphan` and `foregroundDeletion` are not both set.
 */
export function validateFinalizers(meta: Record<string, unknown>): StatusCause[] {
  const finalizers = meta.finalizers;
  if (!Array.isArray(finalizers) || finalizers.length === 0) return [];
  const causes: StatusCause[] = [];
  const field = 'metadata.finalizers';
  for (const f of finalizers) {
    if (typeof f !== 'string') {
      causes.push({ reason: 'FieldValueInvalid', field, message: 'Invalid value: must be a string' });
      continue;
    }
    if (f === '')
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: 'Invalid value: "": name part must be non-empty',
      });
    if (!validKeys.has(f)) {
      const keyCauses = validateKey(f, field);
      if (keyCauses.length > 0) causes.push(...keyCauses);
      else rememberValidKey(f);
    }
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion'))
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${JSON.stringify(finalizers)}: finalizer orphan and foregroundDeletion cannot be both set`,
    });
  return causes;
}

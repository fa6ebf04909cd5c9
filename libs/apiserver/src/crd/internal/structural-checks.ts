/**
 * Checks kube-apiserver makes beyond the OpenAPI keywords: unique items of `set` lists, unique keys of
 * `map` lists, and `apiVersion`/`kind` of embedded resources (present, a group/version, a kind that
 * lower-cased is a DNS-1035 label) and their metadata (as ObjectMeta).
 */
import type { JsonObject } from '../../types.js';
import { CauseReason, invalid, required } from '../field-errors.js';
import { validateLabelsAndAnnotations, validateName } from '../../internal/storage/names.js';
import { isObject } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema } from '../schema-types.js';
import type { LocatedCause } from './located-cause.js';
import { renderPath } from './schema-validator.js';

/** Runs the checks over `obj` and returns the causes. */
export function structuralChecks(obj: JsonObject, schema: JsonSchemaProps): LocatedCause[] {
  const out: LocatedCause[] = [];
  walk(obj, schema, [], true, out);
  return out;
}

function walk(
  value: unknown,
  s: JsonSchemaProps,
  segs: (string | number)[],
  root: boolean,
  out: LocatedCause[],
): void {
  if (Array.isArray(value)) {
    checkList(value, s, segs, out);
    const items = asSchema(s.items);
    if (items) value.forEach((v, i) => walk(v, items, [...segs, i], false, out));
    return;
  }
  if (!isObject(value)) return;
  if (!root && s['x-kubernetes-embedded-resource'] === true) checkEmbedded(value, segs, out);
  const mapValues = mapValueSchema(s);
  for (const [k, v] of Object.entries(value)) {
    if (root && k === 'metadata') continue;
    const sub = asSchema(s.properties?.[k]) ?? mapValues;
    if (sub) walk(v, sub, [...segs, k], false, out);
  }
}

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** kube-apiserver's checks of an embedded resource's type meta (objectmeta validateEmbeddedResource). */
function checkEmbedded(value: JsonObject, segs: (string | number)[], out: LocatedCause[]): void {
  const push = (cause: LocatedCause['cause']): void => void out.push({ cause, segments: segs });
  for (const k of ['apiVersion', 'kind']) {
    const field = renderPath([...segs, k]);
    const v = value[k];
    if (!(k in value)) push(required(field, 'must not be empty'));
    else if (typeof v !== 'string') push(invalid(field, v, 'must be a string'));
    else if (v === '') push(invalid(field, v, 'must not be empty'));
    else if (k === 'apiVersion' && v.split('/').length > 2)
      push(invalid(field, v, `unexpected GroupVersion string: ${v}`));
    else if (k === 'kind') {
      const lower = v.toLowerCase();
      const errs: string[] = [];
      if (lower.length > 63) errs.push('must be no more than 63 characters');
      if (!DNS1035.test(lower))
        errs.push(
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        );
      if (errs.length > 0)
        push(invalid(field, v, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
    }
  }
  if (isObject(value.metadata))
    for (const cause of embeddedMetadataCauses(value.metadata, renderPath(segs))) push(cause);
}

/**
 * ValidateObjectMeta of an embedded resource's metadata as kube-apiserver runs it (the name and
 * generateName as path segments, the namespace as a DNS label, label and annotation keys and values).
 */
function embeddedMetadataCauses(meta: JsonObject, at: string): LocatedCause['cause'][] {
  const prefix = `${at}.metadata`;
  const causes: LocatedCause['cause'][] = [];
  if (typeof meta.generateName === 'string' && meta.generateName !== '')
    for (const bad of ['/', '%'])
      if (meta.generateName.includes(bad))
        causes.push(invalid(`${prefix}.generateName`, meta.generateName, `may not contain '${bad}'`));
  if (typeof meta.name === 'string' && meta.name !== '')
    causes.push(...validateName(meta.name, 'path', `${prefix}.name`));
  if (typeof meta.namespace === 'string' && meta.namespace !== '')
    causes.push(...validateName(meta.namespace, 'label', `${prefix}.namespace`));
  for (const c of validateLabelsAndAnnotations(meta))
    causes.push({ ...c, field: prefix + c.field.slice('metadata'.length) });
  return causes;
}

function checkList(
  list: unknown[],
  s: JsonSchemaProps,
  segs: (string | number)[],
  out: LocatedCause[],
): void {
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') reportRepeats(list, segs, out);
  else if (type === 'map') {
    // a key leaves out the key fields an item does not set (so an unset key and a null key differ)
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const keyOf = (v: unknown): JsonObject => {
      const key: JsonObject = {};
      if (isObject(v)) for (const k of keys) if (k in v) key[k] = v[k] ?? null;
      return key;
    };
    reportRepeats(list.map(keyOf), segs, out);
  }
}

/**
 * kube-apiserver's uniqueness check (listtype validation): each repeated value is reported once, at
 * its second appearance, printed as Go's %#v prints it.
 */
function reportRepeats(values: readonly unknown[], segs: (string | number)[], out: LocatedCause[]): void {
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    const id = JSON.stringify(canonical(v));
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) {
      const at = [...segs, i];
      out.push({
        cause: {
          reason: CauseReason.Duplicate,
          message: `Duplicate value: ${goSyntax(v)}`,
          field: renderPath(at),
        },
        segments: at,
      });
    }
  });
}

/** A JSON value with its object keys sorted, so equal values stringify alike. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k])]),
    );
  return v;
}

/** A decoded JSON value as Go's `%#v` prints it (`map[string]interface {}{"port":80, "protocol":"TCP"}`). */
function goSyntax(v: unknown, nested = false): string {
  if (v === null || v === undefined) return nested ? 'interface {}(nil)' : 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSyntax(x, true)).join(', ')}}`;
  if (isObject(v))
    return `map[string]interface {}{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax(v[k], true)}`)
      .join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * Structural defaulting: `default` values are set for absent fields of objects that exist (never for
 * absent parents), recursively into the defaults themselves; `null` in a non-nullable field with a
 * default becomes the default, and without a default the `null` is dropped.
 */
import { cloneJson, isObject } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema } from '../schema-types.js';

/** Applies the schema's defaults to `value` in place. `root` skips the root's `metadata`. */
export function applyDefaults(value: unknown, schema: JsonSchemaProps, root: boolean): void {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    if (!items) return;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null && items.default !== undefined && items.nullable !== true)
        value[i] = cloneJson(items.default);
      applyDefaults(value[i], items, false);
    }
    return;
  }
  if (!isObject(value)) return;
  for (const [k, raw] of Object.entries(schema.properties ?? {})) {
    const sub = asSchema(raw);
    if (!sub || (root && k === 'metadata') || sub.default === undefined) continue;
    if (!(k in value) || (value[k] === null && sub.nullable !== true)) value[k] = cloneJson(sub.default);
  }
  const mapValues = mapValueSchema(schema);
  for (const k of Object.keys(value)) {
    if (root && k === 'metadata') continue;
    const sub = asSchema(schema.properties?.[k]) ?? mapValues;
    if (!sub) continue;
    if (value[k] === null && sub.default !== undefined && sub.nullable !== true)
      value[k] = cloneJson(sub.default);
    applyDefaults(value[k], sub, false);
  }
}

/** Drops `null` values of non-nullable fields without a default (after defaulting), as kube-apiserver does. */
export function dropNonNullableNulls(value: unknown, schema: JsonSchemaProps, root: boolean): void {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    if (items) for (const item of value) dropNonNullableNulls(item, items, false);
    return;
  }
  if (!isObject(value)) return;
  const mapValues = mapValueSchema(schema);
  for (const k of Object.keys(value)) {
    if (root && k === 'metadata') continue;
    const sub = asSchema(schema.properties?.[k]) ?? mapValues;
    if (!sub) continue;
    if (value[k] === null) {
      if (sub.nullable !== true && sub.default === undefined) delete value[k];
    } else dropNonNullableNulls(value[k], sub, false);
  }
}

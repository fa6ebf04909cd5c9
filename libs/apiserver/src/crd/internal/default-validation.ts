/**
 * Checks the `default` values of a CRD version's schema as kube-apiserver does when the CRD is created:
 * a default must survive pruning unchanged and must validate against its own schema, including the
 * `x-kubernetes-validations` rules of the schema and of the schemas inside it.
 */
import type { StatusCause } from '../../types.js';
import { child, invalid, key } from '../field-errors.js';
import { cloneJson, jsonEqual } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema } from '../schema-types.js';
import { evaluateRules } from './cel/rules.js';
import { applyDefaults } from './defaulting.js';
import { pruneObject } from './prune.js';
import { SchemaValidator } from './schema-validator.js';

/** Validates every `default` under `schema` (found at `path`); returns the causes. */
export function validateDefaults(schema: JsonSchemaProps, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  walk(schema, path, '', true, errs);
  return errs;
}

function walk(s: JsonSchemaProps, path: string, name: string, root: boolean, errs: StatusCause[]): void {
  if (s.default !== undefined && !root) errs.push(...checkDefault(s, child(path, 'default'), name));
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    if (root && k === 'metadata') continue;
    const p = asSchema(sub);
    if (p) walk(p, key(child(path, 'properties'), k), k, false, errs);
  }
  const ap = mapValueSchema(s);
  if (ap) walk(ap, child(path, 'additionalProperties'), name, false, errs);
  const items = asSchema(s.items);
  if (items) walk(items, child(path, 'items'), name, false, errs);
}

// Generated CRDs repeat the same defaulted sub-schemas many times (across versions and fields):
// the result depends only on the node, its default and the field name, so it is computed once.
const memo = new Map<string, StatusCause[]>();

function checkDefault(s: JsonSchemaProps, at: string, name: string): StatusCause[] {
  const key = JSON.stringify([name, s]);
  let found = memo.get(key);
  if (!found) {
    found = checkDefaultUncached(s, name);
    if (memo.size > 5000) memo.clear();
    memo.set(key, found);
  }
  return found.map((c) => ({ ...c, field: at + c.field }));
}

/**
 * The causes for one default, with the field relative to the default (the caller prefixes it): empty
 * for schema errors, the path inside the default for its rules (`.end`).
 */
function checkDefaultUncached(s: JsonSchemaProps, name: string): StatusCause[] {
  const field = name || 'default';
  // Wrap the field in an object so pruning and validation see it in its place.
  const wrapper: JsonSchemaProps = { type: 'object', properties: { [field]: s } };
  const value = { [field]: cloneJson(s.default) };
  const pruned = cloneJson(value);
  pruneObject(pruned, wrapper, true);
  if (!jsonEqual(pruned, value)) return [invalid('', s.default, 'must not have unknown fields')];
  applyDefaults(pruned, wrapper, false);
  const schemaErrors = new SchemaValidator(wrapper).validate(pruned);
  if (schemaErrors.length > 0) return schemaErrors.map(({ cause }) => ({ ...cause, field: '' }));
  // then the x-kubernetes-validations of the node and of the schemas inside it, as kube-apiserver does
  return evaluateRules(pruned, wrapper, undefined).map(({ cause }) => ({
    ...cause,
    field: cause.field.slice(field.length),
  }));
}

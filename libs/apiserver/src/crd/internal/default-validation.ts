/**
 * Checks the `default` values of a CRD version's schema as kube-apiserver does when the CRD is created
 * (apiextensions-apiserver schema/defaulting/validation.go): a default must survive pruning unchanged
 * (unknown fields in an embedded resource's `metadata` aside), an embedded resource in it needs
 * `apiVersion` and `kind`, and it must validate as written (the defaults nested in its schema are not
 * applied first) against its own schema, then its `x-kubernetes-validations` rules and those of the
 * schemas inside it. Defaults under `additionalProperties` are not checked, as in kube-apiserver.
 */
import type { StatusCause } from '../../types.js';
import { CauseReason, child, invalid, key } from '../field-errors.js';
import { cloneJson, jsonEqual } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema } from '../schema-types.js';
import { evaluateRules } from './cel/rules.js';
import { pruneObject } from './prune.js';
import { SchemaValidator } from './schema-validator.js';
import { structuralChecks } from './structural-checks.js';

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
  // additionalProperties are not followed, as kube-apiserver's ValidateDefaults does not follow them
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
 * for the default itself, `.port` for a field inside it.
 */
function checkDefaultUncached(s: JsonSchemaProps, name: string): StatusCause[] {
  const field = name || 'default';
  // Wrap the field in an object so pruning and validation see it in its place.
  const wrapper: JsonSchemaProps = { type: 'object', properties: { [field]: s } };
  const value = { [field]: cloneJson(s.default) };
  const relative = (c: StatusCause): StatusCause => ({ ...c, field: c.field.slice(field.length) });
  const errs: StatusCause[] = [];
  const pruned = cloneJson(value);
  pruneObject(pruned, wrapper, true, { embeddedMetadata: false });
  if (!jsonEqual(pruned, value)) errs.push(invalid('', s.default, 'must not have unknown fields'));
  // objectmeta.Validate: apiVersion and kind of the embedded resources (not the list checks)
  const embedded = structuralChecks(value, wrapper)
    .map(({ cause }) => cause)
    .filter((c) => c.reason !== CauseReason.Duplicate);
  if (embedded.length > 0) return [...errs, ...embedded.map(relative)];
  const schemaErrors = new SchemaValidator(wrapper).validate(value);
  if (schemaErrors.length > 0) return [...errs, ...schemaErrors.map(({ cause }) => relative(cause))];
  // then the x-kubernetes-validations of the node and of the schemas inside it, as kube-apiserver does
  return [...errs, ...evaluateRules(value, wrapper, undefined).map(({ cause }) => relative(cause))];
}

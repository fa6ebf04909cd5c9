import type { StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import type { JsonObject } from '../../types.js';

// apimachinery's field.Error constructors (pkg/util/validation/field/errors.go) as the causes of a
// 422: the reason, the path and the message kube prints for each kind of error.

/**
 * A value as field.Error prints it in an `Invalid value: <v>` message: numbers and booleans as they
 * are, strings quoted (%q), a nil value as `null`, anything else as JSON (Go's encoding/json: keys in
 * order, `<`, `>` and `&` escaped). Kube marshals its internal Go types: for the metav1 types
 * (label selectors) and lists of strings this is the same text; for an internal type without JSON
 * names (a Job's pod template) kube prints Go field names, which we do not reproduce.
 */
export function goValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  // a string is printed with Go's %q: quoted, `<`, `>` and `&` as they are
  if (typeof v === 'string') return JSON.stringify(v);
  return goJson(v);
}

/** A value as Go's encoding/json writes it: keys in order, `<`, `>` and `&` escaped. */
export function goJson(v: unknown): string {
  return JSON.stringify(sortKeys(v)).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
  return out;
}

/** field.Required: `Required value` and the detail, if any. */
export const required = (field: string, detail = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: detail === '' ? 'Required value' : `Required value: ${detail}`,
});

/** field.Invalid: `Invalid value: <value>: <detail>`. */
export const invalid = (field: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${goValue(value)}: ${detail}`,
});

/** field.Forbidden: `Forbidden: <detail>`. */
export const forbidden = (field: string, detail: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  field,
  message: `Forbidden: ${detail}`,
});

/** field.NotSupported: the value and the supported values, each quoted. */
export const notSupported = (field: string, value: unknown, supported: readonly string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

/** field.Duplicate: `Duplicate value: <value>`. */
export const duplicate = (field: string, value: unknown): StatusCause => ({
  reason: 'FieldValueDuplicate',
  field,
  message: `Duplicate value: ${goValue(value)}`,
});

/** field.NotFound: `Not found: <value>`. */
export const notFound = (field: string, value: unknown): StatusCause => ({
  reason: 'FieldValueNotFound',
  field,
  message: `Not found: ${goValue(value)}`,
});

/** field.TooLong with an unused value: `Too long: may not be more than <max> bytes`. */
export const tooLong = (field: string, max: number): StatusCause => ({
  reason: 'FieldValueTooLong',
  field,
  message: `Too long: may not be more than ${max} bytes`,
});

/** apivalidation.ValidateNonnegativeField for a number that is set. */
export function nonNegative(v: unknown, field: string): StatusCause[] {
  return typeof v === 'number' && v < 0 ? [invalid(field, v, 'must be greater than or equal to 0')] : [];
}

/** The objects of a JSON list (anything else: none). */
export const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The strings of a JSON list (anything else: none). */
export const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** Go's RegexError: the message, the examples (two spaces before each `or`) and the regex. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

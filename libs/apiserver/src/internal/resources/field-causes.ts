import type { StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import type { JsonObject } from '../../types.js';
import { goValue } from './builtin-update-validation.js';

// apimachinery's field.Error constructors (pkg/util/validation/field/errors.go) as the causes of a
// 422: the reason, the path and the message kube prints for each kind of error.

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

/**
 * Builders for Kubernetes field errors (`k8s.io/apimachinery/pkg/util/validation/field`), turned into
 * `Status` causes. The message is the error body as kube-apiserver puts it in `details.causes[].message`
 * (without the field path, which is in `field`), e.g. `Invalid value: "x": must be ...`.
 */
import type { StatusCause } from '../types.js';

/** The cause reasons kube-apiserver uses for field errors. */
export const CauseReason = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  TypeInvalid: 'FieldValueTypeInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  Duplicate: 'FieldValueDuplicate',
  TooMany: 'FieldValueTooMany',
  TooLong: 'FieldValueTooLong',
} as const;

/** Formats a value the way field errors print it: strings quoted, numbers and booleans bare, the rest as JSON. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (value === undefined || value === null) return 'null';
  return JSON.stringify(value);
}

/** `Required value` (with an optional detail). */
export function required(field: string, detail = ''): StatusCause {
  return {
    reason: CauseReason.Required,
    message: detail ? `Required value: ${detail}` : 'Required value',
    field,
  };
}

/** `Invalid value: <value>: <detail>`. */
export function invalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: CauseReason.Invalid, message: `Invalid value: ${formatValue(value)}: ${detail}`, field };
}

/** A wrong JSON type: `Invalid value: "<actual type>": <detail>`, reason FieldValueTypeInvalid. */
export function typeInvalid(field: string, value: unknown, detail: string): StatusCause {
  return {
    reason: CauseReason.TypeInvalid,
    message: `Invalid value: ${formatValue(value)}: ${detail}`,
    field,
  };
}

/** `Unsupported value: <value>: supported values: "a", "b"`. */
export function notSupported(field: string, value: unknown, supported: readonly unknown[]): StatusCause {
  const list = supported.map(formatValue).join(', ');
  return {
    reason: CauseReason.NotSupported,
    message: `Unsupported value: ${formatValue(value)}${supported.length ? `: supported values: ${list}` : ''}`,
    field,
  };
}

/** `Forbidden: <detail>`. */
export function forbidden(field: string, detail: string): StatusCause {
  return { reason: CauseReason.Forbidden, message: `Forbidden: ${detail}`, field };
}

/** `Duplicate value: <value>`. */
export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: CauseReason.Duplicate, message: `Duplicate value: ${formatValue(value)}`, field };
}

/** `Too many: <actual>: must have at most <max> items`. */
export function tooMany(field: string, actual: number, max: number): StatusCause {
  return {
    reason: CauseReason.TooMany,
    message: `Too many: ${actual}: must have at most ${max} items`,
    field,
  };
}

/** `Too long: may not be more than <max> bytes`. */
export function tooLong(field: string, max: number): StatusCause {
  return { reason: CauseReason.TooLong, message: `Too long: may not be more than ${max} bytes`, field };
}

/** Appends a child field to a path (`spec` + `group` → `spec.group`). */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** Appends a list index (`spec.versions` + 0 → `spec.versions[0]`). */
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** Appends a map key (`properties` + `spec` → `properties[spec]`). */
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

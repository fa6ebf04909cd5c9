/**
 * `multipleOf` as kube-openapi checks it (validate/values.go MultipleOf): the quotient is computed as
 * `1/factor*value` for a factor below 1 (`value/factor` otherwise) and passes when it is an integer
 * within a relative error of 1e-9 (go-openapi swag's IsFloat64AJSONInteger). So `0.3` is a multiple
 * of `0.1` (10*0.3 = 3.0000000000000004), which a plain division (2.9999999999999996) refuses.
 */
import type { KeywordDefinition } from 'ajv';

/** The ajv keyword the translated schema carries instead of `multipleOf`. */
export const MULTIPLE_OF = 'x-kube-multiple-of';

const MAX_SAFE = 2 ** 53 - 1;
const EPSILON = 1e-9;

/** swag's IsFloat64AJSONInteger: Go truncates toward zero, and a negative inexact value never passes. */
function isJsonInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -MAX_SAFE || f > MAX_SAFE) return false;
  if (Number.isInteger(f)) return true;
  // Go's uint64(f) of a negative float is not its truncation (amd64 wraps, arm64 gives 0): never close
  if (f < 0) return false;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (g === 0) return diff < EPSILON * Number.MIN_VALUE;
  return diff / Math.min(f + g, Number.MAX_VALUE) < EPSILON;
}

/** Whether `value` is a multiple of `factor` as kube-openapi decides it. */
export function isMultipleOf(value: number, factor: number): boolean {
  if (!(factor > 0)) return false;
  return isJsonInteger(factor < 1 ? (1 / factor) * value : value / factor);
}

/** The keyword for ajv; its error reads as ajv's own `multipleOf` error. */
export const multipleOfKeyword: KeywordDefinition = {
  keyword: MULTIPLE_OF,
  type: 'number',
  schemaType: 'number',
  errors: true,
  validate: function check(factor: number, value: number): boolean {
    if (isMultipleOf(value, factor)) return true;
    (check as { errors?: unknown[] }).errors = [{ keyword: 'multipleOf', params: { multipleOf: factor } }];
    return false;
  },
};

/**
 * Values of selectable fields, in the string form field selectors compare.
 */
import type { JsonObject } from '../types.js';
import { isObject } from './json-util.js';

/**
 * The value of `field` (dotted, without a leading dot: `spec.color`) in `obj`, as a field selector sees
 * it: strings as they are, integers in decimal, booleans as `true`/`false`. Undefined when the field is
 * absent or not a scalar.
 */
export function fieldValue(obj: JsonObject, field: string): string | undefined {
  let cur: unknown = obj;
  for (const part of field.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' && Number.isFinite(cur)) return String(cur);
  if (typeof cur === 'boolean') return cur ? 'true' : 'false';
  return undefined;
}

/**
 * Whether `actual` already has every field of `desired` with the same value (objects: each desired
 * key; arrays: same length, element by element). Fields only in `actual` (server defaults, other
 * managers' fields, status) are ignored, which is how the low-level flavour decides whether a write is
 * needed at all.
 */
export function containsDesired(desired: unknown, actual: unknown): boolean {
  if (Array.isArray(desired)) {
    return (
      Array.isArray(actual) &&
      actual.length === desired.length &&
      desired.every((d, i) => containsDesired(d, actual[i]))
    );
  }
  if (desired !== null && typeof desired === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(
      ([key, value]) => value === undefined || containsDesired(value, a[key]),
    );
  }
  return desired === actual;
}

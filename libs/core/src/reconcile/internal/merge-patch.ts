type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The RFC 7386 JSON merge patch that turns `original` into `modified`: changed members as they are
 * in `modified`, removed members as `null`, arrays replaced whole. Undefined when nothing changed.
 */
export function createMergePatch(original: unknown, modified: unknown): Json | undefined {
  if (isObject(original) && isObject(modified)) {
    const patch: Record<string, Json> = {};
    for (const [key, value] of Object.entries(modified)) {
      if (value === undefined) continue;
      const sub = createMergePatch(original[key], value);
      if (sub !== undefined) patch[key] = sub;
    }
    for (const key of Object.keys(original)) {
      if (original[key] !== undefined && modified[key] === undefined) patch[key] = null;
    }
    return Object.keys(patch).length > 0 ? patch : undefined;
  }
  if (jsonEqual(original, modified)) return undefined;
  return modified === undefined ? null : (modified as Json);
}

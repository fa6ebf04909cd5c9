type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values (`undefined` members count as absent). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    let defined = 0;
    for (const k in a) {
      const v = a[k];
      if (v === undefined) continue;
      defined++;
      if (!jsonEqual(v, b[k])) return false;
    }
    for (const k in b) if (b[k] !== undefined) defined--;
    return defined === 0;
  }
  return false;
}

/**
 * The RFC 7386 JSON merge patch that turns `original` into `modified`: changed members as they are
 * in `modified`, removed members as `null`, arrays replaced whole. Undefined when nothing changed.
 */
export function createMergePatch(original: unknown, modified: unknown): Json | undefined {
  if (isObject(original) && isObject(modified)) {
    let patch: Record<string, Json> | undefined;
    for (const key in modified) {
      const value = modified[key];
      if (value === undefined) continue;
      const sub = createMergePatch(original[key], value);
      if (sub !== undefined) (patch ??= {})[key] = sub;
    }
    for (const key in original) {
      if (original[key] !== undefined && modified[key] === undefined) (patch ??= {})[key] = null;
    }
    return patch;
  }
  if (jsonEqual(original, modified)) return undefined;
  return modified === undefined ? null : (modified as Json);
}

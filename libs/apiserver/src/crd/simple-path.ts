/**
 * Simple dotted JSON paths (`.spec.replicas`) as used by selectable fields and the scale subresource,
 * and schema lookup along them.
 */
import type { JsonSchemaProps } from './schema-types.js';
import { asSchema, mapValueSchema } from './schema-types.js';

/**
 * Splits a simple JSON path (`.spec.color`) into its field names, or returns undefined when it is not
 * a simple path (must start with `.`, no empty segments, no brackets or filters).
 */
export function parseSimplePath(path: string): string[] | undefined {
  if (!path.startsWith('.') || path.length < 2) return undefined;
  const parts = path.slice(1).split('.');
  if (parts.some((p) => p === '' || /[[\]()*@?'"\s]/.test(p))) return undefined;
  return parts;
}

/** The schema node reached by following field names from `root` (through properties or a map's value schema). */
export function schemaAtPath(root: JsonSchemaProps, fields: readonly string[]): JsonSchemaProps | undefined {
  let s: JsonSchemaProps | undefined = root;
  for (const f of fields) {
    if (!s) return undefined;
    const next: JsonSchemaProps | undefined = asSchema(s.properties?.[f]) ?? mapValueSchema(s);
    s = next;
  }
  return s;
}

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

/** One step of a rule's `fieldPath`: a property name or a key of a map (`additionalProperties`). */
export interface FieldPathStep {
  name: string;
  /** True for a map key, rendered `[key]` in field paths as kube-apiserver renders it. */
  key: boolean;
}

const ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '\\': '\\',
};

/**
 * Parses an `x-kubernetes-validations` rule's `fieldPath` against the rule's schema node, as
 * kube-apiserver's ValidFieldPath does: `.name` steps and `['quoted name']` steps (for names with
 * dots), each a property of an object or a key of a map; no list indexes. Returns undefined when the
 * path is not valid for the schema.
 */
export function parseRuleFieldPath(path: string, schema: JsonSchemaProps): FieldPathStep[] | undefined {
  const steps: FieldPathStep[] = [];
  let s: JsonSchemaProps | undefined = schema;
  let i = 0;
  const step = (name: string): boolean => {
    if (!s) return false;
    if (s.properties !== undefined) {
      s = asSchema(s.properties[name]);
      steps.push({ name, key: false });
      return s !== undefined;
    }
    const values = mapValueSchema(s);
    if (!values) return false;
    s = values;
    steps.push({ name, key: true });
    return true;
  };
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let end = i + 1;
      while (end < path.length && !'.[]'.includes(path[end] ?? '')) end++;
      if (end === i + 1 || !step(path.slice(i + 1, end))) return undefined;
      i = end;
    } else if (c === '[') {
      if (path[i + 1] !== "'") return undefined;
      let end = i + 2;
      while (end < path.length && !(path[end] === "'" && path[end - 1] !== '\\')) end++;
      if (end >= path.length || path[end + 1] !== ']') return undefined;
      let bad = false;
      const name = path.slice(i + 2, end).replace(/\\(.)/g, (_m, d: string) => {
        const r = ESCAPES[d];
        if (r === undefined) bad = true;
        return r ?? '';
      });
      if (bad || !step(name)) return undefined;
      i = end + 2;
    } else return undefined;
  }
  return steps;
}

/** A rule's field path appended to the rule's location, as kube-apiserver renders it (`spec.labels[app]`). */
export function renderRuleFieldPath(base: string, steps: readonly FieldPathStep[]): string {
  let rel = '';
  for (const st of steps) rel += st.key ? `[${st.name}]` : rel === '' ? st.name : `.${st.name}`;
  return base === '' ? rel : `${base}.${rel}`;
}

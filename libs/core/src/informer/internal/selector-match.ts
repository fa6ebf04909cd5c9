import type { KubernetesResource } from '../../api/resource-type.js';

/** Whether an object is in an informer's selection. */
export type ObjectMatcher = (obj: KubernetesResource) => boolean;

type LabelRequirement =
  | { key: string; op: 'exists' | 'notExists' }
  | { key: string; op: 'in' | 'notIn'; values: Set<string> }
  | { key: string; op: 'gt' | 'lt'; value: number };

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);

/** Splits a label selector into tokens as apimachinery's lexer does. */
function labelTokens(selector: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < selector.length) {
    const c = selector[i];
    if (/\s/.test(c)) {
      i++;
    } else if (selector.startsWith('!=', i) || selector.startsWith('==', i)) {
      out.push(selector.slice(i, i + 2));
      i += 2;
    } else if (SPECIAL.has(c)) {
      out.push(c);
      i++;
    } else {
      let j = i;
      while (j < selector.length && !SPECIAL.has(selector[j]) && !/\s/.test(selector[j])) j++;
      out.push(selector.slice(i, j));
      i = j;
    }
  }
  return out;
}

const isWord = (t: string | undefined): t is string =>
  t !== undefined && !SPECIAL.has(t) && t !== '!=' && t !== '==';

/**
 * Parses a label selector (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`,
 * `a<1`, comma-separated). Returns undefined when it cannot be parsed.
 */
export function parseLabelSelector(selector: string): LabelRequirement[] | undefined {
  const t = labelTokens(selector);
  const reqs: LabelRequirement[] = [];
  let i = 0;
  const value = (): string => (isWord(t[i]) ? t[i++] : '');
  while (i < t.length) {
    if (t[i] === '!') {
      i++;
      if (!isWord(t[i])) return undefined;
      reqs.push({ key: t[i++], op: 'notExists' });
    } else {
      if (!isWord(t[i])) return undefined;
      const key = t[i++];
      const op = t[i];
      if (op === undefined || op === ',') {
        reqs.push({ key, op: 'exists' });
      } else if (op === '=' || op === '==' || op === '!=') {
        i++;
        reqs.push({ key, op: op === '!=' ? 'notIn' : 'in', values: new Set([value()]) });
      } else if (op === 'in' || op === 'notin') {
        i++;
        if (t[i++] !== '(') return undefined;
        const values = new Set<string>();
        for (;;) {
          values.add(value());
          const next = t[i++];
          if (next === ')') break;
          if (next !== ',') return undefined;
        }
        reqs.push({ key, op: op === 'in' ? 'in' : 'notIn', values });
      } else if (op === '<' || op === '>') {
        i++;
        const n = value();
        if (!/^-?\d+$/.test(n)) return undefined;
        reqs.push({ key, op: op === '>' ? 'gt' : 'lt', value: Number(n) });
      } else {
        return undefined;
      }
    }
    if (i < t.length && t[i++] !== ',') return undefined;
  }
  return reqs;
}

function labelMatches(req: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const v = has ? labels[req.key] : undefined;
  switch (req.op) {
    case 'exists':
      return has;
    case 'notExists':
      return !has;
    case 'in':
      return v !== undefined && req.values.has(v);
    case 'notIn':
      return v === undefined || !req.values.has(v);
    case 'gt':
    case 'lt':
      if (v === undefined || !/^-?\d+$/.test(v)) return false;
      return req.op === 'gt' ? Number(v) > req.value : Number(v) < req.value;
  }
}

interface FieldRequirement {
  path: string[];
  value: string;
  equal: boolean;
}

/** Splits on a separator not escaped by a backslash. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      current += text.slice(i, i + 2);
      i++;
    } else if (text[i] === separator) {
      parts.push(current);
      current = '';
    } else {
      current += text[i];
    }
  }
  parts.push(current);
  return parts;
}

/**
 * Parses a field selector (`a.b=c`, `a.b==c`, `a.b!=c`, comma-separated; `\,` `\=` `\\` escapes in
 * values). Returns undefined when it cannot be parsed.
 */
export function parseFieldSelector(selector: string): FieldRequirement[] | undefined {
  const reqs: FieldRequirement[] = [];
  for (const term of splitUnescaped(selector, ',')) {
    if (term.trim() === '') continue;
    let at = -1;
    let op = '';
    for (let i = 0; i < term.length && at < 0; i++) {
      if (term[i] === '\\') {
        i++;
        continue;
      }
      for (const candidate of ['!=', '==', '=']) {
        if (term.startsWith(candidate, i)) {
          at = i;
          op = candidate;
          break;
        }
      }
    }
    if (at <= 0) return undefined;
    const value = term.slice(at + op.length).replace(/\\(.)/g, '$1');
    reqs.push({ path: term.slice(0, at).trim().split('.'), value, equal: op !== '!=' });
  }
  return reqs;
}

function fieldValue(obj: KubernetesResource, path: string[]): string {
  let v: unknown = obj;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return '';
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/**
 * A matcher for an informer's label and field selectors, evaluated on the client as the API server
 * does (a missing field is the empty string). Returns a matcher that refuses everything when a
 * selector cannot be parsed here (`unparsable` then names it), so nothing outside the selection
 * can enter a cache by an own write.
 */
export function selectorMatcher(
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): { matches: ObjectMatcher; unparsable?: string } {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : [];
  const fields = fieldSelector ? parseFieldSelector(fieldSelector) : [];
  if (!labels) return { matches: () => false, unparsable: `labelSelector "${labelSelector}"` };
  if (!fields) return { matches: () => false, unparsable: `fieldSelector "${fieldSelector}"` };
  if (labels.length === 0 && fields.length === 0) return { matches: () => true };
  return {
    matches: (obj) => {
      const objLabels = obj.metadata?.labels ?? {};
      return (
        labels.every((r) => labelMatches(r, objLabels)) &&
        fields.every((r) => (fieldValue(obj, r.path) === r.value) === r.equal)
      );
    },
  };
}

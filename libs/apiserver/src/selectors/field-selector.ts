import { SelectorError } from './selector-error.js';

/** One term of a field selector: `field=value`, `field==value` (same as `=`) or `field!=value`. */
export interface FieldRequirement {
  /** The field path as written, e.g. `metadata.name` or `status.phase`. */
  readonly field: string;
  readonly op: '=' | '!=';
  /** The value, unescaped. */
  readonly value: string;
}

function fail(message: string): never {
  throw new SelectorError('InvalidFieldSelector', message);
}

/** Splits at commas not escaped by a backslash (apimachinery `splitTerms`). */
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

/** Finds the leftmost operator; at one position `!=` is tried first, then `==`, then `=` (apimachinery `splitTerm`). */
function splitTerm(term: string): { lhs: string; op: '=' | '!='; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i))
        return { lhs: term.slice(0, i), op: op === '!=' ? '!=' : '=', rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Unescapes a field selector value: `\\`, `\,` and `\=` stand for `\`, `,` and `=`; any other escape,
 * a trailing `\`, or an unescaped `,` or `=` is refused (apimachinery `fields.UnescapeValue`).
 *
 * @throws SelectorError (`InvalidFieldSelector`). Like Kubernetes, an unescaped character is
 *   reported by its code point: `invalid field selector: unescaped character in value: 61` for `=`.
 */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else fail(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go formats the rune with %v, which prints its number.
      fail(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) fail('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes a value for a field selector (`\` → `\\`, `,` → `\,`, `=` → `\=`); the inverse of {@link unescapeFieldValue}. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses a field selector as given in `?fieldSelector=` (kube-apiserver's `fields.ParseSelector`):
 * terms `field=value`, `field==value` or `field!=value` joined by `,` (AND). Empty terms are skipped,
 * so `''` selects everything; blanks are not trimmed (`a = b` is field `a ` and value ` b`, which
 * the caller then refuses as an unsupported field). Terms are returned sorted by their text, as
 * Kubernetes sorts them. Which fields a kind supports is the caller's decision.
 *
 * @throws SelectorError (`InvalidFieldSelector`, status 400): `invalid selector: 'x'; can't understand 'x'`
 *   for a term without operator, and the errors of {@link unescapeFieldValue}.
 */
export function parseFieldSelector(s: string): FieldRequirement[] {
  if (typeof s !== 'string') fail(`field selector must be a string, got ${typeof s}`);
  const terms = splitTerms(s).sort();
  const reqs: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (parts === undefined) fail(`invalid selector: '${s}'; can't understand '${term}'`);
    reqs.push(Object.freeze({ field: parts.lhs, op: parts.op, value: unescapeFieldValue(parts.rhs) }));
  }
  return reqs;
}

/**
 * Whether an object's fields satisfy every requirement. `getField` returns a field's value as a
 * string; a missing field (undefined) compares as the empty string, as in Kubernetes, so
 * `spec.nodeName=` selects objects without the field and `x!=a` selects them too.
 */
export function matchesFields(
  reqs: readonly FieldRequirement[],
  getField: (field: string) => string | undefined,
): boolean {
  return reqs.every((r) => {
    const actual = getField(r.field) ?? '';
    return r.op === '=' ? actual === r.value : actual !== r.value;
  });
}

/** The canonical text of a field selector (terms joined by `,`, values escaped). */
export function fieldSelectorToString(reqs: readonly FieldRequirement[]): string {
  return reqs.map((r) => `${r.field}${r.op === '=' ? '=' : '!='}${escapeFieldValue(r.value)}`).join(',');
}

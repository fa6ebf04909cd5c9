import { ApiError } from './errors.js';

/**
 * The deepest nesting of objects and arrays a request body (and an object a patch produces) may
 * have. kube-apiserver's JSON decoder stops at 10,000 levels and answers 400; this server stops at
 * 1,000 levels, also with 400: its merge, apply, field-set and validation walks recurse once per
 * level on the JavaScript stack, which holds about 2,000 to 3,000 such levels, so 1,000 keeps a
 * margin of two to three. Real objects nest well under 100 levels.
 */
export const MAX_NESTING_DEPTH = 1000;

/** The 400 answer for a body or patch result nested deeper than {@link MAX_NESTING_DEPTH}. */
export function nestingTooDeep(what: string): ApiError {
  return new ApiError(
    400,
    'BadRequest',
    `${what} nests objects and arrays more than ${MAX_NESTING_DEPTH} levels deep (exceeded max depth); flatten it`,
  );
}

/**
 * Throws {@link nestingTooDeep} when JSON text (or YAML flow syntax, with `yaml`) opens more than
 * {@link MAX_NESTING_DEPTH} objects or arrays at once. A single linear scan (quoted strings
 * skipped), so it runs before parsing and never recurses; text that is not valid is left to the
 * parser's own error. YAML block nesting is bounded by indentation within the body size limit, and
 * checked on the parsed value.
 */
export function checkJsonTextDepth(text: string, what: string, yaml = false): void {
  // every level opens with a character of its own: shorter text cannot nest too deep
  if (text.length <= MAX_NESTING_DEPTH) return;
  let depth = 0;
  let quote = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 0x5c /* \ */ && quote === 0x22) i++;
      else if (c === quote) quote = 0;
    } else if (c === 0x22 /* " */ || (yaml && c === 0x27) /* ' */) quote = c;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > MAX_NESTING_DEPTH) throw nestingTooDeep(what);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
}

/**
 * Throws {@link nestingTooDeep} when a parsed value nests objects and arrays more than
 * {@link MAX_NESTING_DEPTH} levels deep. Walks with an explicit stack (no recursion) and stops at
 * the first value past the limit.
 */
export function checkValueDepth(value: unknown, what: string): void {
  if (value === null || typeof value !== 'object') return;
  const stack: { v: object; depth: number }[] = [{ v: value, depth: 1 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (top.depth > MAX_NESTING_DEPTH) throw nestingTooDeep(what);
    const children: unknown[] = Array.isArray(top.v) ? (top.v as unknown[]) : Object.values(top.v);
    for (const c of children)
      if (c !== null && typeof c === 'object') stack.push({ v: c, depth: top.depth + 1 });
  }
}

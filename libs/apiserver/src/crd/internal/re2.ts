/**
 * Go RE2 patterns (what Kubernetes uses for `pattern` and CEL `matches`) as JavaScript regular
 * expressions: leading flag groups `(?i)`, `(?s)`, `(?m)` become flags, `\A` and `\z` become anchors.
 * Other RE2 syntax is the same in JavaScript for the patterns CRDs use.
 */

/** A pattern RE2 accepts but this translation cannot express in JavaScript, or an invalid one. */
export class PatternError extends Error {
  readonly code = 'PATTERN_INVALID';
}

const cache = new Map<string, RegExp>();

/** Compiles an RE2 pattern (cached). @throws PatternError */
export function compileRe2(pattern: string, extraFlags = ''): RegExp {
  const key = `${extraFlags}/${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let source = pattern;
  const flags = new Set(extraFlags.split('').filter(Boolean));
  // A flag group at the very start (or right after the leading ^) covers the whole pattern.
  const lead = /^(\^?)\(\?([imsU]+)\)/.exec(source);
  if (lead) {
    for (const f of lead[2] ?? '') {
      if (f === 'U') throw new PatternError('the (?U) flag is not supported');
      flags.add(f);
    }
    source = `${lead[1] ?? ''}${source.slice(lead[0].length)}`;
  }
  source = source.replace(/\\A/g, '^').replace(/\\z/g, '$(?![\\s\\S])');
  let re: RegExp;
  try {
    re = new RegExp(source, [...flags].join(''));
  } catch (e) {
    throw new PatternError(e instanceof Error ? e.message : String(e));
  }
  if (cache.size > 2000) cache.clear();
  cache.set(key, re);
  return re;
}

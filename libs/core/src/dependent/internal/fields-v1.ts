/** A `fieldsV1` tree of a managedFields entry. */
export type FieldsV1 = { [key: string]: FieldsV1 };

type Json = unknown;

/**
 * The part of `value` that a `fieldsV1` set names (structured-merge-diff's path syntax: `f:<name>`
 * fields, `k:{...}` list items by key, `v:<json>` set items, `i:<n>` items by index, `.` the node
 * itself). A leaf (empty set) keeps the whole value, an empty map included: `f:config: {}` owns
 * `config: {}`. Absent parts are left out, and so is a map none of whose named children is left
 * (an empty map made by pruning is not a value anyone applied); the top level is then `{}`.
 */
export function pruneToFields(value: Json, fields: FieldsV1): Json {
  const pruned = prune(value, fields);
  return pruned === GONE ? {} : pruned;
}

/** A map whose named children are all absent. */
const GONE = Symbol('gone');

function prune(value: Json, fields: FieldsV1): Json {
  let leaf = true;
  for (const k in fields) {
    if (k !== '.') {
      leaf = false;
      break;
    }
  }
  if (leaf) return value;
  if (Array.isArray(value)) return pruneList(value, fields);
  if (!value || typeof value !== 'object') return value;
  const obj = value as Record<string, Json>;
  const out: Record<string, Json> = {};
  let kept = false;
  for (const key in fields) {
    // `f:<name>`; other path elements name list items, not members
    if (key.charCodeAt(0) !== 102 /* f */ || key.charCodeAt(1) !== 58 /* : */) continue;
    const name = key.slice(2);
    if (!Object.prototype.hasOwnProperty.call(obj, name)) continue;
    const part = prune(obj[name], fields[key]);
    if (part === GONE) continue;
    out[name] = part;
    kept = true;
  }
  return kept ? out : GONE;
}

const UNPARSABLE = Symbol('unparsable');

/** A `k:` or `v:` path element's JSON. */
function parsedKey(key: string): Json {
  try {
    return JSON.parse(key.slice(2));
  } catch {
    return UNPARSABLE;
  }
}

function pruneList(list: Json[], fields: FieldsV1): Json[] {
  const picked = new Map<number, Json>();
  for (const key in fields) {
    if (key === '.') continue;
    const sub = fields[key];
    if (key.startsWith('k:')) {
      const selector = parsedKey(key);
      if (selector === UNPARSABLE || selector === null || typeof selector !== 'object') continue;
      const entries = Object.entries(selector as Record<string, Json>);
      const index = list.findIndex(
        (item) =>
          item !== null &&
          typeof item === 'object' &&
          entries.every(([k, v]) => sameScalar((item as Record<string, Json>)[k], v)),
      );
      if (index >= 0) picked.set(index, pruneToFields(list[index], sub));
    } else if (key.startsWith('v:')) {
      const wanted = parsedKey(key);
      if (wanted === UNPARSABLE) continue;
      const json = JSON.stringify(wanted);
      const index = list.findIndex((item) => JSON.stringify(item) === json);
      if (index >= 0) picked.set(index, list[index]);
    } else if (key.startsWith('i:')) {
      const index = Number(key.slice(2));
      if (index < list.length) picked.set(index, pruneToFields(list[index], sub));
    }
  }
  if (picked.size === 1) return [...picked.values()];
  return [...picked.keys()].sort((a, b) => a - b).map((i) => picked.get(i));
}

function sameScalar(a: Json, b: Json): boolean {
  // keys of ports are numbers in the object and may be numbers or strings in the path
  return (
    a === b ||
    ((typeof a === 'number' || typeof a === 'string') &&
      (typeof b === 'number' || typeof b === 'string') &&
      `${a}` === `${b}`)
  );
}

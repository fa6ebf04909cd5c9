/** A `fieldsV1` tree of a managedFields entry. */
export type FieldsV1 = { [key: string]: FieldsV1 };

type Json = unknown;

/**
 * The part of `value` that a `fieldsV1` set names (structured-merge-diff's path syntax: `f:<name>`
 * fields, `k:{...}` list items by key, `v:<json>` set items, `i:<n>` items by index, `.` the node
 * itself). A leaf (empty set) keeps the whole value, an empty map included: `f:config: {}` owns
 * `config: {}`. Absent parts are left out, and so is a map none of whose named children is left
 * (an empty map made by pruning is not a value anyone applied); the top level is then `{}`.
 *
 * With `appliedEmptyMaps` (the applied intent, walked along maps; list items are not followed), a
 * leaf where the intent has `{}` and the object a map is pruned to `{}`: structured-merge-diff
 * records an applied empty map as a leaf of the applier's set and merges it into the live map (of
 * any kind), so members others set there stay and are theirs, not part of what we applied.
 */
export function pruneToFields(value: Json, fields: FieldsV1, appliedEmptyMaps?: Json): Json {
  const pruned = prune(value, fields, appliedEmptyMaps);
  return pruned === GONE ? {} : pruned;
}

/** Whether `v` is a plain JSON object. */
function isMap(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Whether `v` is `{}` (a Date or another value with `toJSON` is not). */
function isEmptyMap(v: Json): boolean {
  if (!isMap(v) || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const k in v) if (Object.hasOwn(v, k)) return false;
  return true;
}

/** A map whose named children are all absent. */
const GONE = Symbol('gone');

function prune(value: Json, fields: FieldsV1, applied: Json): Json {
  let leaf = true;
  for (const k in fields) {
    if (k !== '.') {
      leaf = false;
      break;
    }
  }
  if (leaf) {
    // an applied `{}` owns the map as a leaf and merges into it: the others' members stay, and are
    // not ours (see pruneToFields)
    if (applied !== undefined && isEmptyMap(applied) && isMap(value)) return {};
    return value;
  }
  if (Array.isArray(value)) return pruneList(value, fields);
  if (!value || typeof value !== 'object') return value;
  const obj = value as Record<string, Json>;
  const intent = isMap(applied) ? applied : undefined;
  const out: Record<string, Json> = {};
  let kept = false;
  for (const key in fields) {
    // `f:<name>`; other path elements name list items, not members
    if (key.charCodeAt(0) !== 102 /* f */ || key.charCodeAt(1) !== 58 /* : */) continue;
    const name = key.slice(2);
    if (!Object.prototype.hasOwnProperty.call(obj, name)) continue;
    const part = prune(obj[name], fields[key], intent?.[name]);
    if (part === GONE) continue;
    out[name] = part;
    kept = true;
  }
  return kept ? out : GONE;
}

const UNPARSABLE = Symbol('unparsable');

/**
 * A `k:` or `v:` path element's JSON. Always `JSON.parse`: a hand-written reader of the common
 * `k:{"uid":"…"}` key was measured slower in a restart, which runs this code cold (a character loop in
 * V8's interpreter costs more than the native parser).
 */
function parsedKey(key: string): Json {
  try {
    return JSON.parse(key.slice(2));
  } catch {
    return UNPARSABLE;
  }
}

function pruneList(list: Json[], fields: FieldsV1): Json[] {
  // the picked items by index (a later path element naming the same item wins), kept in the list's
  // order; small parallel arrays instead of a Map, and no closures per path element
  const indexes: number[] = [];
  const values: Json[] = [];
  for (const key in fields) {
    if (key === '.') continue;
    const sub = fields[key];
    let index = -1;
    let value: Json;
    if (key.startsWith('k:')) {
      const selector = parsedKey(key);
      if (selector === UNPARSABLE || selector === null || typeof selector !== 'object') continue;
      index = keyedIndex(list, selector as Record<string, Json>);
      if (index >= 0) value = pruneToFields(list[index], sub);
    } else if (key.startsWith('v:')) {
      const wanted = parsedKey(key);
      if (wanted === UNPARSABLE) continue;
      const json = JSON.stringify(wanted);
      index = list.findIndex((item) => JSON.stringify(item) === json);
      if (index >= 0) value = list[index];
    } else if (key.startsWith('i:')) {
      index = Number(key.slice(2));
      if (index < list.length) value = pruneToFields(list[index], sub);
      else index = -1;
    }
    if (index < 0) continue;
    const at = indexes.indexOf(index);
    if (at >= 0) values[at] = value;
    else {
      indexes.push(index);
      values.push(value);
    }
  }
  if (indexes.length <= 1) return values;
  return indexes
    .map((index, at) => [index, at])
    .sort((a, b) => a[0] - b[0])
    .map(([, at]) => values[at]);
}

/** The first item of `list` whose members named by `selector` hold its values (a `k:` element). */
function keyedIndex(list: Json[], selector: Record<string, Json>): number {
  items: for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (item === null || typeof item !== 'object') continue;
    for (const k in selector) {
      if (Object.hasOwn(selector, k) && !sameScalar((item as Record<string, Json>)[k], selector[k]))
        continue items;
    }
    return i;
  }
  return -1;
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

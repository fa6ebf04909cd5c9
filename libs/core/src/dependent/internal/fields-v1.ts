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
  const children = Object.keys(fields).filter((k) => k !== '.');
  if (children.length === 0) return value;
  if (Array.isArray(value)) return pruneList(value, fields, children);
  if (!value || typeof value !== 'object') return value;
  const obj = value as Record<string, Json>;
  const out: Record<string, Json> = {};
  let kept = false;
  for (const key of children) {
    if (!key.startsWith('f:')) continue;
    const name = key.slice(2);
    if (!(name in obj)) continue;
    const part = prune(obj[name], fields[key]);
    if (part === GONE) continue;
    out[name] = part;
    kept = true;
  }
  return kept ? out : GONE;
}

function pruneList(list: Json[], fields: FieldsV1, children: string[]): Json[] {
  const picked = new Map<number, Json>();
  for (const key of children) {
    const sub = fields[key];
    if (key.startsWith('k:')) {
      let selector: Record<string, Json>;
      try {
        selector = JSON.parse(key.slice(2)) as Record<string, Json>;
      } catch {
        continue;
      }
      const index = list.findIndex(
        (item) =>
          item !== null &&
          typeof item === 'object' &&
          Object.entries(selector).every(([k, v]) => sameScalar((item as Record<string, Json>)[k], v)),
      );
      if (index >= 0) picked.set(index, pruneToFields(list[index], sub));
    } else if (key.startsWith('v:')) {
      let wanted: Json;
      try {
        wanted = JSON.parse(key.slice(2));
      } catch {
        continue;
      }
      const index = list.findIndex((item) => JSON.stringify(item) === JSON.stringify(wanted));
      if (index >= 0) picked.set(index, list[index]);
    } else if (key.startsWith('i:')) {
      const index = Number(key.slice(2));
      if (index < list.length) picked.set(index, pruneToFields(list[index], sub));
    }
  }
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

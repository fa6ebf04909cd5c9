/**
 * Item order of strategic merge patch lists (`partition*ByPresentInList`, `normalizeElementOrder` and
 * `mergeSortedSlice` of `k8s.io/apimachinery/pkg/util/strategicpatch`): items named by the patch follow
 * the patch (or `$setElementOrder`), server-only items follow the live list, and the two are interleaved
 * by their live positions.
 */
import { isJsonObject, jsonEqual } from './json-value.js';

/** What identifies a list item: its merge key's value, or the item itself for scalars. */
export function identity(item: unknown, mergeKey: string | undefined): unknown {
  return mergeKey === undefined ? item : isJsonObject(item) ? item[mergeKey] : undefined;
}

/** The position of `item` in `list` by identity, or -1. */
export function indexIn(list: readonly unknown[], item: unknown, mergeKey: string | undefined): number {
  const id = identity(item, mergeKey);
  return list.findIndex((other) => jsonEqual(identity(other, mergeKey), id));
}

/** Splits `items` into those present in `by` (by merge key or value) and the rest. */
export function partition(
  items: unknown[],
  by: readonly unknown[],
  mergeKey: string | undefined,
): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const rest: unknown[] = [];
  for (const item of items) (indexIn(by, item, mergeKey) >= 0 ? present : rest).push(item);
  return [present, rest];
}

/** `normalizeElementOrder` + `mergeSortedSlice` of the strategicpatch package. */
export function normalizeOrder(
  inPatch: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string | undefined,
): unknown[] {
  const sortBy = (list: unknown[], order: readonly unknown[]): unknown[] =>
    list
      .map((item, i) => ({ item, i, at: indexIn(order, item, mergeKey) }))
      .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i))
      .map((entry) => entry.item);
  const left = sortBy(serverOnly, serverOrder);
  const right = sortBy(inPatch, patchOrder);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

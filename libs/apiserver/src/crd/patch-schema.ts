/**
 * List and map semantics of a custom resource for strategic merge patch and server-side apply, read
 * from `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and `x-kubernetes-map-type`.
 */
import type { ListInfo, PatchSchema } from '../types.js';
import type { JsonSchemaProps } from './schema-types.js';
import { asSchema, mapValueSchema } from './schema-types.js';

/** ObjectMeta's lists, for the root's and embedded resources' `metadata`. */
const OBJECT_META_LISTS: Record<string, ListInfo> = {
  finalizers: { type: 'set' },
  ownerReferences: { type: 'map', keys: ['uid'] },
  managedFields: { type: 'atomic' },
};

function nodeAt(root: JsonSchemaProps, path: readonly string[]): JsonSchemaProps | 'metadata' | undefined {
  let s: JsonSchemaProps | undefined = root;
  let resource = true;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i] ?? '';
    if (!s) return undefined;
    if (resource && seg === 'metadata') return i === path.length - 2 ? 'metadata' : undefined;
    const next: JsonSchemaProps | undefined =
      seg === '[]' ? asSchema(s.items) : (asSchema(s.properties?.[seg]) ?? mapValueSchema(s));
    s = next;
    resource = s?.['x-kubernetes-embedded-resource'] === true;
  }
  return s;
}

/** Builds the {@link PatchSchema} of one version's `openAPIV3Schema`. */
export function buildPatchSchema(root: JsonSchemaProps): PatchSchema {
  return {
    listInfo(path: readonly string[]): ListInfo | undefined {
      const s = nodeAt(root, path);
      if (s === 'metadata') return OBJECT_META_LISTS[path[path.length - 1] ?? ''];
      if (!s || s.type !== 'array') return undefined;
      const type = s['x-kubernetes-list-type'];
      if (type === 'map') return { type: 'map', keys: [...(s['x-kubernetes-list-map-keys'] ?? [])] };
      if (type === 'set' || type === 'atomic') return { type };
      return undefined;
    },
    isAtomicMap(path: readonly string[]): boolean {
      const s = nodeAt(root, path);
      return s !== 'metadata' && s?.['x-kubernetes-map-type'] === 'atomic';
    },
  };
}

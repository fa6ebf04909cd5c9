import type { JsonObject } from '../../types.js';
import type { ResourceType } from '../resources/resource-type.js';

/** Which object a Table row carries (`includeObject`). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Human duration as kubectl prints ages (`5s`, `3m2s`, `4h`, `2d3h`, `45d`). */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** The Age cell of a creationTimestamp. */
export function age(ts: unknown): string {
  if (typeof ts !== 'string') return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t);
}

function rowObject(obj: JsonObject, include: IncludeObject): JsonObject | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

/** The Name column every built-in Table starts with (its definition, without a cell function). */
export const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
  priority: 0,
};

/**
 * A `meta.k8s.io/v1` Table of built-in objects: Name (unless the kind says `nameColumn: false`),
 * then the kind's columns (Age included).
 */
export function builtinTable(rt: ResourceType, objects: JsonObject[], include: IncludeObject): JsonObject {
  const columns = rt.columns ?? [];
  const withName = rt.nameColumn !== false;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: [
      ...(withName ? [NAME_COLUMN] : []),
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    rows: objects.map((o) => {
      const row: JsonObject = {
        cells: [
          ...(withName ? [(o.metadata as JsonObject | undefined)?.name ?? ''] : []),
          ...columns.map((c) => c.value(o) ?? ''),
        ],
      };
      const ro = rowObject(o, include);
      if (ro) row.object = ro;
      return row;
    }),
  };
}

import type { JsonObject } from '../types.js';
import type { ResourceType, TableColumn } from './resource-type.js';

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

interface PrinterColumnSpec {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

function simplePath(obj: unknown, jsonPath: string): unknown {
  let cur: unknown = obj;
  for (const part of jsonPath.replace(/^\./, '').split('.')) {
    if (part === '') continue;
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Table columns from CRD additionalPrinterColumns (simple `.a.b` paths); Age when there are none. */
export function printerColumns(raw: unknown): TableColumn[] {
  const cols = Array.isArray(raw) ? (raw as PrinterColumnSpec[]) : [];
  const out: TableColumn[] = cols
    .filter((c) => c && typeof c.name === 'string' && typeof c.jsonPath === 'string')
    .map((c) => {
      const col: TableColumn = {
        name: c.name,
        type: c.type,
        description: c.description ?? '',
        priority: c.priority ?? 0,
        value: (o) => {
          const v = simplePath(o, c.jsonPath);
          if (c.type === 'date') return v === undefined ? '<unknown>' : age(v);
          return v === undefined || v === null ? null : typeof v === 'object' ? JSON.stringify(v) : v;
        },
      };
      if (c.format !== undefined) col.format = c.format;
      return col;
    });
  if (out.length === 0) {
    out.push({
      name: 'Age',
      type: 'date',
      description: 'Age',
      priority: 0,
      value: (o) => age((o.metadata as JsonObject | undefined)?.creationTimestamp),
    });
  }
  return out;
}

/** A `meta.k8s.io/v1` Table of built-in objects: Name, the kind's columns (Age included). */
export function builtinTable(
  rt: ResourceType,
  objects: JsonObject[],
  include: IncludeObject,
  custom?: TableColumn[],
): JsonObject {
  const columns = custom ?? rt.columns ?? [];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: [
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description:
          'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
        priority: 0,
      },
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
        cells: [(o.metadata as JsonObject | undefined)?.name ?? '', ...columns.map((c) => c.value(o) ?? '')],
      };
      const ro = rowObject(o, include);
      if (ro) row.object = ro;
      return row;
    }),
  };
}

/**
 * `meta.k8s.io/v1` Tables, as kube-apiserver returns them to `kubectl get`
 * (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`).
 */
import type { JsonObject } from '../types.js';
import { humanDuration } from './human-duration.js';
import { JsonPath } from './jsonpath.js';
import { objectAt } from './json-util.js';
import type { PrinterColumn } from './printer-column.js';

/** What each row carries besides its cells (the `includeObject` query parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Options of {@link buildTable}. */
export interface TableOptions {
  /** `None`: cells only; `Metadata`: a PartialObjectMetadata per row; `Object`: the whole object. */
  includeObject: IncludeObject;
  /** The time ages are measured against. Defaults to the current time. */
  now?: Date;
  /** The list's resourceVersion for the Table's metadata. Defaults to none. */
  resourceVersion?: string;
  /** The continue token of a paged list. Defaults to none. */
  continue?: string;
  /** The remaining item count of a paged list. Defaults to none. */
  remainingItemCount?: number;
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. It is required when creating resources, although some resources may let the server generate it. Cannot be updated.';
const CREATED_DESCRIPTION =
  'CreationTimestamp is when the server created this object, in RFC 3339 form, UTC. Set by the system; read-only.';

const parsed = new Map<string, JsonPath | null>();

function pathFor(source: string): JsonPath | null {
  let p = parsed.get(source);
  if (p === undefined) {
    try {
      p = JsonPath.parse(source);
    } catch {
      // kube-apiserver accepted the column; a path we cannot read gives empty cells, not a failed list.
      p = null;
    }
    if (parsed.size > 1000) parsed.clear();
    parsed.set(source, p);
  }
  return p;
}

/**
 * Builds a Table of `objects`.
 *
 * With `columns` (a CRD version's printer columns or {@link builtinColumns}), the columns are `Name`
 * and then those columns; `date` cells show an age such as `5m`, missing values give `null` (kubectl
 * prints `<none>`). Without columns (undefined or empty), the Table is kube-apiserver's default one:
 * `Name` and `Created At` (the RFC 3339 creation time).
 */
export function buildTable(
  objects: readonly JsonObject[],
  columns: readonly PrinterColumn[] | undefined,
  opts: TableOptions,
): JsonObject {
  const defs: JsonObject[] = [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
  ];
  const custom = columns && columns.length > 0 ? columns : undefined;
  if (custom) {
    for (const c of custom) {
      defs.push({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority,
      });
    }
  } else {
    defs.push({
      name: 'Created At',
      type: 'date',
      format: '',
      description: CREATED_DESCRIPTION,
      priority: 0,
    });
  }
  const now = opts.now ?? new Date();
  const rows = objects.map((obj) => {
    const metadata = objectAt(obj, 'metadata');
    const cells: unknown[] = [typeof metadata.name === 'string' ? metadata.name : ''];
    if (custom) for (const c of custom) cells.push(cellFor(c, obj, now));
    else
      cells.push(
        typeof metadata.creationTimestamp === 'string' ? metadata.creationTimestamp : '0001-01-01T00:00:00Z',
      );
    const row: JsonObject = { cells };
    if (opts.includeObject === 'Object') row.object = obj;
    else if (opts.includeObject === 'Metadata') {
      row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
    }
    return row;
  });
  const meta: JsonObject = {};
  if (opts.resourceVersion !== undefined) meta.resourceVersion = opts.resourceVersion;
  if (opts.continue) meta.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) meta.remainingItemCount = opts.remainingItemCount;
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta, columnDefinitions: defs, rows };
}

function cellFor(column: PrinterColumn, obj: JsonObject, now: Date): unknown {
  let value: unknown;
  if (column.value) value = column.value(obj);
  else {
    const path = pathFor(column.jsonPath);
    value = path ? path.first(obj) : undefined;
  }
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'date': {
      if (typeof value !== 'string') return null;
      const t = Date.parse(value);
      return Number.isNaN(t) ? null : humanDuration(now.getTime() - t);
    }
    case 'integer':
      if (typeof value === 'number') return Math.trunc(value);
      return typeof value === 'string' && /^[-+]?\d+$/.test(value) ? Number(value) : null;
    case 'number':
      if (typeof value === 'number') return value;
      return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))
        ? Number(value)
        : null;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return value === 'true' || value === 'false' ? value === 'true' : null;
    default:
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return JSON.stringify(value) ?? null;
  }
}

/**
 * The CEL types the CRD-time type check works with, and the type kube-apiserver gives values under a
 * schema node (`integer` is int, `number` double, date-time/date/duration/byte strings timestamp,
 * duration, bytes, int-or-string dyn, objects with their escaped property names).
 */
import type { JsonSchemaProps } from '../../schema-types.js';
import { asSchema, mapValueSchema } from '../../schema-types.js';
import { escapeProperty } from './values.js';

/** A CEL type as the checker sees it. */
export type CelT =
  | {
      k:
        | 'int'
        | 'uint'
        | 'double'
        | 'string'
        | 'bool'
        | 'bytes'
        | 'null'
        | 'timestamp'
        | 'duration'
        | 'dyn'
        | 'type';
    }
  | { k: 'list'; elem: CelT }
  | { k: 'map'; key: CelT; value: CelT }
  | { k: 'object'; fields: Map<string, CelT> }
  | { k: 'optional'; inner: CelT };

export const T = {
  int: { k: 'int' },
  uint: { k: 'uint' },
  double: { k: 'double' },
  string: { k: 'string' },
  bool: { k: 'bool' },
  bytes: { k: 'bytes' },
  null: { k: 'null' },
  timestamp: { k: 'timestamp' },
  duration: { k: 'duration' },
  dyn: { k: 'dyn' },
  type: { k: 'type' },
} as const satisfies Record<string, CelT>;

export const list = (elem: CelT): CelT => ({ k: 'list', elem });
export const map = (key: CelT, value: CelT): CelT => ({ k: 'map', key, value });
export const optional = (inner: CelT): CelT => ({ k: 'optional', inner });

/** cel-go's spelling of a type in its messages. */
export function typeName(t: CelT): string {
  switch (t.k) {
    case 'null':
      return 'null_type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'optional':
      return `optional_type(${typeName(t.inner)})`;
    case 'object':
      return 'object';
    default:
      return t.k;
  }
}

/**
 * The CEL type kube-apiserver gives values under a schema node (k8s.io/apiserver's SchemaDeclType),
 * or undefined where the node is not exposed to CEL: no schema, a schema without a type (other than
 * int-or-string), or a list or map of such. An object is an object type of its declared properties
 * only, whether or not it preserves unknown fields (those are never readable by rules); it is a map
 * only with additionalProperties.
 */
export function typeOfSchema(s: JsonSchemaProps | undefined, root = false, depth = 0): CelT | undefined {
  if (!s) return undefined;
  if (depth > 64 || s['x-kubernetes-int-or-string'] === true) return T.dyn;
  // the root of a resource and an embedded resource are objects with apiVersion, kind and metadata
  const embedded = root || s['x-kubernetes-embedded-resource'] === true;
  switch (embedded ? 'object' : s.type) {
    case 'integer':
      return T.int;
    case 'number':
      return T.double;
    case 'boolean':
      return T.bool;
    case 'string':
      if (s.format === 'byte') return T.bytes;
      if (s.format === 'duration') return T.duration;
      if (s.format === 'date-time' || s.format === 'date') return T.timestamp;
      return T.string;
    case 'array': {
      const items = asSchema(s.items);
      const elem = typeOfSchema(items, items?.['x-kubernetes-embedded-resource'] === true, depth + 1);
      return elem === undefined ? undefined : list(elem);
    }
    case 'object': {
      const mv = mapValueSchema(s);
      if (mv) {
        const value = typeOfSchema(mv, mv['x-kubernetes-embedded-resource'] === true, depth + 1);
        return value === undefined ? undefined : map(T.string, value);
      }
      const fields = new Map<string, CelT>();
      for (const [k, v] of Object.entries(s.properties ?? {})) {
        const name = escapeProperty(k);
        const sub = asSchema(v);
        const type = sub && typeOfSchema(sub, sub['x-kubernetes-embedded-resource'] === true, depth + 1);
        if (name !== undefined && type !== undefined) fields.set(name, type);
      }
      if (embedded) {
        fields.set('apiVersion', T.string);
        fields.set('kind', T.string);
        fields.set('metadata', {
          k: 'object',
          fields: new Map<string, CelT>([
            ['name', T.string],
            ['generateName', T.string],
          ]),
        });
      }
      return { k: 'object', fields };
    }
    default:
      return undefined;
  }
}

/** CEL's timestamp and duration accessors (`getFullYear` ... `getMilliseconds`). */
export const TIME_PARTS = new Set([
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]);

/** The standard CEL functions and operators as a parsed expression names them (macros become comprehensions). */
export const STANDARD_CEL_FUNCTIONS: ReadonlySet<string> = new Set([
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '-_',
  '!_',
  '_&&_',
  '_||_',
  '_?_:_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '@in',
  '_[_]',
  '@not_strictly_false',
  'not_strictly_false',
  'size',
  'contains',
  'startsWith',
  'endsWith',
  'matches',
  'int',
  'uint',
  'double',
  'string',
  'bytes',
  'bool',
  'dyn',
  'type',
  'duration',
  'timestamp',
  ...TIME_PARTS,
]);

/** Identifiers that name CEL types (`int`, `list`, ...): a type value, not a variable. */
export const CEL_TYPE_NAMES: ReadonlySet<string> = new Set([
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
]);

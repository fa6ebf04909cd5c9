/**
 * How an object's JSON becomes CEL values, following the schema as kube-apiserver does: `integer`
 * is CEL `int`, `number` is `double`, `string` with `format: date-time` or `date` / `duration` /
 * `byte` is a timestamp / duration / bytes, objects with `properties` expose their fields under escaped names
 * (`__namespace__`, `foo__dash__bar`), maps and lists follow `additionalProperties` and `items`, and
 * at the root and in embedded resources `apiVersion`, `kind` (declared or not), and only `metadata.name`
 * and `metadata.generateName` of the metadata.
 */
import { durationFromMs, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { CelInput } from '@bufbuild/cel';
import type { JsonSchemaProps } from '../../schema-types.js';
import { asSchema, mapValueSchema } from '../../schema-types.js';

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const IDENT = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The CEL name of a property (kube's escaping), or undefined when CEL cannot address it. */
export function escapeProperty(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  const out = name
    .replaceAll('__', '__underscores__')
    .replaceAll('.', '__dot__')
    .replaceAll('-', '__dash__')
    .replaceAll('/', '__slash__');
  return IDENT.test(out) ? out : undefined;
}

const GO_DURATION = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g;
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3,
  '\u03bcs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** kube-openapi's unit spellings (first the unit, last one matched as a prefix: `days`, `minutes`). */
const KUBE_UNITS: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', '\u00b5s', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];
const KUBE_UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * kube-openapi's `strfmt.ParseDuration`, in milliseconds, for `format: duration` (its check and the
 * CEL value): Go's time.ParseDuration, else whole numbers with units such as `1d`, `2 days`,
 * `3 weeks`, `10 min`. Undefined when the text is not a duration.
 */
export function parseKubeDuration(s: string): number | undefined {
  const go = parseGoDuration(s);
  if (go !== undefined) return go;
  if (!/^\s*(?:\d+\s*[A-Za-z\u00b5]+\s*)+$/.test(s)) return undefined;
  let ms = 0;
  let ok = false;
  for (const [, n, u] of s.matchAll(/(\d+)\s*([A-Za-z\u00b5]+)/g)) {
    const unit = (u ?? '').trim().toLowerCase();
    for (const variants of KUBE_UNITS) {
      const last = variants.length - 1;
      variants.forEach((variant, i) => {
        if ((i === last && unit.startsWith(variant)) || unit === variant) {
          ok = true;
          ms += Number(n) * (KUBE_UNIT_MS[variants[0] ?? ''] ?? 0);
        }
      });
    }
  }
  return ok ? ms : undefined;
}

/** Go's time.ParseDuration, in milliseconds; undefined when the text is not a duration. */
export function parseGoDuration(s: string): number | undefined {
  const m = /^([-+]?)(.*)$/.exec(s)!;
  const body = m[2];
  if (body === '0') return 0;
  if (body === '' || body.replace(GO_DURATION, '') !== '') return undefined;
  let ms = 0;
  for (const [, n, u] of body.matchAll(GO_DURATION)) ms += Number(n) * UNIT_MS[u];
  return m[1] === '-' ? -ms : ms;
}

function scalar(value: string | number | boolean, s: JsonSchemaProps | undefined): CelInput {
  if (typeof value === 'number') {
    if (s?.type === 'number') return value;
    if (s?.type === 'integer' || Number.isInteger(value)) return BigInt(Math.trunc(value));
    return value;
  }
  if (typeof value === 'string' && s?.type === 'string') {
    if (s.format === 'date-time') {
      const d = new Date(value);
      if (!Number.isNaN(d.getTime())) return timestampFromDate(d);
    } else if (s.format === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
      // kube types a `date` string as a timestamp at midnight UTC, as its CEL type check does
      const d = new Date(`${value}T00:00:00Z`);
      if (!Number.isNaN(d.getTime())) return timestampFromDate(d);
    } else if (s.format === 'duration') {
      const ms = parseKubeDuration(value);
      if (ms !== undefined) return durationFromMs(ms);
    } else if (s.format === 'byte') {
      return new Uint8Array(Buffer.from(value, 'base64'));
    }
  }
  return value;
}

/** The CEL value of a JSON value under schema node `s` (undefined: no schema, typed dynamically). */
export function toCel(value: unknown, s: JsonSchemaProps | undefined, root = false): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return scalar(value as string | number | boolean, s);
  if (Array.isArray(value)) {
    const items = s ? asSchema(s.items) : undefined;
    return value.map((v) => toCel(v, items));
  }
  const obj = value as Record<string, unknown>;
  const out = new Map<string, CelInput>();
  const props = s?.properties;
  const mapValues = s ? mapValueSchema(s) : undefined;
  // a resource (the root, or an embedded resource) always has its type and object meta, declared or not
  const resource = root || s?.['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(obj)) {
    if (resource && (k === 'apiVersion' || k === 'kind') && typeof v === 'string') {
      out.set(k, v);
      continue;
    }
    if (resource && k === 'metadata') {
      const meta = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
      const m = new Map<string, CelInput>();
      if (typeof meta.name === 'string') m.set('name', meta.name);
      if (typeof meta.generateName === 'string') m.set('generateName', meta.generateName);
      out.set('metadata', m);
      continue;
    }
    const ps = props ? asSchema(props[k]) : undefined;
    if (ps) {
      const name = escapeProperty(k);
      if (name !== undefined) out.set(name, toCel(v, ps));
    } else if (mapValues) out.set(k, toCel(v, mapValues));
    else if (!props || s?.['x-kubernetes-preserve-unknown-fields'] === true) out.set(k, toCel(v, undefined));
  }
  return out;
}

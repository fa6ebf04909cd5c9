/**
 * Validates a custom resource against its version's schema with ajv and turns ajv's errors into
 * Kubernetes causes worded like kube-openapi's (`spec.replicas in body must be of type integer: "string"`).
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonObject } from '../../types.js';
import { invalid, notSupported, required, tooLong, tooMany, typeInvalid } from '../field-errors.js';
import { isObject, jsonTypeOf } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { kubernetesFormat } from './formats.js';
import { multipleOfKeyword } from './multiple-of.js';
import { compileRe2 } from './re2.js';
import { ENUM_NULL_ADDED, toJsonSchema } from './to-json-schema.js';
import type { LocatedCause } from './located-cause.js';

/** A compiled validator for one version's schema. */
export class SchemaValidator {
  private compiled: ValidateFunction | undefined;

  constructor(private readonly schema: JsonSchemaProps) {}

  /** Validates `obj` (already pruned and defaulted) and returns the causes. */
  validate(obj: JsonObject): LocatedCause[] {
    const fn = this.compile();
    if (fn(obj)) return [];
    return translateErrors(fn.errors ?? [], obj);
  }

  private compile(): ValidateFunction {
    this.compiled ??= compileShared(toJsonSchema(this.schema));
    return this.compiled;
  }
}

// Patterns are Go RE2 in Kubernetes; ajv compiles them through this translation (`code` only names it
// for ajv's standalone mode, which is not used).
const RE2_ENGINE = Object.assign(
  (pattern: string, flags: string) => compileRe2(pattern, flags.replace('u', '')),
  {
    code: 'compileRe2',
  },
);

let shared: Ajv | undefined;

/**
 * Compiles with one shared Ajv instance (building an instance costs far more than compiling a schema).
 * The schema is removed from Ajv's cache right away: the compiled function stands alone, and the
 * instance must not grow with every CRD ever seen.
 */
function compileShared(schema: JsonObject): ValidateFunction {
  shared ??= new Ajv({
    allErrors: true,
    // errors carry their schema node (the enum as the CRD declares it)
    verbose: true,
    strict: false,
    unicodeRegExp: false,
    validateSchema: false,
    addUsedSchema: false,
    code: { regExp: RE2_ENGINE },
    keywords: [multipleOfKeyword],
  });
  // formats are registered under the names schemas use (`date-time` and `datetime` are one check)
  for (const name of formatNames(schema)) {
    const format = kubernetesFormat(name);
    if (format && shared.formats[name] === undefined) shared.addFormat(name, format);
  }
  const fn = shared.compile(schema);
  shared.removeSchema(schema);
  return fn;
}

/** The `format` names a translated schema uses. */
function formatNames(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const x of node) formatNames(x, out);
  else if (isObject(node))
    for (const [k, v] of Object.entries(node)) {
      if (k === 'format' && typeof v === 'string') out.add(v);
      else formatNames(v, out);
    }
  return out;
}

/** Splits an ajv instance path (`/spec/items/0`) into segments, numbers for list indexes. */
function segmentsOf(instancePath: string, obj: JsonObject): (string | number)[] {
  if (instancePath === '') return [];
  const raw = instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const out: (string | number)[] = [];
  let cur: unknown = obj;
  for (const s of raw) {
    if (Array.isArray(cur)) {
      const i = Number(s);
      out.push(i);
      cur = cur[i];
    } else {
      out.push(s);
      cur = isObject(cur) ? cur[s] : undefined;
    }
  }
  return out;
}

/** Renders segments as a Kubernetes field path: `spec.items[0].name`. */
export function renderPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out ? `.${s}` : s;
  }
  return out;
}

function valueAt(obj: JsonObject, segments: readonly (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const s of segments) {
    if (Array.isArray(cur) && typeof s === 'number') cur = cur[s];
    else if (isObject(cur) && typeof s === 'string') cur = cur[s];
    else return undefined;
  }
  return cur;
}

function translateErrors(errors: readonly ErrorObject[], obj: JsonObject): LocatedCause[] {
  // anyOf/oneOf report each failed branch too; kube-openapi reports only the combined failure.
  const combined = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => `${e.schemaPath}/`);
  const out: LocatedCause[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (combined.some((prefix) => e.schemaPath.startsWith(prefix))) continue;
    const located = translate(e, obj);
    if (!located) continue;
    const id = `${located.cause.field}\u0000${located.cause.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(located);
  }
  return out;
}

function translate(e: ErrorObject, obj: JsonObject): LocatedCause | undefined {
  const segments = segmentsOf(e.instancePath, obj);
  const path = renderPath(segments);
  const name = path === '' ? 'body' : path;
  const value = valueAt(obj, segments);
  const params = e.params as Record<string, unknown>;
  const at = (cause: LocatedCause['cause']): LocatedCause => ({ cause, segments });
  switch (e.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      // Located at the parent: that is the value whose change (or not) decides ratcheting.
      return { cause: required(renderPath([...segments, missing])), segments };
    }
    case 'type': {
      const expected = (Array.isArray(params.type) ? params.type : [params.type])
        .filter((t) => t !== 'null')
        .join(',');
      const actual = jsonTypeOf(value);
      return at(
        typeInvalid(path, actual, `${name} in body must be of type ${expected}: ${JSON.stringify(actual)}`),
      );
    }
    case 'enum': {
      // kube-apiserver lists non-string values JSON-encoded, and field.NotSupported quotes them all
      let allowed = (params.allowedValues as unknown[] | undefined) ?? [];
      if (isObject(e.parentSchema) && e.parentSchema[ENUM_NULL_ADDED] === true)
        allowed = allowed.slice(0, -1);
      return at(
        notSupported(
          path,
          value,
          allowed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
        ),
      );
    }
    case 'maximum':
      return at(
        invalid(path, value, `${name} in body should be less than or equal to ${String(params.limit)}`),
      );
    case 'exclusiveMaximum':
      return at(invalid(path, value, `${name} in body should be less than ${String(params.limit)}`));
    case 'minimum':
      return at(
        invalid(path, value, `${name} in body should be greater than or equal to ${String(params.limit)}`),
      );
    case 'exclusiveMinimum':
      return at(invalid(path, value, `${name} in body should be greater than ${String(params.limit)}`));
    case 'maxLength':
      return at(tooLong(path, Number(params.limit)));
    case 'minLength':
      return at(
        invalid(path, value, `${name} in body should be at least ${String(params.limit)} chars long`),
      );
    case 'pattern':
      return at(invalid(path, value, `${name} in body should match '${String(params.pattern)}'`));
    case 'format':
      return at(
        invalid(
          path,
          value,
          `${name} in body must be of type ${String(params.format)}: ${JSON.stringify(value)}`,
        ),
      );
    case 'maxItems':
      return at(tooMany(path, Array.isArray(value) ? value.length : 0, Number(params.limit)));
    case 'minItems':
      return at(invalid(path, value, `${name} in body should have at least ${String(params.limit)} items`));
    case 'multipleOf':
      return at(invalid(path, value, `${name} in body should be a multiple of ${String(params.multipleOf)}`));
    case 'maxProperties':
      // kube-apiserver turns kube-openapi's TooManyProperties into field.TooMany, as maxItems
      return at(tooMany(path, isObject(value) ? Object.keys(value).length : 0, Number(params.limit)));
    case 'minProperties':
      return at(
        invalid(path, value, `${name} in body should have at least ${String(params.limit)} properties`),
      );
    case 'anyOf':
      return at(invalid(path, value, `${name} in body must validate at least one schema (anyOf)`));
    case 'oneOf':
      return at(invalid(path, value, `${name} in body must validate one and only one schema (oneOf)`));
    case 'not':
      return at(invalid(path, value, `${name} in body must not validate the schema (not)`));
    default:
      return at(invalid(path, value, `${name} in body ${e.message ?? 'is invalid'}`));
  }
}

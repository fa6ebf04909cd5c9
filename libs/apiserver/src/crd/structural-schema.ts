/**
 * Checks that a CRD version's `openAPIV3Schema` is structural and uses the `x-kubernetes-*`
 * extensions consistently, as kube-apiserver does before it accepts a v1 CRD.
 */
import type { StatusCause } from '../types.js';
import { child, forbidden, index, invalid, key, notSupported, required } from './field-errors.js';
import type { JsonSchemaProps } from './schema-types.js';
import { asSchema } from './schema-types.js';
import { compileRe2 } from './internal/re2.js';
import { parseRuleFieldPath } from './simple-path.js';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const LIST_TYPES = ['atomic', 'map', 'set'];
const MAP_TYPES = ['atomic', 'granular'];
const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);
/** What a value validation (inside allOf/anyOf/oneOf/not) must not set, and kube-apiserver's words for it. */
const NOT_IN_VALUE_VALIDATION: [string, string][] = [
  ['type', 'must be empty to be structural'],
  ['additionalProperties', 'must be undefined to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
];

type Level = 'root' | 'field' | 'item';

/**
 * Validates a version's `openAPIV3Schema` found at `path`
 * (e.g. `spec.versions[0].schema.openAPIV3Schema`). Returns the causes, sorted as kube-apiserver sorts
 * them; empty when the schema is valid.
 */
export function validateStructuralSchema(schema: JsonSchemaProps, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  walk(schema, path, 'root', errs);
  const text = (c: StatusCause): string => `${c.field}: ${c.message}`;
  return errs.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

/** Where a node sits relative to the ObjectMeta/TypeMeta of the root or of an embedded resource. */
interface MetaContext {
  /** Inside `apiVersion`, `kind` or `metadata` of the root or of an embedded resource. */
  insideMeta: boolean;
  /** Why a `default` is not allowed here (`in top-level metadata`), when it is not. */
  noDefaults?: string;
}

const RESOURCE_META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function walk(
  s: JsonSchemaProps,
  path: string,
  lvl: Level,
  errs: StatusCause[],
  ctx: MetaContext = { insideMeta: false },
): void {
  checkTypeAndExtensions(s, path, lvl, errs);
  checkUnsupported(s, path, errs);
  if (lvl === 'root' && s.nullable === true)
    errs.push(forbidden(child(path, 'nullable'), 'nullable cannot be true at the root'));
  if (s.default !== undefined && ctx.noDefaults !== undefined)
    errs.push(forbidden(child(path, 'default'), `must not be set ${ctx.noDefaults}`));
  if (ctx.insideMeta && s['x-kubernetes-embedded-resource'] === true)
    errs.push(
      forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'),
    );
  if (s.uniqueItems === true) {
    errs.push(
      forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root')
      errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (s.properties && Object.keys(s.properties).length > 0 && s.additionalProperties !== true) {
      errs.push(
        forbidden(
          child(path, 'additionalProperties'),
          'additionalProperties and properties are mutual exclusive',
        ),
      );
    }
    const ap = asSchema(s.additionalProperties);
    // defaults are ambiguous for pruning in maps of object metadata (labels, annotations)
    const apCtx: MetaContext = ctx.insideMeta
      ? { ...ctx, noDefaults: 'inside additionalProperties applying to object metadata' }
      : ctx;
    if (ap) walk(ap, child(path, 'additionalProperties'), 'field', errs, apCtx);
  }
  const resource = lvl === 'root' || s['x-kubernetes-embedded-resource'] === true;
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const p = asSchema(prop);
    let propCtx = ctx;
    if (resource && RESOURCE_META_FIELDS.has(name)) {
      propCtx = { ...ctx, insideMeta: true };
      if (lvl === 'root') propCtx.noDefaults = `in top-level ${name}`;
    }
    if (p) walk(p, key(child(path, 'properties'), name), 'field', errs, propCtx);
    else errs.push(invalid(key(child(path, 'properties'), name), prop, 'must be a schema object'));
  }
  if (s.items !== undefined) {
    const items = asSchema(s.items);
    if (items) walk(items, child(path, 'items'), 'item', errs, ctx);
    else if (Array.isArray(s.items)) {
      errs.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
    } else errs.push(invalid(child(path, 'items'), s.items, 'must be a schema object'));
  } else if (s.type === 'array') {
    errs.push(required(child(path, 'items'), 'must be specified'));
  }
  // The int-or-string exception: anyOf [integer, string] directly or as allOf's first entry.
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  checkValueValidations(
    s,
    path,
    intOrString && isIntOrStringAnyOf(s.anyOf),
    intOrString && isIntOrStringAnyOf(s.allOf?.[0]?.anyOf),
    errs,
  );
  checkValidationRules(s, path, errs);
  checkRequired(s, path, errs);
  checkListType(s, path, errs);
  checkMapListKeysMapSet(s, path, errs);
  checkMapType(s, path, errs);
  if (lvl === 'root' || s['x-kubernetes-embedded-resource'] === true) checkResourceRoot(s, path, lvl, errs);
}

/** allOf/anyOf/oneOf/not and pattern of a node (structural or nested in a value validation). */
function checkValueValidations(
  s: JsonSchemaProps,
  path: string,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  errs: StatusCause[],
  celAllowed = true,
): void {
  // Rules may sit in allOf (kube-apiserver runs them on the same value), not in anyOf/oneOf/not.
  if (!skipAnyOf)
    (s.anyOf ?? []).forEach((v, i) => checkNested(v, index(child(path, 'anyOf'), i), false, errs, false));
  (s.allOf ?? []).forEach((v, i) =>
    checkNested(v, index(child(path, 'allOf'), i), skipFirstAllOfAnyOf && i === 0, errs, celAllowed),
  );
  (s.oneOf ?? []).forEach((v, i) => checkNested(v, index(child(path, 'oneOf'), i), false, errs, false));
  if (asSchema(s.not)) checkNested(s.not as JsonSchemaProps, child(path, 'not'), false, errs, false);
  if (s.pattern !== undefined) {
    if (typeof s.pattern !== 'string')
      errs.push(invalid(child(path, 'pattern'), s.pattern, 'must be a string'));
    else {
      try {
        compileRe2(s.pattern);
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        errs.push(
          invalid(child(path, 'pattern'), s.pattern, `must be a valid regular expression, but isn't: ${why}`),
        );
      }
    }
  }
}

/** A schema inside a value validation: it may only constrain values, never add structure. */
function checkNested(
  v: JsonSchemaProps,
  path: string,
  skipAnyOf: boolean,
  errs: StatusCause[],
  celAllowed: boolean,
): void {
  checkValueValidations(v, path, skipAnyOf, false, errs, celAllowed);
  checkUnsupported(v, path, errs);
  const items = asSchema(v.items);
  if (items) checkNested(items, child(path, 'items'), false, errs, celAllowed);
  for (const [k, sub] of Object.entries(v.properties ?? {})) {
    const p = asSchema(sub);
    if (p) checkNested(p, key(child(path, 'properties'), k), false, errs, celAllowed);
  }
  const rules = v['x-kubernetes-validations'];
  if (!celAllowed && Array.isArray(rules) && rules.length > 0)
    errs.push(forbidden(child(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  for (const [k, message] of NOT_IN_VALUE_VALIDATION) {
    const value = v[k];
    const set =
      value !== undefined && value !== false && value !== '' && !(Array.isArray(value) && value.length === 0);
    if (set) errs.push(forbidden(child(path, k), message));
  }
  if (v.properties && 'metadata' in v.properties) {
    errs.push(
      forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'),
    );
  }
}

/** JSON Schema keywords a CRD schema may not use (kube-apiserver's specStandardValidatorV3), at any node. */
function checkUnsupported(s: JsonSchemaProps, path: string, errs: StatusCause[]): void {
  const nonEmpty = (v: unknown): boolean =>
    v !== undefined && v !== null && !(isPlainObject(v) && Object.keys(v).length === 0);
  if (typeof s.id === 'string' && s.id !== '') errs.push(forbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined && s.additionalItems !== null)
    errs.push(forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (nonEmpty(s.patternProperties))
    errs.push(forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (nonEmpty(s.definitions))
    errs.push(forbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined && s.dependencies !== null)
    errs.push(forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined && s.$ref !== null)
    errs.push(forbidden(child(path, '$ref'), '$ref is not supported'));
  if (s.type === 'null')
    errs.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkTypeAndExtensions(s: JsonSchemaProps, path: string, lvl: Level, errs: StatusCause[]): void {
  const type = s.type;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (type !== undefined && (typeof type !== 'string' || !TYPES.includes(type))) {
    errs.push(notSupported(child(path, 'type'), type, TYPES));
  }
  const preserves = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (embedded && type !== 'object') {
    if (type === undefined || type === '') {
      errs.push(required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    } else
      errs.push(
        invalid(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'),
      );
  } else if ((type === undefined || type === '') && !intOrString && !preserves) {
    const what =
      lvl === 'root'
        ? 'must not be empty at the root'
        : lvl === 'item'
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    errs.push(required(child(path, 'type'), what));
  }
  if (intOrString && preserves) {
    errs.push(
      invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    errs.push(
      invalid(
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (lvl === 'root' && typeof type === 'string' && type !== '' && type !== 'object') {
    errs.push(invalid(child(path, 'type'), type, 'must be object at the root'));
  }
  if (embedded && s.additionalProperties !== undefined) {
    errs.push(
      forbidden(
        child(path, 'additionalProperties'),
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  }
  if (
    embedded &&
    s['x-kubernetes-preserve-unknown-fields'] !== true &&
    Object.keys(s.properties ?? {}).length === 0
  ) {
    errs.push(
      required(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (preserve !== undefined && preserve !== true) {
    errs.push(
      invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), preserve, 'must be true or undefined'),
    );
  }
  for (const ext of ['x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'] as const) {
    const v = s[ext];
    if (v !== undefined && typeof v !== 'boolean')
      errs.push(invalid(child(path, ext), v, 'must be a boolean'));
  }
}

/**
 * `x-kubernetes-validations` must be well-formed. The CEL rules are compiled and costed by
 * `internal/cel/rules.ts` (ruleErrors), as kube-apiserver does.
 */
function checkValidationRules(s: JsonSchemaProps, path: string, errs: StatusCause[]): void {
  const rules = s['x-kubernetes-validations'];
  if (rules === undefined) return;
  const p = child(path, 'x-kubernetes-validations');
  if (!Array.isArray(rules)) {
    errs.push(invalid(p, rules, 'must be a list of validation rules'));
    return;
  }
  rules.forEach((r, i) => {
    const rp = index(p, i);
    const rule = asSchema(r);
    if (!rule) errs.push(invalid(rp, r, 'must be an object'));
    else if (typeof rule.rule !== 'string' || rule.rule.trim() === '') {
      errs.push(required(child(rp, 'rule'), 'rule is not specified'));
    } else if (typeof rule.message === 'string' && rule.message !== '' && rule.message.trim() === '') {
      errs.push(invalid(child(rp, 'message'), rule.message, 'message must be non-empty if specified'));
    } else if (typeof rule.message === 'string' && /[\r\n]/.test(rule.message.trim())) {
      errs.push(invalid(child(rp, 'message'), rule.message, 'message must not contain line breaks'));
    } else if (
      /[\r\n]/.test(rule.rule.trim()) &&
      !(typeof rule.message === 'string' && rule.message.trim() !== '')
    ) {
      errs.push(required(child(rp, 'message'), 'message must be specified if rule contains line breaks'));
    }
    if (rule && typeof rule.messageExpression === 'string' && rule.messageExpression !== '') {
      if (rule.messageExpression.trim() === '')
        errs.push(
          required(child(rp, 'messageExpression'), 'messageExpression must be non-empty if specified'),
        );
    }
    if (rule && typeof rule.fieldPath === 'string' && rule.fieldPath !== '') {
      const fp = child(rp, 'fieldPath');
      if (rule.fieldPath.trim() === '')
        errs.push(invalid(fp, rule.fieldPath, 'fieldPath must be non-empty if specified'));
      if (/[\r\n]/.test(rule.fieldPath))
        errs.push(invalid(fp, rule.fieldPath, 'fieldPath must not contain line breaks'));
      // checked as written, as kube-apiserver does (a leading space is not a path)
      if (!parseRuleFieldPath(rule.fieldPath, s))
        errs.push(invalid(fp, rule.fieldPath, 'fieldPath must be a valid path'));
    }
    if (
      rule &&
      rule.reason !== undefined &&
      !(typeof rule.reason === 'string' && REASONS.includes(rule.reason))
    ) {
      errs.push(notSupported(child(rp, 'reason'), rule.reason, REASONS));
    }
  });
}

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

function isIntOrStringAnyOf(list: readonly JsonSchemaProps[] | undefined): boolean {
  if (!Array.isArray(list) || list.length !== 2) return false;
  const [a, b] = list as [JsonSchemaProps | undefined, JsonSchemaProps | undefined];
  const only = (x: JsonSchemaProps | undefined, type: string): boolean =>
    x !== undefined && x.type === type && Object.keys(x).every((k) => k === 'type');
  return only(a, 'integer') && only(b, 'string');
}

function checkRequired(s: JsonSchemaProps, path: string, errs: StatusCause[]): void {
  if (s.required === undefined) return;
  if (!Array.isArray(s.required)) {
    errs.push(invalid(child(path, 'required'), s.required, 'must be a list of property names'));
    return;
  }
  // A required field that pruning always drops makes every object invalid: reject it up front.
  const keepsUnknown =
    s['x-kubernetes-preserve-unknown-fields'] === true ||
    s.additionalProperties !== undefined ||
    s['x-kubernetes-embedded-resource'] === true;
  const seen = new Set<string>();
  s.required.forEach((name, i) => {
    if (typeof name !== 'string') {
      errs.push(invalid(index(child(path, 'required'), i), name, 'must be a string'));
      return;
    }
    if (seen.has(name))
      errs.push(invalid(index(child(path, 'required'), i), name, 'must not contain duplicate entries'));
    seen.add(name);
    if (!keepsUnknown && s.type === 'object' && !(s.properties && name in s.properties)) {
      errs.push(invalid(index(child(path, 'required'), i), name, 'must be one of the names in properties'));
    }
  });
}

function checkListType(s: JsonSchemaProps, path: string, errs: StatusCause[]): void {
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  const items = asSchema(s.items);
  if (listType !== undefined) {
    if (s.type !== 'array') errs.push(typeMustBe(s, path, 'array if x-kubernetes-list-type is specified'));
    if (typeof listType !== 'string' || !LIST_TYPES.includes(listType)) {
      errs.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, LIST_TYPES));
    }
  }
  if (Array.isArray(keys) && keys.length > 0 && listType !== 'map') {
    const what = 'must be map if x-kubernetes-list-map-keys is non-empty';
    const p = child(path, 'x-kubernetes-list-type');
    errs.push(listType === undefined ? required(p, what) : invalid(p, listType, what));
  }
  if (listType === 'map') {
    if (!Array.isArray(keys) || keys.length === 0) {
      errs.push(
        required(
          child(path, 'x-kubernetes-list-map-keys'),
          'must not be empty if x-kubernetes-list-type is map',
        ),
      );
    }
    if (items && items.type !== 'object') {
      errs.push(
        invalid(
          child(child(path, 'items'), 'type'),
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (Array.isArray(keys) && items) {
      const seen = new Set<string>();
      for (const k of keys) {
        if (seen.has(k)) {
          errs.push(
            invalid(child(path, 'x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'),
          );
        }
        seen.add(k);
        const prop = items.properties?.[k];
        if (!prop) {
          errs.push(
            invalid(
              child(path, 'x-kubernetes-list-map-keys'),
              keys,
              'entries must all be names of item properties',
            ),
          );
        } else if (
          !(prop.type !== undefined && SCALARS.has(prop.type)) &&
          prop['x-kubernetes-int-or-string'] !== true
        ) {
          errs.push(
            invalid(
              child(key(child(child(path, 'items'), 'properties'), k), 'type'),
              prop.type ?? '',
              "must be a scalar type if parent array's x-kubernetes-list-type is map",
            ),
          );
        }
      }
    }
  }
  if (listType === 'set' && items) {
    const t = items.type;
    const atomicMap = t === 'object' && items['x-kubernetes-map-type'] === 'atomic';
    const atomicList = t === 'array' && (items['x-kubernetes-list-type'] ?? 'atomic') === 'atomic';
    if (t !== undefined && !SCALARS.has(t) && !atomicMap && !atomicList) {
      errs.push(
        invalid(
          child(child(path, 'items'), t === 'object' ? 'x-kubernetes-map-type' : 'x-kubernetes-list-type'),
          t === 'object' ? (items['x-kubernetes-map-type'] ?? 'granular') : items['x-kubernetes-list-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
}

/**
 * The items of `set` and `map` lists are not nullable, and a map list's keys are required or
 * defaulted and not nullable (kube-apiserver's validateMapListKeysMapSet, for every new CRD).
 */
function checkMapListKeysMapSet(s: JsonSchemaProps, path: string, errs: StatusCause[]): void {
  const listType = s['x-kubernetes-list-type'];
  const items = asSchema(s.items);
  if (!items || (listType !== 'set' && listType !== 'map')) return;
  const itemsPath = child(path, 'items');
  if (items.nullable === true)
    errs.push(
      forbidden(
        child(itemsPath, 'nullable'),
        `cannot be nullable when x-kubernetes-list-type is ${listType}`,
      ),
    );
  if (listType !== 'map') return;
  const keys = s['x-kubernetes-list-map-keys'];
  const requiredNames = Array.isArray(items.required) ? items.required : [];
  for (const k of Array.isArray(keys) ? keys : []) {
    const prop = asSchema(items.properties?.[k]);
    if (!prop) continue; // checkListType reports a key that is not a property
    const propPath = key(child(itemsPath, 'properties'), k);
    if (!requiredNames.includes(k) && prop.default === undefined)
      errs.push(
        required(
          child(propPath, 'default'),
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ),
      );
    if (prop.nullable === true)
      errs.push(
        forbidden(
          child(propPath, 'nullable'),
          'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
        ),
      );
  }
}

function checkMapType(s: JsonSchemaProps, path: string, errs: StatusCause[]): void {
  const mapType = s['x-kubernetes-map-type'];
  if (mapType === undefined) return;
  if (typeof mapType !== 'string' || !MAP_TYPES.includes(mapType)) {
    errs.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, MAP_TYPES));
  }
  if (s.type !== 'object') errs.push(typeMustBe(s, path, 'object if x-kubernetes-map-type is specified'));
}

/** `type: Required value: must be <what>` when absent, `Invalid value` otherwise. */
function typeMustBe(s: JsonSchemaProps, path: string, what: string): StatusCause {
  const p = child(path, 'type');
  return s.type === undefined || s.type === ''
    ? required(p, `must be ${what}`)
    : invalid(p, s.type, `must be ${what}`);
}

/** The root and embedded resources: apiVersion/kind are strings, metadata only restricts name/generateName. */
function checkResourceRoot(s: JsonSchemaProps, path: string, lvl: Level, errs: StatusCause[]): void {
  const props = s.properties ?? {};
  for (const name of ['apiVersion', 'kind'] as const) {
    const p = asSchema(props[name]);
    if (p && p.type !== 'string') {
      errs.push(invalid(child(key(child(path, 'properties'), name), 'type'), p.type ?? '', 'must be string'));
    }
  }
  const metadata = asSchema(props.metadata);
  if (!metadata) return;
  const mpath = key(child(path, 'properties'), 'metadata');
  if (metadata.type !== 'object') {
    errs.push(invalid(child(mpath, 'type'), metadata.type ?? '', 'must be object'));
  }
  // kube-apiserver compares the structural node (description and title included) with a bare
  // object; the default is reported on its own (must not be set in top-level metadata)
  const allowedTop = new Set(['type', 'properties', 'default', 'example', 'externalDocs']);
  const extraTop = Object.keys(metadata).filter((k) => !allowedTop.has(k));
  const extraProps = Object.keys(metadata.properties ?? {}).filter(
    (k) => k !== 'name' && k !== 'generateName',
  );
  let nameProblem = false;
  for (const n of ['name', 'generateName'] as const) {
    const p = asSchema(metadata.properties?.[n]);
    if (p && p.type !== 'string') nameProblem = true;
  }
  if (lvl === 'root' && (extraTop.length > 0 || extraProps.length > 0 || nameProblem)) {
    errs.push(
      forbidden(
        mpath,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  }
}

import { InvalidResourceDefinitionError } from './errors.js';

/** A JSON Schema node as Kubernetes' `JSONSchemaProps` has it. */
export type JsonSchemaProps = { [key: string]: unknown };

/** Keywords Kubernetes' `JSONSchemaProps` knows (apiextensions.k8s.io/v1). */
const KNOWN = new Set([
  'type',
  'format',
  'title',
  'description',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'nullable',
  'example',
  'externalDocs',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
/** TypeBox/JSON Schema keywords with no meaning in a CRD, dropped. */
const DROPPED = new Set(['$id', '$schema', 'examples']);
/** What a logical junctor (allOf, anyOf, oneOf, not) may not hold in a structural schema. */
const NOT_IN_JUNCTORS = [
  'type',
  'properties',
  'additionalProperties',
  'items',
  'description',
  'default',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
];
const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);
const TYPES = new Set([...SCALARS, 'object', 'array']);

const isObject = (v: unknown): v is JsonSchemaProps =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Turns a TypeBox schema into the structural `openAPIV3Schema` form Kubernetes accepts, and checks
 * it: literal unions become `enum`, `T | null` becomes `nullable`, `Type.Record` becomes
 * `additionalProperties`, `Type.Unknown()` keeps unknown fields, numeric `exclusiveMinimum` becomes
 * the boolean form. TypeBox's symbol keys are dropped.
 *
 * @param crd - the CRD name, for error messages.
 * @param path - the field path of `schema`, for error messages.
 * @throws InvalidResourceDefinitionError naming the field that Kubernetes would reject.
 */
export function toStructuralSchema(schema: unknown, crd: string, path: string): JsonSchemaProps {
  const fail = (field: string, message: string): never => {
    throw new InvalidResourceDefinitionError(crd, field, message);
  };
  const walk = (input: unknown, at: string, inJunctor: boolean): JsonSchemaProps => {
    if (!isObject(input)) return fail(at, 'a schema must be an object');
    const node: JsonSchemaProps = {};
    for (const [key, value] of Object.entries(input)) {
      if (DROPPED.has(key)) continue;
      node[key] = value;
    }
    // T | null → nullable; literal unions → enum
    if (Array.isArray(node['anyOf'])) {
      let members = (node['anyOf'] as unknown[]).filter(isObject);
      if (members.some((m) => m['type'] === 'null')) {
        members = members.filter((m) => m['type'] !== 'null');
        node['nullable'] = true;
      }
      const literalType = members[0]?.['type'];
      if (members.length > 0 && members.every((m) => 'const' in m && m['type'] === literalType)) {
        delete node['anyOf'];
        node['type'] = literalType;
        node['enum'] = members.map((m) => m['const']);
      } else if (members.length === 1) {
        delete node['anyOf'];
        const { description, default: def, nullable } = node;
        Object.assign(node, members[0]);
        if (description !== undefined) node['description'] = description;
        if (def !== undefined) node['default'] = def;
        if (nullable !== undefined) node['nullable'] = nullable;
      } else {
        node['anyOf'] = members;
      }
    }
    if ('const' in node) {
      node['enum'] = [node['const']];
      delete node['const'];
    }
    if (isObject(node['patternProperties'])) {
      const entries = Object.entries(node['patternProperties']);
      if (entries.length !== 1 || entries[0][0] !== '^(.*)$') {
        fail(
          `${at}.patternProperties`,
          'CRD schemas have no patternProperties; use Type.Record(Type.String(), ...)',
        );
      }
      node['additionalProperties'] = entries[0][1];
      delete node['patternProperties'];
    }
    for (const bound of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
      if (typeof node[bound] === 'number') {
        node[bound === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = node[bound];
        node[bound] = true;
      }
    }
    const keys = Object.keys(node);
    const meaningful = keys.filter((k) => !['description', 'title', 'default', 'example'].includes(k));
    if (!inJunctor && meaningful.length === 0) node['x-kubernetes-preserve-unknown-fields'] = true;
    for (const key of Object.keys(node)) {
      if (!KNOWN.has(key)) {
        fail(
          `${at}.${key}`,
          `"${key}" is not a keyword of CRD schemas (Kubernetes' JSONSchemaProps); remove it`,
        );
      }
    }
    // structural rules
    const type = node['type'];
    const intOrString = node['x-kubernetes-int-or-string'] === true;
    const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
    if (inJunctor) {
      for (const k of NOT_IN_JUNCTORS) {
        if (k in node) {
          fail(
            `${at}.${k}`,
            `a schema inside allOf/anyOf/oneOf/not may hold value validations only, not "${k}" (structural schema); declare the type outside`,
          );
        }
      }
    } else if (type === undefined && !intOrString && !preserve) {
      fail(
        `${at}.type`,
        'every field needs a type in a structural schema (or K8s.IntOrString / K8s.PreserveUnknownFields)',
      );
    }
    if (type !== undefined && (typeof type !== 'string' || !TYPES.has(type))) {
      fail(`${at}.type`, `type ${JSON.stringify(type)} is not one of ${[...TYPES].join(', ')}`);
    }
    if (intOrString && type !== undefined) {
      fail(`${at}.type`, 'an x-kubernetes-int-or-string field must not declare a type');
    }
    if (node['additionalProperties'] === false) {
      fail(
        `${at}.additionalProperties`,
        'additionalProperties: false is not allowed (unknown fields are pruned anyway); remove it',
      );
    }
    if (node['additionalProperties'] !== undefined && node['properties'] !== undefined) {
      fail(
        `${at}.additionalProperties`,
        'properties and additionalProperties exclude each other in a CRD schema',
      );
    }
    if (node['uniqueItems'] === true) {
      fail(`${at}.uniqueItems`, 'uniqueItems is not allowed in CRD schemas; use K8s.ListSet');
    }
    if (
      (node['properties'] !== undefined || node['additionalProperties'] !== undefined) &&
      type !== 'object'
    ) {
      fail(`${at}.type`, 'a schema with properties must have type object');
    }
    if (type === 'array' && !isObject(node['items'])) {
      fail(`${at}.items`, 'an array needs one items schema');
    }
    // recurse
    if (isObject(node['properties'])) {
      const props: JsonSchemaProps = {};
      for (const [name, value] of Object.entries(node['properties'])) {
        props[name] = walk(value, `${at}.properties.${name}`, inJunctor);
      }
      node['properties'] = props;
    }
    if (isObject(node['additionalProperties'])) {
      node['additionalProperties'] = walk(
        node['additionalProperties'],
        `${at}.additionalProperties`,
        inJunctor,
      );
    }
    if (node['items'] !== undefined) {
      if (!isObject(node['items']))
        fail(`${at}.items`, 'items must be a single schema (tuples are not allowed)');
      node['items'] = walk(node['items'], `${at}.items`, inJunctor);
    }
    for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
      if (node[junctor] !== undefined) {
        const members = node[junctor];
        if (!Array.isArray(members)) return fail(`${at}.${junctor}`, 'must be a list of schemas');
        node[junctor] = members.map((m: unknown, i) =>
          intOrString ? m : walk(m, `${at}.${junctor}[${i}]`, true),
        );
      }
    }
    if (node['not'] !== undefined) node['not'] = walk(node['not'], `${at}.not`, true);
    checkListType(node, at, fail);
    checkValidations(node, at, fail);
    return order(node);
  };
  return walk(schema, path, false);
}

function checkListType(node: JsonSchemaProps, at: string, fail: (f: string, m: string) => never): void {
  const listType = node['x-kubernetes-list-type'];
  const keys = node['x-kubernetes-list-map-keys'];
  if (listType === undefined) {
    if (keys !== undefined) fail(`${at}.x-kubernetes-list-map-keys`, 'needs x-kubernetes-list-type: map');
    return;
  }
  if (node['type'] !== 'array') fail(`${at}.x-kubernetes-list-type`, 'only arrays have a list type');
  const items = node['items'] as JsonSchemaProps;
  if (listType === 'set' && !SCALARS.has(String(items['type']))) {
    fail(
      `${at}.x-kubernetes-list-type`,
      'a set holds scalars only; use a map list (K8s.ListMap) for objects',
    );
  }
  if (listType === 'map') {
    if (!Array.isArray(keys) || keys.length === 0) {
      fail(`${at}.x-kubernetes-list-map-keys`, 'a map list needs at least one key');
    }
    if (items['type'] !== 'object') fail(`${at}.items.type`, 'the items of a map list must be objects');
    const props = (items['properties'] ?? {}) as JsonSchemaProps;
    const required = (items['required'] ?? []) as string[];
    for (const key of keys as string[]) {
      const prop = props[key] as JsonSchemaProps | undefined;
      if (!prop) fail(`${at}.x-kubernetes-list-map-keys`, `key "${key}" is not a property of the items`);
      if (!SCALARS.has(String(prop['type']))) {
        fail(`${at}.items.properties.${key}`, 'a map list key must be a scalar');
      }
      if (!required.includes(key) && prop['default'] === undefined) {
        fail(`${at}.items.required`, `map list key "${key}" must be required or have a default`);
      }
    }
  } else if (listType !== 'set' && listType !== 'atomic') {
    fail(`${at}.x-kubernetes-list-type`, `${JSON.stringify(listType)} is not one of atomic, set, map`);
  }
}

function checkValidations(node: JsonSchemaProps, at: string, fail: (f: string, m: string) => never): void {
  const rules = node['x-kubernetes-validations'];
  if (rules === undefined) return;
  if (!Array.isArray(rules)) fail(`${at}.x-kubernetes-validations`, 'must be a list of { rule, message }');
  (rules as unknown[]).forEach((r, i) => {
    if (!isObject(r) || typeof r['rule'] !== 'string' || !r['rule'].trim()) {
      fail(`${at}.x-kubernetes-validations[${i}].rule`, 'a validation needs a CEL expression in rule');
    }
  });
}

/** Kubernetes' usual key order, so generated YAML reads like hand-written CRDs and diffs stay stable. */
const ORDER = [
  'type',
  'description',
  'format',
  'default',
  'nullable',
  'enum',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'required',
];
function order(node: JsonSchemaProps): JsonSchemaProps {
  const rank = (k: string) => {
    const i = ORDER.indexOf(k);
    return i >= 0 ? i : k.startsWith('x-kubernetes-') ? 200 : 100;
  };
  const sorted: JsonSchemaProps = {};
  for (const k of Object.keys(node).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)))
    sorted[k] = node[k];
  return sorted;
}

/**
 * What kube-apiserver checks when a `CustomResourceDefinition` (apiextensions.k8s.io/v1) is created or
 * updated.
 */
import type { JsonObject, StatusCause } from '../types.js';
import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  key,
  notSupported,
  required,
  tooMany,
} from './field-errors.js';
import { API_APPROVED_ANNOTATION, apiApprovalState, isProtectedGroup } from './api-approval.js';
import { arrayAt, isObject, jsonEqual, objectAt, stringAt } from './json-util.js';
import { isDns1035Label, isDns1123Subdomain } from './name-validation.js';
import type { JsonSchemaProps } from './schema-types.js';
import { asSchema, mapValueSchema } from './schema-types.js';
import { parseSimplePath } from './simple-path.js';
import { validateDefaults } from './internal/default-validation.js';
import { validateStructuralSchema } from './structural-schema.js';
import { ruleErrors } from './internal/cel/rules.js';

/** Most selectable fields one version may declare. */
export const MAX_SELECTABLE_FIELDS = 8;

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/**
 * Validates a CRD as kube-apiserver does on create (and, with `old`, on update).
 *
 * @param crd - the CustomResourceDefinition as sent (listKind may be absent: it defaults to `<kind>List`).
 * @param old - the stored CRD when this is an update; enables the immutability and stored-version rules.
 * @returns the causes, with Kubernetes field paths and messages; empty when the CRD is valid.
 */
export function validateCrd(crd: JsonObject, old?: JsonObject): StatusCause[] {
  const errs = [...validateCreate(crd), ...validateApiApproval(crd, old)];
  return old ? [...errs, ...validateUpdate(crd, old)] : errs;
}

/**
 * The checks of a CRD's definition alone (what {@link validateCrd} checks on create, less the
 * approval annotation of protected groups, which an update may leave as it was): a stored CRD that
 * passes them can be served.
 */
export function validateCrdDefinition(crd: JsonObject): StatusCause[] {
  return validateCreate(crd);
}

/**
 * A CRD of a protected group needs an approval annotation on create, and on an update that changes
 * its approval state (validation.go validateAPIApproval).
 */
function validateApiApproval(crd: JsonObject, old: JsonObject | undefined): StatusCause[] {
  if (!isProtectedGroup(stringAt(objectAt(crd, 'spec'), 'group') ?? '')) return [];
  const { state, reason } = apiApprovalState(crd);
  if (old && apiApprovalState(old).state === state) return [];
  const field = key('metadata.annotations', API_APPROVED_ANNOTATION);
  const annotations = objectAt(crd, 'metadata').annotations;
  const value = isObject(annotations) ? annotations[API_APPROVED_ANNOTATION] : undefined;
  if (state === 'Missing') return [required(field, reason)];
  if (state === 'Invalid') return [invalid(field, value ?? '', reason)];
  return [];
}

// The engine validates a CRD and then compiles it (which validates again): remember recent results.
const recent = new Map<string, StatusCause[]>();

function validateCreate(crd: JsonObject): StatusCause[] {
  const key = JSON.stringify([crd.metadata, crd.spec]);
  const hit = recent.get(key);
  if (hit) return hit.map((c) => ({ ...c }));
  const errs = validateUncached(crd);
  if (recent.size >= 32) recent.delete(recent.keys().next().value as string);
  recent.set(key, errs);
  return errs.map((c) => ({ ...c }));
}

function validateUncached(crd: JsonObject): StatusCause[] {
  const errs: StatusCause[] = [];
  const spec = objectAt(crd, 'spec');
  const names = objectAt(spec, 'names');
  const group = stringAt(spec, 'group') ?? '';
  const plural = stringAt(names, 'plural') ?? '';

  const name = stringAt(objectAt(crd, 'metadata'), 'name') ?? '';
  if (name === '') {
    errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const e of isDns1123Subdomain(name)) errs.push(invalid('metadata.name', name, e));
    if (name !== `${plural}.${group}`)
      errs.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }

  if (group === '') errs.push(required('spec.group'));
  else {
    const dns = isDns1123Subdomain(group);
    if (dns.length > 0) errs.push(invalid('spec.group', group, dns.join(',')));
    else if (!group.includes('.'))
      errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }

  const scope = spec.scope;
  if (scope === undefined || scope === '') errs.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') {
    errs.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  }

  errs.push(...validateNames(names, 'spec.names', true));
  errs.push(...validateVersions(spec));
  errs.push(...validateConversion(spec));

  if (spec.preserveUnknownFields === true) {
    errs.push(
      invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }

  return errs;
}

function validateNames(names: JsonObject, path: string, requireAll: boolean): StatusCause[] {
  const errs: StatusCause[] = [];
  const kind = stringAt(names, 'kind') ?? '';
  const listKind = stringAt(names, 'listKind') ?? (kind ? `${kind}List` : '');
  const fields: [string, string, boolean][] = [
    ['plural', stringAt(names, 'plural') ?? '', false],
    ['singular', stringAt(names, 'singular') ?? '', false],
    ['kind', kind, true],
    ['listKind', listKind, true],
  ];
  for (const [field, value, mixedCase] of fields) {
    const p = child(path, field);
    if (value === '') {
      // singular defaults to the lower-cased kind in a real server, so only plural and kind are required here.
      if (requireAll && (field === 'plural' || field === 'kind')) errs.push(required(p));
      continue;
    }
    const dns = isDns1035Label(mixedCase ? value.toLowerCase() : value);
    if (dns.length > 0) {
      errs.push(
        invalid(
          p,
          value,
          mixedCase ? `may have mixed case, but should otherwise match: ${dns.join(',')}` : dns.join(','),
        ),
      );
    }
  }
  if (kind !== '' && kind === listKind)
    errs.push(invalid(child(path, 'listKind'), listKind, 'kind and listKind may not be the same'));
  for (const list of ['shortNames', 'categories'] as const) {
    arrayAt(names, list).forEach((v, i) => {
      const p = index(child(path, list), i);
      if (typeof v !== 'string') errs.push(invalid(p, v, 'must be a string'));
      else for (const e of isDns1035Label(v)) errs.push(invalid(p, v, e));
    });
  }
  return errs;
}

function validateVersions(spec: JsonObject): StatusCause[] {
  const errs: StatusCause[] = [];
  const versions: unknown[] = Array.isArray(spec.versions) ? (spec.versions as unknown[]) : [];
  if (versions.length === 0) {
    errs.push(invalid('spec.versions', [], 'must have exactly one version marked as storage version'));
    return errs;
  }
  const seen = new Set<string>();
  let storage = 0;
  let duplicateNames = false;
  versions.forEach((raw, i) => {
    const path = index('spec.versions', i);
    if (!isObject(raw)) {
      errs.push(invalid(path, raw, 'must be an object'));
      return;
    }
    const name = stringAt(raw, 'name') ?? '';
    if (name === '') errs.push(required(child(path, 'name')));
    else {
      const dns = isDns1035Label(name);
      if (dns.length > 0) errs.push(invalid(child(path, 'name'), name, dns.join(',')));
    }
    if (seen.has(name)) duplicateNames = true;
    seen.add(name);
    if (raw.storage === true) storage++;
    for (const flag of ['served', 'storage'] as const) {
      if (typeof raw[flag] !== 'boolean') errs.push(required(child(path, flag)));
    }
    if (raw.deprecationWarning !== undefined && raw.deprecated !== true) {
      errs.push(
        invalid(
          child(path, 'deprecationWarning'),
          raw.deprecationWarning,
          'can only be set for deprecated versions',
        ),
      );
    }
    errs.push(...validateVersion(raw, path));
  });
  const names = versions.map((v) => (isObject(v) ? v.name : v));
  if (duplicateNames) errs.push(invalid('spec.versions', names, 'must contain unique version names'));
  if (storage !== 1) {
    errs.push(invalid('spec.versions', names, 'must have exactly one version marked as storage version'));
  }
  return errs;
}

function validateVersion(version: JsonObject, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const schemaPath = child(child(path, 'schema'), 'openAPIV3Schema');
  const schema = asSchema(objectAt(version, 'schema').openAPIV3Schema);
  if (!schema) errs.push(required(schemaPath, 'schemas are required'));
  else {
    if (objectAt(version, 'subresources').status !== undefined)
      errs.push(...statusRootErrors(schema, schemaPath));
    const structural = validateStructuralSchema(schema, schemaPath);
    errs.push(...structural);
    // Defaults are checked only against a structural schema, as kube-apiserver does.
    if (structural.length === 0) errs.push(...validateDefaults(schema, schemaPath));
    // CEL rules must compile and stay within the estimated cost limits.
    if (structural.length === 0) errs.push(...ruleErrors(schema, schemaPath));
  }

  arrayAt(version, 'additionalPrinterColumns').forEach((col, i) => {
    errs.push(...validateColumn(col, index(child(path, 'additionalPrinterColumns'), i)));
  });

  errs.push(
    ...validateSelectableFields(
      arrayAt(version, 'selectableFields'),
      schema,
      child(path, 'selectableFields'),
    ),
  );

  errs.push(...validateSubresources(objectAt(version, 'subresources'), child(path, 'subresources')));
  return errs;
}

/** The JSONSchemaProps fields (Go names) kube-apiserver allows at the root when `/status` is a subresource. */
const ALLOWED_AT_ROOT_WITH_STATUS = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];
/**
 * The JSONSchemaProps fields that are not allowed there, by JSON name (the status schema is extracted
 * as properties.status: nothing at the root may constrain it). Keys outside JSONSchemaProps are
 * dropped by kube-apiserver's decoder and do not count.
 */
const POINTER_FIELDS = [
  'default',
  'additionalProperties',
  'additionalItems',
  'not',
  '$ref',
  'maxProperties',
  'minProperties',
];
const VALUE_FIELDS = [
  'id',
  '$schema',
  'enum',
  'allOf',
  'oneOf',
  'anyOf',
  'patternProperties',
  'dependencies',
  'definitions',
  'nullable',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
];

/** A set field in Go's sense: a pointer that is not nil, or a value that is not its zero value. */
function isSetAtRoot(schema: JsonObject, k: string): boolean {
  const v = schema[k];
  if (v === undefined || v === null) return false;
  if (POINTER_FIELDS.includes(k)) return true;
  if (v === false || v === '' || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  return true;
}

/**
 * With the status subresource, only some fields may be set at the root of the schema
 * (validation.go validateCustomResourceDefinitionValidation); one cause for the whole schema.
 */
function statusRootErrors(schema: JsonObject, path: string): StatusCause[] {
  const other = [...POINTER_FIELDS, ...VALUE_FIELDS].some((k) => isSetAtRoot(schema, k));
  if (!other) return [];
  return [
    invalid(
      path,
      schema,
      `only [${ALLOWED_AT_ROOT_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
    ),
  ];
}

/**
 * Selectable fields as kube-apiserver checks them (validation.go ValidateCustomResourceSelectableFields):
 * each path resolved against the schema (cel.ValidFieldPath without array notation), not under
 * metadata, of a scalar type, not repeated; at most eight valid distinct paths.
 */
function validateSelectableFields(
  selectable: unknown[],
  schema: JsonSchemaProps | undefined,
  path: string,
): StatusCause[] {
  const errs: StatusCause[] = [];
  const unique = new Set<string>();
  selectable.forEach((sf, i) => {
    const p = child(index(path, i), 'jsonPath');
    const jsonPath = isObject(sf) ? stringAt(sf, 'jsonPath') : undefined;
    if (!jsonPath) {
      errs.push(required(p));
      return;
    }
    if (!schema) return;
    const found = resolveFieldPath(jsonPath, schema);
    if ('error' in found) {
      errs.push(invalid(p, jsonPath, `is an invalid path: ${found.error}`));
      return;
    }
    if (found.path.startsWith('metadata.') || found.path === 'metadata' || found.path.startsWith('metadata['))
      errs.push(invalid(p, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'integer', 'boolean'].includes(found.schema?.type ?? ''))
      errs.push(
        invalid(
          p,
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    if (unique.has(found.path)) errs.push(duplicate(p, jsonPath));
    else unique.add(found.path);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

/**
 * kube-apiserver's cel.ValidFieldPath without array notation: `.name` steps, each a property of an
 * object or a key of a map. The field path (`spec.labels[tier]`) and its schema, or why it is not valid.
 */
function resolveFieldPath(
  jsonPath: string,
  root: JsonSchemaProps,
): { path: string; schema: JsonSchemaProps | undefined } | { error: string } {
  const tokens = jsonPath.match(/[.[\]]|[^.[\]]+/g) ?? [];
  let s: JsonSchemaProps | undefined = root;
  let path = '';
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] ?? '';
    if (tok === '[') return { error: 'array notation is not allowed' };
    if (tok !== '.') return { error: `expected [ or . but got: ${tok}` };
    const name = tokens[++i];
    if (name === undefined) return { error: 'unexpected end of JSON path' };
    const props = s?.properties;
    if (props && Object.keys(props).length > 0) {
      const next = asSchema(props[name]);
      if (!next) return { error: 'does not refer to a valid field' };
      s = next;
      path = path ? `${path}.${name}` : name;
    } else if (s?.additionalProperties !== undefined) {
      s = mapValueSchema(s);
      path = `${path}[${name}]`;
    } else return { error: 'does not refer to a valid field' };
  }
  return { path, schema: s };
}

function validateColumn(col: unknown, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (!isObject(col)) return [invalid(path, col, 'must be an object')];
  if (!stringAt(col, 'name')) errs.push(required(child(path, 'name')));
  const types = `must be one of ${COLUMN_TYPES.join(',')}`;
  const type = col.type;
  if (type === undefined || type === '') errs.push(required(child(path, 'type'), types));
  else if (typeof type !== 'string' || !COLUMN_TYPES.includes(type))
    errs.push(invalid(child(path, 'type'), type, types));
  const format = col.format;
  if (
    format !== undefined &&
    format !== '' &&
    (typeof format !== 'string' || !COLUMN_FORMATS.includes(format))
  ) {
    errs.push(invalid(child(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  }
  // kube-apiserver spells this path `JSONPath` (the Go field name), not `jsonPath`.
  const jsonPath = col.jsonPath;
  if (jsonPath === undefined || jsonPath === '') errs.push(required(child(path, 'JSONPath')));
  else if (typeof jsonPath !== 'string' || !jsonPath.startsWith('.')) {
    errs.push(invalid(child(path, 'JSONPath'), jsonPath, 'must be a simple json path starting with .'));
  }
  return errs;
}

function validateSubresources(sub: JsonObject, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (sub.scale === undefined) return errs;
  const scale = objectAt(sub, 'scale');
  const scalePath = child(path, 'scale');
  const checks: [string, string[], string, boolean][] = [
    ['specReplicasPath', ['spec'], 'should be a json path under .spec', true],
    ['statusReplicasPath', ['status'], 'should be a json path under .status', true],
    ['labelSelectorPath', ['spec', 'status'], 'should be a json path under either .spec or .status', false],
  ];
  for (const [field, roots, message, mandatory] of checks) {
    const p = child(scalePath, field);
    const v = scale[field];
    if (v === undefined || v === '') {
      if (mandatory) errs.push(required(p));
      continue;
    }
    const parts = typeof v === 'string' ? parseSimplePath(v) : undefined;
    if (!parts) errs.push(invalid(p, v, 'must be a simple json path starting with .'));
    else if (parts.length < 2 || !roots.includes(parts[0] ?? '')) errs.push(invalid(p, v, message));
  }
  return errs;
}

/**
 * The conversion settings, as kube-apiserver checks them (validation.go validateCustomResourceConversion).
 * It checks the internal type, where `webhook.clientConfig` and `webhook.conversionReviewVersions` are
 * `webhookClientConfig` and `conversionReviewVersions` of `conversion`: its causes use those paths.
 */
function validateConversion(spec: JsonObject): StatusCause[] {
  const errs: StatusCause[] = [];
  if (spec.conversion === undefined) return errs;
  const conversion = objectAt(spec, 'conversion');
  const path = 'spec.conversion';
  const strategy = conversion.strategy ?? 'None';
  if (strategy !== 'None' && strategy !== 'Webhook') {
    errs.push(notSupported(child(path, 'strategy'), strategy, ['None', 'Webhook']));
    return errs;
  }
  const webhook = objectAt(conversion, 'webhook');
  const clientConfig = isObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions = Array.isArray(webhook.conversionReviewVersions)
    ? webhook.conversionReviewVersions
    : [];
  const ccPath = child(path, 'webhookClientConfig');
  const rvPath = child(path, 'conversionReviewVersions');
  if (strategy === 'None') {
    const why = 'should not be set when strategy is not set to Webhook';
    if (clientConfig) errs.push(forbidden(ccPath, why));
    if (reviewVersions.length > 0) errs.push(forbidden(rvPath, why));
    return errs;
  }
  if (!clientConfig) errs.push(required(ccPath, 'required when strategy is set to Webhook'));
  else {
    const url = typeof clientConfig.url === 'string' ? clientConfig.url : undefined;
    const service = isObject(clientConfig.service) ? clientConfig.service : undefined;
    if ((url === undefined) === (service === undefined))
      errs.push(required(ccPath, 'exactly one of url or service is required'));
    else if (url !== undefined) errs.push(...validateWebhookUrl(child(ccPath, 'url'), url));
    else if (service) errs.push(...validateWebhookService(child(ccPath, 'service'), service));
  }
  errs.push(...validateReviewVersions(rvPath, reviewVersions));
  return errs;
}

/** The parts of a URL Go's url.Parse reads (scheme, host, user information, query, fragment). */
function urlParts(raw: string): {
  scheme: string;
  host: string;
  user?: string;
  query: string;
  fragment: string;
} {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) [rest, fragment] = [rest.slice(0, hash), rest.slice(hash + 1)];
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest)?.[1] ?? '';
  if (scheme) rest = rest.slice(scheme.length + 1);
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) [rest, query] = [rest.slice(0, q), rest.slice(q + 1)];
  if (!rest.startsWith('//')) return { scheme, host: '', query, fragment };
  const end = rest.indexOf('/', 2);
  const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
  const at = authority.lastIndexOf('@');
  const parts = { scheme, host: at < 0 ? authority : authority.slice(at + 1), query, fragment };
  return at < 0 ? parts : { ...parts, user: authority.slice(0, at) };
}

/** apiserver util/webhook ValidateWebhookURL with https required. */
function validateWebhookUrl(path: string, raw: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const form = '; desired format: https://host[/path]';
  const u = urlParts(raw);
  if (u.scheme !== 'https')
    errs.push(invalid(path, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(invalid(path, u.host, `host must be specified${form}`));
  if (u.user !== undefined) errs.push(invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') errs.push(invalid(path, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

/** apiserver util/webhook ValidateWebhookService (port defaults to 443). */
function validateWebhookService(path: string, service: JsonObject): StatusCause[] {
  const errs: StatusCause[] = [];
  // kube-apiserver passes the service's name and namespace to ValidateWebhookService swapped, so a
  // missing namespace is reported as the name and the other way round
  if (!stringAt(service, 'namespace')) errs.push(required(child(path, 'name'), 'service name is required'));
  if (!stringAt(service, 'name'))
    errs.push(required(child(path, 'namespace'), 'service namespace is required'));
  const port = service.port ?? 443;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    errs.push(
      invalid(child(path, 'port'), port, 'port is not valid: must be between 1 and 65535, inclusive'),
    );
  const urlPath = stringAt(service, 'path');
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errs;
  const p = child(path, 'path');
  if (urlPath === '//') return [...errs, invalid(p, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(invalid(p, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step === '') errs.push(invalid(p, urlPath, `segment[${i}] may not be empty`));
    else
      for (const failure of isDns1123Subdomain(step))
        errs.push(invalid(p, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** validation.go validateConversionReviewVersions (a recognized version required). */
function validateReviewVersions(path: string, versions: readonly unknown[]): StatusCause[] {
  if (versions.length === 0) return [required(path)];
  const errs: StatusCause[] = [];
  const seen = new Set<unknown>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const e of isDns1035Label(String(v))) errs.push(invalid(index(path, i), v, e));
    if (v === 'v1' || v === 'v1beta1') accepted = true;
  });
  if (!accepted) errs.push(invalid(path, versions, 'must include at least one of v1, v1beta1'));
  return errs;
}

function isEstablished(crd: JsonObject): boolean {
  return arrayAt(objectAt(crd, 'status'), 'conditions').some(
    (c) => isObject(c) && c.type === 'Established' && c.status === 'True',
  );
}

function validateUpdate(crd: JsonObject, old: JsonObject): StatusCause[] {
  const errs: StatusCause[] = [];
  const spec = objectAt(crd, 'spec');
  const oldSpec = objectAt(old, 'spec');
  const immutable = (path: string, value: unknown, oldValue: unknown): void => {
    if (!jsonEqual(value, oldValue)) errs.push(invalid(path, value, 'field is immutable'));
  };
  immutable('spec.group', spec.group, oldSpec.group);
  immutable('spec.names.plural', objectAt(spec, 'names').plural, objectAt(oldSpec, 'names').plural);
  if (isEstablished(old)) {
    immutable('spec.scope', spec.scope, oldSpec.scope);
    immutable('spec.names.kind', objectAt(spec, 'names').kind, objectAt(oldSpec, 'names').kind);
  }
  // storedVersions live in status, which a spec update carries over from the stored object.
  const stored = objectAt(crd, 'status').storedVersions ?? objectAt(old, 'status').storedVersions;
  const names = new Set(arrayAt(spec, 'versions').map((v) => (isObject(v) ? v.name : undefined)));
  if (Array.isArray(stored)) {
    stored.forEach((v, i) => {
      if (!names.has(v)) {
        const name = String(v);
        errs.push(
          invalid(
            index('status.storedVersions', i),
            v,
            `missing from spec.versions; ${name} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${name} and removes ${name} from status.storedVersions`,
          ),
        );
      }
    });
  }
  return errs;
}

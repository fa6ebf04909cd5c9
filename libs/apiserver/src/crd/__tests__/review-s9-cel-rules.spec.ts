import { describe, expect, it } from '@jest/globals';
import { compileCrd } from '../index.js';
import type { CompiledVersion, JsonSchemaProps } from '../index.js';
import type { JsonObject, StatusCause } from '../../types.js';

/**
 * Adversarial review (session 9): x-kubernetes-validations (CEL) and OpenAPI validation of custom
 * resources against what kube-apiserver does. References are to kubernetes/kubernetes,
 * staging/src/k8s.io/apiextensions-apiserver/pkg: apiserver/schema/cel/validation.go (the CEL
 * validator), apiserver/validation/ratcheting.go (schema ratcheting), registry/customresource/
 * strategy.go (hasBlockingErr), apis/apiextensions/validation/validation.go (CRD checks), and to
 * kubernetes/kube-openapi pkg/validation/strfmt/default.go (formats).
 */

const crdOf = (schema: JsonSchemaProps): JsonObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.s9.tosdk.io' },
  spec: {
    group: 's9.tosdk.io',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
});

/** The compiled v1 of a CRD whose `spec` has the given schema. */
function specVersion(spec: JsonSchemaProps): CompiledVersion {
  const v = compileCrd(crdOf({ type: 'object', properties: { spec } })).versions[0];
  if (!v) throw new Error('no version');
  return v;
}

/** The causes a CRD with this `spec` schema is rejected for (empty when it is accepted). */
function crdCauses(spec: JsonSchemaProps): string[] {
  try {
    compileCrd(crdOf({ type: 'object', properties: { spec } }));
    return [];
  } catch (err) {
    return lines((err as { causes: StatusCause[] }).causes);
  }
}

const gadget = (spec: JsonObject): JsonObject => ({
  apiVersion: 's9.tosdk.io/v1',
  kind: 'Gadget',
  metadata: { name: 'g', namespace: 'default' },
  spec,
});
const lines = (causes: StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);
const create = (v: CompiledVersion, spec: JsonObject): string[] => lines(v.admit(gadget(spec), 'create'));
const update = (v: CompiledVersion, spec: JsonObject, oldSpec: JsonObject): string[] =>
  lines(v.admit(gadget(spec), 'update', { old: gadget(oldSpec) }));

describe('review s9: CEL rules and schema validation of custom resources', () => {
  // validation.go validateExpressions: a runtime error is reported as
  // fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(rule)), and a "no such overload"
  // (which only int-or-string and other dyn values reach) as
  // "'%v': call arguments did not match a supported operator, function or macro signature for rule: %v".
  it('[FINDING S9-CEL1] a rule that fails to evaluate is worded "<error> evaluating rule: <rule>" as kube-apiserver words it, not "<rule>: <error>"', () => {
    const v = specVersion({
      type: 'object',
      properties: {
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        port: {
          'x-kubernetes-int-or-string': true,
          'x-kubernetes-validations': [{ rule: 'self > 0' }],
        },
      },
      'x-kubernetes-validations': [{ rule: "self.labels['app'] == 'web'" }],
    });
    expect(create(v, { labels: {}, port: 'http' })).toEqual([
      `spec: Invalid value: "object": no such key: app evaluating rule: self.labels['app'] == 'web'`,
      `spec.port: Invalid value: "string": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 0`,
    ]);
  });

  // validation.go validateExpressions: "We only validate non-null values. Rules that need to check
  // for the state of a nullable value ... must do so from the surrounding schema."
  it('[FINDING S9-CEL2] the rules of a nullable field are not run when its value is null (kube-apiserver validates only non-null values)', () => {
    const v = specVersion({
      type: 'object',
      properties: {
        nickname: {
          type: 'string',
          nullable: true,
          'x-kubernetes-validations': [{ rule: 'self.size() >= 3', message: 'too short' }],
        },
      },
    });
    expect(create(v, { nickname: null })).toEqual([]);
    expect(create(v, { nickname: 'ab' })).toEqual(['spec.nickname: Invalid value: "string": too short']);
  });

  // validation.go validator()/validate(): the x-kubernetes-validations of allOf entries are
  // compiled (AllOfValidators) and run against the same value.
  it('[FINDING S9-CEL3] x-kubernetes-validations inside allOf are enforced (kube-apiserver runs them as AllOfValidators); in anyOf/oneOf/not they are rejected', () => {
    const v = specVersion({
      type: 'object',
      properties: { min: { type: 'integer' }, max: { type: 'integer' } },
      allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min > max' }] }],
    });
    expect(create(v, { min: 5, max: 1 })).toEqual(['spec: Invalid value: "object": min > max']);
    expect(create(v, { min: 1, max: 5 })).toEqual([]);
    // structural/validation.go validateValueValidation: rules in anyOf, oneOf and not are forbidden
    expect(
      crdCauses({
        type: 'object',
        properties: { min: { type: 'integer' } },
        anyOf: [{ 'x-kubernetes-validations': [{ rule: 'self.min > 0' }] }],
      }),
    ).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural',
    ]);
  });

  // ratcheting.go correlateOldValueForChildAtNewIndex: items of a listType=map list correlate with
  // the old item of the same keys, items of set/atomic lists with nothing, other lists by index.
  it('[FINDING S9-CEL4] ratcheting correlates list items as kube-apiserver does: map lists by key, set/atomic lists not per item', () => {
    const v = specVersion({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              protocol: { type: 'string', maxLength: 3 },
              weight: {
                type: 'integer',
                'x-kubernetes-validations': [{ rule: 'self <= 10', message: 'weight over 10' }],
              },
            },
          },
        },
        tags: {
          type: 'array',
          'x-kubernetes-list-type': 'atomic',
          items: { type: 'string', maxLength: 3 },
        },
      },
    });
    // a stored entry that the schema now rejects stays acceptable when another entry is added before it
    const legacy = { name: 'a', protocol: 'SCTPX', weight: 50 };
    expect(update(v, { ports: [{ name: 'b' }, legacy] }, { ports: [legacy] })).toEqual([]);
    // an atomic list is one value: once it changes, every invalid item in it is reported
    expect(update(v, { tags: ['long', 'b'] }, { tags: ['long', 'a'] })).toEqual([
      'spec.tags[0]: Too long: may not be more than 3 bytes',
      ': Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
    // unchanged, it stays acceptable
    expect(update(v, { tags: ['long', 'a'] }, { tags: ['long', 'a'] })).toEqual([]);
  });

  // apis/apiextensions/validation/validation.go: "oldSelf cannot be used on the uncorrelatable
  // portion of the schema within %v", and optionalOldSelf "may not be set if oldSelf is not used in rule".
  it('[FINDING S9-CEL5] a CRD is rejected for a transition rule under a set/atomic list (never evaluated) and for optionalOldSelf without oldSelf', () => {
    const base = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
    expect(
      crdCauses({
        type: 'object',
        properties: {
          names: {
            type: 'array',
            maxItems: 10,
            items: {
              type: 'string',
              maxLength: 10,
              'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }],
            },
          },
        },
      }),
    ).toEqual([
      `${base}.properties[names].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${base}.properties[names].items`,
    ]);
    expect(
      crdCauses({
        type: 'object',
        properties: { x: { type: 'integer' } },
        'x-kubernetes-validations': [{ rule: 'self.x > 0', optionalOldSelf: true }],
      }),
    ).toEqual([
      `${base}.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
  });

  // validation.go ruleMessageOrDefault/ruleErrorString and evalMessageExpression: the rule, the
  // message and the messageExpression's result are strings.TrimSpace'd ("rule: |" in YAML ends in "\n").
  it('[FINDING S9-CEL6] the failure message is trimmed as kube-apiserver trims it (a YAML block rule ends in a newline)', () => {
    const v = specVersion({
      type: 'object',
      properties: { x: { type: 'integer' } },
      'x-kubernetes-validations': [
        { rule: 'self.x > 0\n' },
        { rule: 'self.x > 1', message: ' x must be over 1 ' },
        { rule: 'self.x > 2', messageExpression: "' x is ' + string(self.x) + ' '" },
      ],
    });
    expect(create(v, { x: 0 })).toEqual([
      'spec: Invalid value: "object": failed rule: self.x > 0',
      'spec: Invalid value: "object": x must be over 1',
      'spec: Invalid value: "object": x is 0',
    ]);
  });

  // kube-openapi strfmt default.go: "uri" is govalidator.IsRequestURI (Go's url.ParseRequestURI: an
  // absolute URI or an absolute path), "email" is net/mail.ParseAddress (a display name is allowed).
  it('[FINDING S9-CEL7] format uri accepts an absolute path and format email a named address, as kube-openapi does', () => {
    const v = specVersion({
      type: 'object',
      properties: { path: { type: 'string', format: 'uri' }, owner: { type: 'string', format: 'email' } },
    });
    expect(create(v, { path: '/healthz', owner: 'Jo Smith <jo@example.com>' })).toEqual([]);
    expect(create(v, { path: 'healthz', owner: 'jo' })).toEqual([
      'spec.path: Invalid value: "healthz": spec.path in body must be of type uri: "healthz"',
      'spec.owner: Invalid value: "jo": spec.owner in body must be of type email: "jo"',
    ]);
  });

  // strategy.go hasBlockingErr: NotSupported, Required, TooLong, TooMany and TypeInvalid errors
  // block the CEL rules (decided on the errors left after ratcheting).
  it('[FINDING S9-CEL8] a missing required field, an unsupported enum value or a too long string stops the rules as in kube-apiserver; a ratcheted type error does not', () => {
    const v = specVersion({
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer' },
        mode: { type: 'string', enum: ['a', 'c'] },
        legacy: { type: 'integer' },
      },
      'x-kubernetes-validations': [{ rule: 'self.size > 0' }, { rule: "self.mode != 'b'", message: 'not b' }],
    });
    const notChecked =
      ': Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
    expect(create(v, { mode: 'a' })).toEqual(['spec.size: Required value', notChecked]);
    expect(create(v, { size: 1, mode: 'b' })).toEqual([
      'spec.mode: Unsupported value: "b": supported values: "a", "c"',
      notChecked,
    ]);
    // a stored field of the wrong type is ratcheted; the rules still run
    expect(update(v, { size: 0, mode: 'a', legacy: 'x' }, { size: 1, mode: 'a', legacy: 'x' })).toEqual([
      'spec: Invalid value: "object": failed rule: self.size > 0',
    ]);
  });
  // validation.go ValidFieldPath: a rule's fieldPath is '.name' steps and ['quoted key'] steps, a
  // step into a map (additionalProperties) is a key, rendered by field.Path as [key]; list indexes
  // and unquoted brackets are not valid paths ("fieldPath must be a valid path").
  it("[FINDING S9-CEL9] a rule's fieldPath into a map is reported as spec.labels[app] as kube-apiserver renders it, and bracket paths are checked at CRD creation", () => {
    const spec: JsonSchemaProps = {
      type: 'object',
      properties: {
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        ports: { type: 'array', items: { type: 'string' } },
      },
      'x-kubernetes-validations': [
        { rule: "!('app' in self.labels) || self.labels['app'] != ''", fieldPath: '.labels.app' },
        { rule: "!('a.b' in self.labels)", fieldPath: ".labels['a.b']" },
      ],
    };
    expect(create(specVersion(spec), { labels: { app: '', 'a.b': 'x' } })).toEqual([
      `spec.labels[app]: Invalid value: "object": failed rule: !('app' in self.labels) || self.labels['app'] != ''`,
      `spec.labels[a.b]: Invalid value: "object": failed rule: !('a.b' in self.labels)`,
    ]);
    const base = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations';
    const withPath = (fieldPath: string): string[] =>
      crdCauses({ ...spec, 'x-kubernetes-validations': [{ rule: 'true', fieldPath }] });
    expect(withPath('.ports[0]')).toEqual([
      `${base}[0].fieldPath: Invalid value: ".ports[0]": fieldPath must be a valid path`,
    ]);
    expect(withPath(".nope['x']")).toEqual([
      `${base}[0].fieldPath: Invalid value: ".nope['x']": fieldPath must be a valid path`,
    ]);
    expect(withPath("['labels']['x']")).toEqual([]);
  });
  // cel-go common/types: "division by zero", "modulus by zero", "integer overflow" (the errors
  // kube-apiserver puts before " evaluating rule: ..."); @bufbuild/cel says "int divide by zero" etc.
  it('[FINDING S9-CEL10] arithmetic errors in a rule are worded as cel-go words them (division by zero, modulus by zero, integer overflow)', () => {
    const v = specVersion({
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      'x-kubernetes-validations': [
        { rule: 'self.a / self.b > 0' },
        { rule: 'self.a % self.b > 0' },
        { rule: 'self.a * 9223372036854775807 > 0' },
      ],
    });
    expect(create(v, { a: 2, b: 0 })).toEqual([
      'spec: Invalid value: "object": division by zero evaluating rule: self.a / self.b > 0',
      'spec: Invalid value: "object": modulus by zero evaluating rule: self.a % self.b > 0',
      'spec: Invalid value: "object": integer overflow evaluating rule: self.a * 9223372036854775807 > 0',
    ]);
  });
  // apiserver/schema/cel/model WithTypeAndObjectMeta: the root of the custom resource (and of an
  // embedded resource) always has apiVersion, kind and metadata.name/generateName for its rules,
  // declared in the schema or not (controller-gen declares them, hand-written schemas often do not).
  it('[FINDING S9-CEL11] a root rule can read self.kind and self.apiVersion when the schema does not declare them', () => {
    const v = compileCrd(
      crdOf({
        type: 'object',
        properties: { spec: { type: 'object', properties: { x: { type: 'integer' } } } },
        'x-kubernetes-validations': [
          {
            rule: "self.kind == 'Gadget' && self.apiVersion.startsWith('s9.tosdk.io/')",
            message: 'wrong kind',
          },
        ],
      }),
    ).versions[0];
    if (!v) throw new Error('no version');
    expect(lines(v.admit(gadget({ x: 1 }), 'create'))).toEqual([]);
  });
  // apiserver/schema/defaulting/validation.go ValidateDefaults: a default must pass the
  // x-kubernetes-validations of its schema (and of the schemas inside it), or the CRD is rejected.
  it('[FINDING S9-CEL12] a CRD whose default breaks the x-kubernetes-validations rules of its own schema is rejected', () => {
    const base = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties';
    expect(
      crdCauses({
        type: 'object',
        properties: {
          replicas: {
            type: 'integer',
            default: 0,
            'x-kubernetes-validations': [{ rule: 'self > 0', message: 'must be positive' }],
          },
          window: {
            type: 'object',
            default: { start: 5, end: 1 },
            properties: {
              start: { type: 'integer' },
              end: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 2' }] },
            },
            'x-kubernetes-validations': [{ rule: 'self.start <= self.end', message: 'start after end' }],
          },
        },
      }),
    ).toEqual([
      `${base}[replicas].default: Invalid value: "integer": must be positive`,
      `${base}[window].default: Invalid value: "object": start after end`,
      `${base}[window].default.end: Invalid value: "integer": failed rule: self >= 2`,
    ]);
  });
  // apis/apiextensions/validation/validation.go: getCostErrorMessage adds a hint to every cost error,
  // a messageExpression is costed (and blamed) on its own, and the rules over 1% of the CRD limit
  // "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema".
  it('[FINDING S9-CEL13] cost errors at CRD creation are worded as kube-apiserver words them, with its hint, and blame an expensive messageExpression rather than its rule', () => {
    const base = 'spec.versions[0].schema.openAPIV3Schema';
    const rule = `${base}.properties[spec].x-kubernetes-validations[0]`;
    const hint =
      '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    const items = { type: 'array', items: { type: 'string' } } as const;
    expect(
      crdCauses({
        type: 'object',
        properties: { items },
        'x-kubernetes-validations': [{ rule: "self.items.all(x, x.contains('a string'))" }],
      }),
    ).toEqual([
      `${rule}.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${hint}`,
      `${rule}.rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${base}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${hint}`,
    ]);
    expect(
      crdCauses({
        type: 'object',
        properties: { items },
        'x-kubernetes-validations': [
          {
            rule: 'self.items.size() < 10',
            messageExpression: "'items: ' + self.items.map(x, x + 'a').join(', ')",
          },
        ],
      }),
    ).toEqual([
      `${rule}.messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${hint}`,
      `${rule}.messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${base}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${hint}`,
    ]);
  });
  // apiserver/schema/listtype/validation.go: each repeated value or key is reported once (at its
  // second appearance), a map list's key as a Go map (field.Duplicate prints it with %#v).
  it('[FINDING S9-CEL14] duplicate set items and map-list keys are reported once each, keys printed as kube-apiserver prints them', () => {
    const v = specVersion({
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            required: ['port', 'protocol'],
            properties: { port: { type: 'integer' }, protocol: { type: 'string' } },
          },
        },
      },
    });
    expect(
      create(v, {
        tags: ['a', 'a', 'a'],
        ports: [
          { port: 80, protocol: 'TCP' },
          { port: 80, protocol: 'TCP' },
        ],
      }),
    ).toEqual([
      'spec.tags[1]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}',
    ]);
  });
  // kube-openapi strfmt/duration.go ParseDuration (both the `duration` format check and the CEL
  // value of such a string, apiserver/schema/cel values): Go's time.ParseDuration, else whole numbers
  // with units d/day(s), w/wk/week(s), h/hr/hour(s), min(utes), sec(onds), ... ("1d", "2 days").
  it('[FINDING S9-CEL15] format: duration takes what kube-openapi takes ("1d", "2 days"; not "1.5d"), and rules see such a value as a duration', () => {
    const v = specVersion({
      type: 'object',
      properties: {
        ttl: {
          type: 'string',
          format: 'duration',
          maxLength: 32,
          'x-kubernetes-validations': [{ rule: "self >= duration('1h')", message: 'at least an hour' }],
        },
      },
    });
    expect(create(v, { ttl: '1d' })).toEqual([]);
    expect(create(v, { ttl: '2 days' })).toEqual([]);
    expect(create(v, { ttl: '90m' })).toEqual([]);
    expect(create(v, { ttl: '30 minutes' })).toEqual(['spec.ttl: Invalid value: "string": at least an hour']);
    expect(create(v, { ttl: '1.5d' })[0]).toBe(
      'spec.ttl: Invalid value: "1.5d": spec.ttl in body must be of type duration: "1.5d"',
    );
  });
  // apiserver/pkg/cel/environment/base.go (1.29+): cel.HomogeneousAggregateLiterals and the AST
  // validators ValidateDurationLiterals, ValidateTimestampLiterals and ValidateRegexLiterals refuse
  // such rules when the CRD is written (cel-go: "expected type 'int' but found 'string'",
  // "invalid <function> argument" at the literal).
  it('[FINDING S9-CEL16] a rule with a mixed-type list literal or an invalid duration, timestamp or regex literal is refused at CRD creation', () => {
    const refused = (rule: string): string => {
      const causes = crdCauses({
        type: 'object',
        properties: { s: { type: 'string', maxLength: 10 } },
        'x-kubernetes-validations': [{ rule }],
      });
      const m = /compilation failed: (ERROR: [^\n]*)/.exec(causes.join('\n'));
      return m?.[1] ?? `accepted: ${causes.join('; ')}`;
    };
    expect(refused("self.s in ['a', 1]")).toBe("ERROR: <input>:1:17: expected type 'string' but found 'int'");
    expect(refused("duration('1x') > duration('1s')")).toBe('ERROR: <input>:1:10: invalid duration argument');
    expect(refused("timestamp('2024-13-01') > timestamp('2020-01-01T00:00:00Z')")).toBe(
      'ERROR: <input>:1:11: invalid timestamp argument',
    );
    expect(refused("self.s.matches('[')")).toBe('ERROR: <input>:1:16: invalid matches argument');
  });
  // apiserver/schema/objectmeta/validation.go validateEmbeddedResource: a missing apiVersion/kind is
  // Required, an empty one Invalid; kind must be a DNS-1035 label once lower-cased, apiVersion a
  // group/version (schema.ParseGroupVersion).
  it("[FINDING S9-CEL17] an embedded resource's apiVersion and kind are checked as kube-apiserver checks them", () => {
    const v = specVersion({
      type: 'object',
      properties: {
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    });
    expect(create(v, { template: { apiVersion: 'v1', kind: 'ConfigMap' } })).toEqual([]);
    expect(create(v, { template: { kind: '' } })).toEqual([
      'spec.template.apiVersion: Required value: must not be empty',
      'spec.template.kind: Invalid value: "": must not be empty',
    ]);
    expect(create(v, { template: { apiVersion: 'a/b/c', kind: 'Config_Map' } })).toEqual([
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.template.kind: Invalid value: \"Config_Map\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
  // apis/apiextensions/validation/validation.go: "messageExpression must be non-empty if specified",
  // "fieldPath must be non-empty if specified", "fieldPath must not contain line breaks", and the
  // path is checked as written (untrimmed). (Compared sorted: this server sorts schema errors.)
  it("[FINDING S9-CEL18] a blank messageExpression or fieldPath, or a fieldPath with a line break, is refused with kube-apiserver's message", () => {
    const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';
    const causes = (extra: JsonObject): string[] =>
      crdCauses({
        type: 'object',
        properties: { x: { type: 'integer' } },
        'x-kubernetes-validations': [{ rule: 'self.x > 0', ...extra }],
      });
    expect(causes({ messageExpression: '  ' })).toEqual([
      `${at}.messageExpression: Required value: messageExpression must be non-empty if specified`,
    ]);
    expect(causes({ fieldPath: '  ' }).sort()).toEqual([
      `${at}.fieldPath: Invalid value: "  ": fieldPath must be a valid path`,
      `${at}.fieldPath: Invalid value: "  ": fieldPath must be non-empty if specified`,
    ]);
    expect(causes({ fieldPath: '.x\n' }).sort()).toEqual([
      `${at}.fieldPath: Invalid value: ".x\\n": fieldPath must be a valid path`,
      `${at}.fieldPath: Invalid value: ".x\\n": fieldPath must not contain line breaks`,
    ]);
  });
  // cel-go checker (errors.undeclaredReference): "undeclared reference to '%s' (in container '%s')"
  // at the call's opening parenthesis, with the source line and a caret, like every other error.
  it("[FINDING S9-CEL19] a call to an unknown function is refused with cel-go's message, position and caret", () => {
    const refused = (rule: string): string =>
      crdCauses({
        type: 'object',
        properties: { s: { type: 'string', maxLength: 10 } },
        'x-kubernetes-validations': [{ rule }],
      }).join('\n');
    expect(refused('nosuch(self.s)')).toContain(
      "compilation failed: ERROR: <input>:1:7: undeclared reference to 'nosuch' (in container '')\n | nosuch(self.s)\n | ......^",
    );
    expect(refused('self.s.bar()')).toContain(
      "compilation failed: ERROR: <input>:1:11: undeclared reference to 'bar' (in container '')\n | self.s.bar()\n | ..........^",
    );
  });
});

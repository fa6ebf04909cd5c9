import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, waitFor } from '../../__tests__/http-helper.js';
import { compileCrd, validateCrd } from '../index.js';
import { crdStatus } from '../crd-status.js';
import type { JsonSchemaProps } from '../index.js';
import type { JsonObject, StatusCause } from '../../types.js';

/**
 * Review (session 12): the CRD handling other than CEL, read against apiextensions-apiserver 1.32
 * (pkg/apis/apiextensions/validation/validation.go, pkg/apiserver/schema/{defaulting,pruning,
 * objectmeta,listtype}, pkg/apiserver/validation) and kube-openapi (pkg/validation/validate, strfmt).
 */
const crdOf = (root: JsonSchemaProps, version: JsonObject = {}): JsonObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.s12.tosdk.io' },
  spec: {
    group: 's12.tosdk.io',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: root }, ...version }],
  },
});

const withSpec = (spec: JsonSchemaProps): JsonSchemaProps => ({ type: 'object', properties: { spec } });

/** The causes compiling the CRD gives, as `field: message`; empty when it is accepted. */
function crdCauses(root: JsonSchemaProps, version: JsonObject = {}): string[] {
  try {
    compileCrd(crdOf(root, version));
    return [];
  } catch (err) {
    return (err as { causes: StatusCause[] }).causes.map((c) => `${c.field}: ${c.message}`);
  }
}

/** Admits a Gadget with `spec` on create; returns the admitted object and the causes. */
function admitSpec(root: JsonSchemaProps, spec: unknown): { obj: JsonObject; causes: string[] } {
  const version = compileCrd(crdOf(root)).versions[0];
  if (!version) throw new Error('the CRD has no version');
  const obj: JsonObject = { apiVersion: 's12.tosdk.io/v1', kind: 'Gadget', metadata: { name: 'g' }, spec };
  const causes = version.admit(obj, 'create').map((c) => `${c.field}: ${c.message}`);
  return { obj, causes };
}

const P = 'spec.versions[0].schema.openAPIV3Schema';

describe('review s12: CustomResourceDefinition schemas, defaults, pruning and validation', () => {
  it('[FINDING S12-CRD1] multipleOf with a decimal factor accepts the multiples kube-openapi accepts (0.3 of 0.1)', () => {
    const root = withSpec({
      type: 'object',
      properties: { ratio: { type: 'number', multipleOf: 0.1 }, price: { type: 'number', multipleOf: 0.01 } },
    });
    // kube-openapi's MultipleOf: 1/factor*value, an integer within a relative 1e-9 (swag's
    // IsFloat64AJSONInteger), so 10*0.3 = 3.0000000000000004 passes
    expect(admitSpec(root, { ratio: 0.3, price: 0.07 }).causes).toEqual([]);
    expect(admitSpec(root, { ratio: 0.7 }).causes).toEqual([]);
    // not multiples stay refused, worded as kube-openapi words them
    expect(admitSpec(root, { ratio: 0.35 }).causes).toEqual([
      'spec.ratio: Invalid value: 0.35: spec.ratio in body should be a multiple of 0.1',
    ]);
    // swag truncates toward zero: a product just under an integer (100*0.29 = 28.999999999999996) fails
    expect(admitSpec(root, { price: 0.29 }).causes).toEqual([
      'spec.price: Invalid value: 0.29: spec.price in body should be a multiple of 0.01',
    ]);
    expect(admitSpec(root, { ratio: 3 }).causes).toEqual([]);
  });
  it('[FINDING S12-CRD2] a default is validated as written, not with the defaults nested in it: default {} with a required field is refused', () => {
    // defaulting/validation.go validate: ValidateCustomResource(default) with the node's own schema,
    // no Default() first (kubebuilder's `default={}` over a required field fails to install)
    const causes = crdCauses(
      withSpec({
        type: 'object',
        properties: {
          server: {
            type: 'object',
            default: {},
            required: ['port'],
            properties: { port: { type: 'integer', default: 80 } },
          },
        },
      }),
    );
    expect(causes).toEqual([`${P}.properties[spec].properties[server].default.port: Required value`]);
  });

  it('[FINDING S12-CRD2] defaults inside additionalProperties are not checked when the CRD is written, as kube-apiserver does not follow them', () => {
    const causes = crdCauses(
      withSpec({
        type: 'object',
        additionalProperties: {
          type: 'object',
          properties: { weight: { type: 'integer', default: 'heavy' } },
        },
      }),
    );
    expect(causes).toEqual([]);
  });

  it('[FINDING S12-CRD2] an embedded resource default may carry unknown metadata fields, but needs apiVersion and kind', () => {
    const embedded = (dflt: JsonObject): JsonSchemaProps =>
      withSpec({
        type: 'object',
        properties: {
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
            default: dflt,
          },
        },
      });
    // "unknown fields under metadata are not rejected during CRD validation, but only pruned in storage creation"
    expect(
      crdCauses(embedded({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', unspecified: 'b' } })),
    ).toEqual([]);
    // objectmeta.Validate of the default: validateEmbeddedResource
    expect(crdCauses(embedded({ metadata: { name: 'a' } }))).toEqual([
      `${P}.properties[spec].properties[template].default.apiVersion: Required value: must not be empty`,
      `${P}.properties[spec].properties[template].default.kind: Required value: must not be empty`,
    ]);
  });
  it('[FINDING S12-CRD3] a map-list key must be required or defaulted and not nullable; set and map items may not be nullable', () => {
    // validation.go validateMapListKeysMapSet (required for every new CRD)
    const causes = crdCauses(
      withSpec({
        type: 'object',
        properties: {
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port', 'protocol'],
            items: {
              type: 'object',
              required: ['port'],
              properties: { port: { type: 'integer', nullable: true }, protocol: { type: 'string' } },
            },
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', nullable: true } },
        },
      }),
    );
    expect(causes).toEqual([
      `${P}.properties[spec].properties[ports].items.properties[port].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
      `${P}.properties[spec].properties[ports].items.properties[protocol].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${P}.properties[spec].properties[tags].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
    ]);
    // a defaulted key is fine (corev1 ContainerPort's protocol: default TCP)
    expect(
      crdCauses(
        withSpec({
          type: 'object',
          properties: {
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['port', 'protocol'],
              items: {
                type: 'object',
                required: ['port'],
                properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
              },
            },
          },
        }),
      ),
    ).toEqual([]);
  });
  it('[FINDING S12-CRD4] JSON Schema keywords kube-apiserver does not support are refused, not ignored', () => {
    // validation.go specStandardValidatorV3.validate, for every node
    const causes = crdCauses(
      withSpec({
        type: 'object',
        patternProperties: { '^x-': { type: 'string' } },
        properties: {
          a: { type: 'string', $ref: '#/definitions/a' },
          b: { type: 'array', items: { type: 'string' }, additionalItems: false },
          c: { type: 'object', dependencies: { x: ['y'] }, definitions: { d: { type: 'string' } } },
          d: { type: 'string', id: 'urn:d' },
          e: { type: 'null' },
        },
      }),
    );
    expect(causes).toEqual(
      expect.arrayContaining([
        `${P}.properties[spec].patternProperties: Forbidden: patternProperties is not supported`,
        `${P}.properties[spec].properties[a].$ref: Forbidden: $ref is not supported`,
        `${P}.properties[spec].properties[b].additionalItems: Forbidden: additionalItems is not supported`,
        `${P}.properties[spec].properties[c].dependencies: Forbidden: dependencies is not supported`,
        `${P}.properties[spec].properties[c].definitions: Forbidden: definitions is not supported`,
        `${P}.properties[spec].properties[d].id: Forbidden: id is not supported`,
        `${P}.properties[spec].properties[e].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      ]),
    );
  });

  it('[FINDING S12-CRD4] a nullable root, defaults in the top-level apiVersion, kind or metadata and an embedded resource inside metadata are refused', () => {
    expect(crdCauses({ type: 'object', nullable: true })).toEqual([
      `${P}.nullable: Forbidden: nullable cannot be true at the root`,
    ]);
    expect(
      crdCauses({
        type: 'object',
        properties: {
          apiVersion: { type: 'string', default: 's12.tosdk.io/v1' },
          kind: { type: 'string', default: 'Gadget' },
          metadata: { type: 'object', default: {} },
        },
      }),
    ).toEqual([
      `${P}.properties[apiVersion].default: Forbidden: must not be set in top-level apiVersion`,
      `${P}.properties[kind].default: Forbidden: must not be set in top-level kind`,
      `${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`,
    ]);
    // schema/validation.go validateStructuralMetadataInvariants: description and title are structural too
    expect(
      crdCauses({ type: 'object', properties: { metadata: { type: 'object', description: 'meta' } } }),
    ).toEqual([
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    expect(
      crdCauses(
        withSpec({
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              properties: {
                metadata: {
                  type: 'object',
                  properties: {
                    labels: { type: 'object', additionalProperties: { type: 'string', default: 'x' } },
                    owner: {
                      type: 'object',
                      'x-kubernetes-embedded-resource': true,
                      'x-kubernetes-preserve-unknown-fields': true,
                    },
                  },
                },
              },
            },
          },
        }),
      ),
    ).toEqual(
      expect.arrayContaining([
        `${P}.properties[spec].properties[template].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
        `${P}.properties[spec].properties[template].properties[metadata].properties[owner].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
      ]),
    );
  });
  it('[FINDING S12-CRD5] with the status subresource, the root of the schema may not carry anyOf, enum, maxProperties and the like', () => {
    // validation.go validateCustomResourceDefinitionValidation: allowedFieldsAtRootSchema
    const root: JsonSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object' }, status: { type: 'object' } },
      anyOf: [{ required: ['spec'] }, { required: ['status'] }],
    };
    const causes = crdCauses(root, { subresources: { status: {} } });
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatch(
      /^spec\.versions\[0\]\.schema\.openAPIV3Schema: Invalid value: .*: only \[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/,
    );
    // without the subresource, or with only the allowed fields, the schema is fine
    expect(crdCauses(root)).toEqual([]);
    expect(
      crdCauses(
        { type: 'object', description: 'd', required: ['spec'], properties: { spec: { type: 'object' } } },
        { subresources: { status: {} } },
      ),
    ).toEqual([]);
  });
  it('[FINDING S12-CRD6] string formats are checked with the functions kube-openapi registers (strfmt.Default), names normalized without dashes', () => {
    const check = (format: string, value: string): string[] =>
      admitSpec(withSpec({ type: 'object', properties: { v: { type: 'string', format } } }), { v: value })
        .causes;
    const refused = (format: string, value: string): string[] => [
      `spec.v: Invalid value: ${JSON.stringify(value)}: spec.v in body must be of type ${format}: ${JSON.stringify(value)}`,
    ];
    // formats ajv lacks: isbn, creditcard, ssn, bsonobjectid (govalidator, mongo-driver)
    expect(check('isbn', 'abc')).toEqual(refused('isbn', 'abc'));
    expect(check('isbn10', '0-306-40615-2')).toEqual([]);
    expect(check('isbn13', '978-0-306-40615-6')).toEqual(refused('isbn13', '978-0-306-40615-6'));
    expect(check('creditcard', '4111 1111 1111 1111')).toEqual([]);
    expect(check('creditcard', '4111111111111112')).toEqual(refused('creditcard', '4111111111111112'));
    expect(check('ssn', '123-45-6789')).toEqual([]);
    expect(check('ssn', '123456789')).toEqual(refused('ssn', '123456789'));
    expect(check('bsonobjectid', '507f1f77bcf86cd799439011')).toEqual([]);
    expect(check('bsonobjectid', 'xyz')).toEqual(refused('bsonobjectid', 'xyz'));
    // hostname: strfmt's HostnamePattern (a dotted name ends in a letters-only TLD; letters and symbols of any script)
    expect(check('hostname', '10.0.0.1')).toEqual(refused('hostname', '10.0.0.1'));
    expect(check('hostname', 'example.com.')).toEqual(refused('hostname', 'example.com.'));
    expect(check('hostname', 'bücher.example.de')).toEqual([]);
    expect(check('hostname', 'api.example.com')).toEqual([]);
    // ipv4 and cidr parse sloppily (k8s.io/utils/net ParseIPSloppy: leading zeros allowed)
    expect(check('ipv4', '010.1.1.1')).toEqual([]);
    expect(check('cidr', '010.0.0.0/8')).toEqual([]);
    // uuid3's pattern has no variant nibble; rgbcolor's channels stop at 255; byte is non-empty base64
    expect(check('uuid3', '123e4567-e89b-32d3-0456-426614174000')).toEqual([]);
    expect(check('rgbcolor', 'rgb(300,0,0)')).toEqual(refused('rgbcolor', 'rgb(300,0,0)'));
    expect(check('byte', '')).toEqual(refused('byte', ''));
    // mac: net.ParseMAC takes 20-octet IPoIB addresses too
    expect(check('mac', '00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01')).toEqual([]);
    // date-time: strfmt IsDateTime splits at "t" (a space is not a separator) and needs a zone
    expect(check('date-time', '2024-01-01 10:00:00Z')).toEqual(refused('date-time', '2024-01-01 10:00:00Z'));
    expect(check('date-time', '2024-01-01t10:00:00.5z')).toEqual([]);
    // format names are normalized without dashes, as strfmt's registry does
    expect(check('ip-v4', 'nope')).toEqual(refused('ip-v4', 'nope'));
  });
  it('[FINDING S12-CRD7] the default deprecation warning suggests only a served version newer than the deprecated one', () => {
    // customresource_handler.go defaultDeprecationWarning: served, not deprecated, and
    // CompareKubeAwareVersionStrings(deprecated, v) < 0; the highest such version
    const versions = (deprecated: string, others: string[]): JsonObject => {
      const crd = crdOf({ type: 'object' });
      const schema = { openAPIV3Schema: { type: 'object' } };
      (crd.spec as JsonObject).versions = [
        { name: deprecated, served: true, storage: true, deprecated: true, schema },
        ...others.map((name) => ({ name, served: true, storage: false, schema })),
      ];
      return crd;
    };
    const warning = (crd: JsonObject): string | undefined => compileCrd(crd).versions[0]?.deprecationWarning;
    expect(warning(versions('v1', ['v1beta1']))).toBe('s12.tosdk.io/v1 Gadget is deprecated');
    expect(warning(versions('v1beta1', ['v1alpha1', 'v1', 'v2beta1']))).toBe(
      's12.tosdk.io/v1beta1 Gadget is deprecated; use s12.tosdk.io/v1 Gadget',
    );
  });
  it('[FINDING S12-CRD10] x-kubernetes-preserve-unknown-fields on a list keeps unknown fields in its items; additionalProperties: true keeps only scalars', () => {
    // pruning/algorithm.go: skipPrune goes on into the items of a preserving list; additionalProperties
    // without a schema prunes each value with no schema (an object loses all its fields)
    const preserved = admitSpec(
      withSpec({
        type: 'object',
        properties: {
          steps: {
            type: 'array',
            'x-kubernetes-preserve-unknown-fields': true,
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                opts: { type: 'object', properties: { on: { type: 'boolean' } } },
              },
            },
          },
        },
      }),
      { steps: [{ name: 'a', extra: 1, opts: { on: true, off: false } }] },
    );
    expect(preserved.obj.spec).toEqual({ steps: [{ name: 'a', extra: 1, opts: { on: true } }] });
    const free = admitSpec(
      withSpec({ type: 'object', properties: { labels: { type: 'object', additionalProperties: true } } }),
      { labels: { tier: 'web', nested: { a: 1 }, list: [{ b: 2 }, 3] } },
    );
    expect(free.obj.spec).toEqual({ labels: { tier: 'web', nested: {}, list: [{}, 3] } });
  });
  it('[FINDING S12-CRD11] on update, list-type duplicates are all reported or none (by the old object), and embedded resources are not ratcheted', () => {
    // registry/customresource/strategy.go ValidateUpdate: ValidateListSetsAndMaps runs on the new object
    // only when the old one has no such error; schemaobjectmeta.Validate runs as on create
    const root = withSpec({
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        zones: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    });
    const version = compileCrd(crdOf(root)).versions[0];
    if (!version) throw new Error('the CRD has no version');
    const gadget = (spec: JsonObject): JsonObject => ({
      apiVersion: 's12.tosdk.io/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec,
    });
    const update = (spec: JsonObject, oldSpec: JsonObject): string[] =>
      version.admit(gadget(spec), 'update', { old: gadget(oldSpec) }).map((c) => `${c.field}: ${c.message}`);
    const template = { apiVersion: 'v1', kind: 'ConfigMap' };
    // the old object already repeats a tag: no duplicate is reported, not even a new one
    expect(update({ tags: ['a', 'a'], zones: ['x', 'x'], template }, { tags: ['a', 'a'], template })).toEqual(
      [],
    );
    // the old object is clean: every duplicate of the new one is reported
    expect(
      update({ tags: ['a', 'a'], zones: ['x'], template }, { tags: ['a'], zones: ['x'], template }),
    ).toEqual(['spec.tags[1]: Duplicate value: "a"']);
    // an embedded resource without kind is refused on update even when it did not change
    expect(update({ template: { apiVersion: 'v1' } }, { template: { apiVersion: 'v1' } })).toEqual([
      'spec.template.kind: Required value: must not be empty',
    ]);
  });
  it('[FINDING S12-CRD12] an established CRD whose update asks for a name in use stays Established, with its new categories accepted', () => {
    // status/naming_controller.go calculateNamesAndConditions: Established keeps its old condition,
    // categories are always taken from spec, a conflicting name keeps its accepted value
    const established = {
      type: 'Established',
      status: 'True',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    };
    const crd: JsonObject = {
      ...crdOf({ type: 'object' }),
      status: {
        conditions: [established],
        acceptedNames: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        storedVersions: ['v1'],
      },
    };
    const names = (crd.spec as JsonObject).names as JsonObject;
    names.shortNames = ['gd'];
    names.categories = ['all'];
    const status = crdStatus(crd, '2026-02-02T00:00:00Z', {
      reason: 'ShortNamesConflict',
      message: '"gd" is already in use',
    });
    expect(status.conditions).toEqual([
      {
        type: 'NamesAccepted',
        status: 'False',
        lastTransitionTime: '2026-02-02T00:00:00Z',
        reason: 'ShortNamesConflict',
        message: '"gd" is already in use',
      },
      established,
    ]);
    expect(status.acceptedNames).toEqual({
      plural: 'gadgets',
      singular: 'gadget',
      kind: 'Gadget',
      listKind: 'GadgetList',
      categories: ['all'],
    });
  });
  it('[FINDING S12-CRD13] a CRD in a protected group (*.k8s.io, *.kubernetes.io) needs the api-approved.kubernetes.io annotation, reported by a status condition', () => {
    // validation.go validateAPIApproval, apihelpers.GetAPIApprovalState, apiapproval_controller.go
    const protectedCrd = (annotations?: Record<string, string>): JsonObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.s12.k8s.io', ...(annotations ? { annotations } : {}) },
      spec: {
        group: 's12.k8s.io',
        scope: 'Namespaced',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    });
    const text = (cs: StatusCause[]): string[] => cs.map((c) => `${c.field}: ${c.message}`);
    const A = 'api-approved.kubernetes.io';
    expect(text(validateCrd(protectedCrd()))).toEqual([
      `metadata.annotations[${A}]: Required value: protected groups must have approval annotation "${A}", see https://github.com/kubernetes/enhancements/pull/1111`,
    ]);
    expect(text(validateCrd(protectedCrd({ [A]: 'yes' })))).toEqual([
      `metadata.annotations[${A}]: Invalid value: "yes": protected groups must have approval annotation "${A}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
    ]);
    expect(
      validateCrd(protectedCrd({ [A]: 'https://github.com/kubernetes/enhancements/pull/1111' })),
    ).toEqual([]);
    expect(validateCrd(protectedCrd({ [A]: 'unapproved, testing only' }))).toEqual([]);
    // an update that leaves the approval state as it was is not refused
    expect(validateCrd(protectedCrd({ [A]: 'yes' }), protectedCrd({ [A]: 'no' }))).toEqual([]);
    const condition = (annotations?: Record<string, string>): unknown =>
      (crdStatus(protectedCrd(annotations), '2026-02-02T00:00:00Z').conditions as JsonObject[]).find(
        (c) => c.type === 'KubernetesAPIApprovalPolicyConformant',
      );
    expect(condition({ [A]: 'unapproved, testing only' })).toEqual({
      type: 'KubernetesAPIApprovalPolicyConformant',
      status: 'False',
      lastTransitionTime: '2026-02-02T00:00:00Z',
      reason: 'UnapprovedAnnotation',
      message: 'not approved: "unapproved, testing only"',
    });
    expect(condition({ [A]: 'https://example.com/pr/1' })).toEqual({
      type: 'KubernetesAPIApprovalPolicyConformant',
      status: 'True',
      lastTransitionTime: '2026-02-02T00:00:00Z',
      reason: 'ApprovedAnnotation',
      message: 'approved in https://example.com/pr/1',
    });
    // other groups get no such condition
    expect(
      (crdStatus(crdOf({ type: 'object' }), '2026-02-02T00:00:00Z').conditions as unknown[]).length,
    ).toBe(2);
  });
  it('[FINDING S12-CRD15] maxProperties is a Too many error, which like maxItems keeps the CEL rules from running', () => {
    // pkg/apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors: TooManyPropertiesCode -> field.TooMany
    const root = withSpec({
      type: 'object',
      properties: { labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } },
      'x-kubernetes-validations': [{ rule: 'false', message: 'never' }],
    });
    expect(admitSpec(root, { labels: { a: 'x', b: 'y' } }).causes).toEqual([
      'spec.labels: Too many: 2: must have at most 1 items',
      ': Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });
  it('[FINDING S12-CRD16] an enum error quotes every supported value, as kube-apiserver prints them, and does not list the null a nullable field allows', () => {
    // kubeOpenAPIResultToFieldErrors: non-string enum values JSON-encoded; field.NotSupported quotes each
    const root = withSpec({
      type: 'object',
      properties: {
        replicas: { type: 'integer', enum: [1, 3] },
        mode: { type: 'string', nullable: true, enum: ['fast', 'safe'] },
      },
    });
    expect(admitSpec(root, { replicas: 2, mode: 'slow' }).causes).toEqual([
      'spec.replicas: Unsupported value: 2: supported values: "1", "3"',
      'spec.mode: Unsupported value: "slow": supported values: "fast", "safe"',
    ]);
    expect(admitSpec(root, { mode: null }).causes).toEqual([]);
  });
  it("[FINDING S12-CRD17] conversion settings are checked at kube-apiserver's paths (webhookClientConfig, conversionReviewVersions), with its URL and service rules", () => {
    // validation.go validateCustomResourceConversion (on the internal type, whose fields are flattened),
    // apiserver util/webhook ValidateWebhookURL (https, no query or fragment) and ValidateWebhookService
    const conversion = (c: JsonObject): string[] => {
      const crd = crdOf({ type: 'object' });
      (crd.spec as JsonObject).conversion = c;
      return validateCrd(crd).map((x) => `${x.field}: ${x.message}`);
    };
    expect(conversion({ strategy: 'Webhook' })).toEqual([
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
    ]);
    expect(
      conversion({
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: 'http://conv.example.com/convert?debug=1' },
          conversionReviewVersions: ['v1'],
        },
      }),
    ).toEqual([
      `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.webhookClientConfig.url: Invalid value: "debug=1": query parameters are not permitted in the URL',
    ]);
    expect(
      conversion({
        strategy: 'Webhook',
        webhook: {
          clientConfig: { service: { namespace: 'system', name: 'conv', path: 'convert', port: 0 } },
          conversionReviewVersions: ['v1', 'v1'],
        },
      }),
    ).toEqual([
      'spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      `spec.conversion.webhookClientConfig.service.path: Invalid value: "convert": must start with a '/'`,
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version',
    ]);
    expect(
      conversion({
        strategy: 'None',
        webhook: { clientConfig: { url: 'https://conv.example.com' }, conversionReviewVersions: ['v1'] },
      }),
    ).toEqual([
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]);
  });
  it('[FINDING S12-CRD18] ratcheting does not correlate the items of a plain list by index, nor the unknown fields of a preserving object', () => {
    // apiserver pkg/cel/common/equality.go: correlateOldValueForChildAtNewIndex returns nil for lists
    // without x-kubernetes-list-type (atomic), Key is nil for a field the schema does not declare, so the
    // error is judged on the nearest correlatable ancestor, which changed
    const root = withSpec({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          items: { type: 'object', properties: { port: { type: 'integer', maximum: 65535 } } },
        },
        extra: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          maxProperties: 1,
          properties: { level: { type: 'integer', maximum: 3 } },
        },
      },
    });
    const version = compileCrd(crdOf(root)).versions[0];
    if (!version) throw new Error('the CRD has no version');
    const gadget = (spec: JsonObject): JsonObject => ({
      apiVersion: 's12.tosdk.io/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec,
    });
    const update = (spec: JsonObject, oldSpec: JsonObject): string[] =>
      version.admit(gadget(spec), 'update', { old: gadget(oldSpec) }).map((c) => `${c.field}: ${c.message}`);
    // item 0 is as it was, but the list changed: its error is reported
    expect(
      update({ ports: [{ port: 70000 }, { port: 81 }] }, { ports: [{ port: 70000 }, { port: 80 }] }),
    ).toEqual([
      'spec.ports[0].port: Invalid value: 70000: spec.ports[0].port in body should be less than or equal to 65535',
    ]);
    // the whole list unchanged: ratcheted
    expect(
      update(
        { ports: [{ port: 70000 }], extra: { level: 5 } },
        { ports: [{ port: 70000 }], extra: { level: 5 } },
      ),
    ).toEqual([]);
    // an object with an unknown field never counts as unchanged
    expect(update({ extra: { level: 1, note: 'x' } }, { extra: { level: 1, note: 'x' } })).toEqual([
      'spec.extra: Too many: 2: must have at most 1 items',
    ]);
  });
  it('[FINDING S12-CRD19] selectable fields are resolved as kube-apiserver resolves them: metadata paths, map keys, parse errors, and only valid unique paths count toward the limit', () => {
    // validation.go ValidateCustomResourceSelectableFields with cel.ValidFieldPath (no array notation)
    const props: Record<string, JsonSchemaProps> = {
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    };
    for (let i = 0; i < 7; i++) props[`f${i}`] = { type: 'string' };
    const root: JsonSchemaProps = {
      type: 'object',
      properties: { metadata: { type: 'object' }, spec: { type: 'object', properties: props } },
    };
    const selectable = (paths: string[]): string[] =>
      crdCauses(root, { selectableFields: paths.map((jsonPath) => ({ jsonPath })) });
    const at = (i: number): string => `spec.versions[0].selectableFields[${i}].jsonPath`;
    expect(selectable(['.metadata.name', 'spec.f0', ".spec['f1']", '.spec.labels.tier'])).toEqual([
      `${at(0)}: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field`,
      `${at(1)}: Invalid value: "spec.f0": is an invalid path: expected [ or . but got: spec`,
      `${at(2)}: Invalid value: ".spec['f1']": is an invalid path: array notation is not allowed`,
    ]);
    // nine entries, two of them invalid: seven valid paths are within the limit of eight
    expect(
      selectable(['.nope', '.spec.nope', ...Array.from({ length: 7 }, (_, i) => `.spec.f${i}`)]),
    ).toEqual([
      `${at(0)}: Invalid value: ".nope": is an invalid path: does not refer to a valid field`,
      `${at(1)}: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field`,
    ]);
  });
  it('[FINDING S12-CRD21] the metadata of an embedded resource is validated as ObjectMeta: name, namespace, labels and annotation keys', () => {
    // objectmeta/validation.go validateEmbeddedResource: metav1validation.ValidateObjectMeta with
    // path.ValidatePathSegmentName for the name
    const root = withSpec({
      type: 'object',
      properties: {
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    });
    const causes = admitSpec(root, {
      template: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'a/b',
          namespace: 'Not_A_Label',
          labels: { tier: 'web server' },
          annotations: { 'bad key': 'x' },
        },
      },
    }).causes;
    expect(causes).toEqual(
      expect.arrayContaining([
        `spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`,
        expect.stringMatching(
          /^spec\.template\.metadata\.namespace: Invalid value: "Not_A_Label": a lowercase RFC 1123 label/,
        ),
        expect.stringMatching(
          /^spec\.template\.metadata\.labels: Invalid value: "web server": a valid label must be/,
        ),
        expect.stringMatching(
          /^spec\.template\.metadata\.annotations: Invalid value: "bad key": name part must consist of/,
        ),
      ]),
    );
    expect(causes).toHaveLength(4);
    // a name that is no DNS name but a valid path segment is fine, as in kube-apiserver
    expect(
      admitSpec(root, { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Upper_Case' } } })
        .causes,
    ).toEqual([]);
  });
});

/**
 * Through the server: what the engine (libs/apiserver/src/internal) does with a compiled CRD's
 * versions. Each test's comment names the engine change it needed (made since, by the lead engineer).
 */
describe('review s12: multi-version custom resources through the server', () => {
  const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const NAME = 'widgets.s12.tosdk.io';
  const base = '/apis/s12.tosdk.io';
  const at = (version: string, name = ''): string =>
    `${base}/${version}/namespaces/s12/widgets${name ? `/${name}` : ''}`;
  const specSchema = (props: Record<string, JsonSchemaProps>): JsonSchemaProps => ({
    type: 'object',
    properties: { spec: { type: 'object', properties: props } },
  });
  const widgetCrd: JsonObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: 's12.tosdk.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          deprecated: true,
          schema: { openAPIV3Schema: specSchema({ size: { type: 'string' }, legacy: { type: 'string' } }) },
        },
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: specSchema({ size: { type: 'string' } }) },
        },
        {
          name: 'v2',
          served: false,
          storage: false,
          schema: { openAPIV3Schema: specSchema({ size: { type: 'string' } }) },
        },
      ],
    },
  };
  let server: KubeApiServer;

  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 's12' } })).status).toBe(
      201,
    );
    expect((await call(server, 'POST', CRDS, widgetCrd)).status).toBe(201);
    await waitFor(async () => (await call(server, 'GET', at('v1'))).status === 200, 20_000);
  });
  afterAll(async () => {
    await server.stop();
  });

  const widget = (version: string, name: string, spec: JsonObject): JsonObject => ({
    apiVersion: `s12.tosdk.io/${version}`,
    kind: 'Widget',
    metadata: { name },
    spec,
  });

  // Engine change (made): carry CompiledVersion.deprecationWarning into the served version (controllers.ts
  // crdResource) and add it as a Warning to every request at that version (customresource_handler.go
  // ServeHTTP: warning.AddWarning for crdInfo.warnings[version]).
  it('[FINDING S12-CRD7] requests at a deprecated version answer with its deprecation Warning', async () => {
    const r = await call(server, 'GET', at('v1beta1'));
    expect(r.status).toBe(200);
    expect(r.headers.warning).toBe(
      '299 - "s12.tosdk.io/v1beta1 Widget is deprecated; use s12.tosdk.io/v1 Widget"',
    );
  });

  // Engine change (made): objects read from storage are defaulted with the storage version's schema (the
  // storage codec's unstructuredDefaulter in customresource_handler.go crdConversionRESTOptionsGetter):
  // call the storage version's decode (prune, default, drop nulls) on get, list and watch.
  it('[FINDING S12-CRD8] a default added to the schema later shows on objects read back', async () => {
    expect((await call(server, 'POST', at('v1'), widget('v1', 'w-read', { size: 'm' }))).status).toBe(201);
    const crd = (await call(server, 'GET', `${CRDS}/${NAME}`)).json<{ spec: { versions: JsonObject[] } }>();
    const v1 = crd.spec.versions[1] as { schema: { openAPIV3Schema: JsonSchemaProps } };
    const spec = v1.schema.openAPIV3Schema.properties?.spec;
    if (spec?.properties) spec.properties.color = { type: 'string', default: 'blue' };
    expect((await call(server, 'PUT', `${CRDS}/${NAME}`, crd)).status).toBe(200);
    await waitFor(async () => {
      const got = (await call(server, 'GET', at('v1', 'w-read'))).json<{ spec: JsonObject }>();
      return got.spec.color === 'blue';
    }, 5_000);
    // a list and a watch's initial events read it so too (at v1beta1, whose schema has no color, kube
    // prunes it when converting; reads here are not pruned by the request version: not asserted)
    for (const version of ['v1']) {
      const list = (await call(server, 'GET', at(version))).json<{
        items: Array<{ metadata: JsonObject; spec: JsonObject; apiVersion: string }>;
      }>();
      const item = list.items.find((i) => i.metadata.name === 'w-read');
      expect([version, item?.apiVersion, item?.spec.color]).toEqual([
        version,
        `s12.tosdk.io/${version}`,
        'blue',
      ]);
      const watch = await call(server, 'GET', `${at(version)}?watch=1&timeoutSeconds=1`);
      const event = watch.text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { object: { metadata: JsonObject; spec: JsonObject } })
        .find((e) => e.object.metadata.name === 'w-read');
      expect([version, event?.object.spec.color]).toEqual([version, 'blue']);
    }
  });

  // Engine change (made): an object read at a version that is not the storage version is converted
  // (strategy None: apiVersion) and coerced by that version's schema (schemaCoercingConverter prunes
  // with the target version's structural schema): a field only the storage version declares is not
  // shown at the other version.
  it('[FINDING S12-CRD22] a read at a non-storage version is pruned by the schema of that version, in a get, a list and a watch', async () => {
    const crd = (await call(server, 'GET', `${CRDS}/${NAME}`)).json<{ spec: { versions: JsonObject[] } }>();
    const v1 = crd.spec.versions[1] as { schema: { openAPIV3Schema: JsonSchemaProps } };
    const spec = v1.schema.openAPIV3Schema.properties?.spec;
    if (spec?.properties) spec.properties.gauge = { type: 'string' };
    expect((await call(server, 'PUT', `${CRDS}/${NAME}`, crd)).status).toBe(200);
    await waitFor(
      async () =>
        (await call(server, 'POST', at('v1'), widget('v1', 'w-gauge', { size: 'l', gauge: 'g' }))).status ===
        201,
      5_000,
    );
    expect((await call(server, 'GET', at('v1', 'w-gauge'))).json<{ spec: JsonObject }>().spec.gauge).toBe(
      'g',
    );
    const got = (await call(server, 'GET', at('v1beta1', 'w-gauge'))).json<{ spec: JsonObject }>();
    expect(got.spec).toMatchObject({ size: 'l' });
    expect(got.spec).not.toHaveProperty('gauge');
    const list = (await call(server, 'GET', at('v1beta1'))).json<{
      items: Array<{ metadata: JsonObject; spec: JsonObject }>;
    }>();
    expect(list.items.find((i) => i.metadata.name === 'w-gauge')?.spec).not.toHaveProperty('gauge');
    const watch = await call(server, 'GET', `${at('v1beta1')}?watch=1&timeoutSeconds=1`);
    const event = watch.text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { object: { metadata: JsonObject; spec: JsonObject } })
      .find((e) => e.object.metadata.name === 'w-gauge');
    expect(event?.object.spec).toMatchObject({ size: 'l' });
    expect(event?.object.spec).not.toHaveProperty('gauge');
  });

  // Engine change (made): with conversion strategy None the object is converted to the storage version and
  // pruned with that version's schema before it is stored (schemaCoercingConverter.ConvertToVersion
  // runs unstructuredSchemaCoercer.apply): call the storage version's decode after rewriting apiVersion.
  it('[FINDING S12-CRD9] a field only the request version declares is pruned by the storage version', async () => {
    const created = await call(
      server,
      'POST',
      at('v1beta1'),
      widget('v1beta1', 'w-conv', { size: 's', legacy: 'x' }),
    );
    expect(created.status).toBe(201);
    // (CRD8's test may have added a defaulted color to v1 before: only legacy matters here)
    expect(created.json<{ spec: JsonObject }>().spec).toMatchObject({ size: 's' });
    expect(created.json<{ spec: JsonObject }>().spec).not.toHaveProperty('legacy');
    const got = await call(server, 'GET', at('v1', 'w-conv'));
    expect(got.json<{ spec: JsonObject }>().spec).toMatchObject({ size: 's' });
    expect(got.json<{ spec: JsonObject }>().spec).not.toHaveProperty('legacy');
  });
  // Engine change (made): object-service reports the pruned paths by diffing before/after admission and skips
  // keys whose value was null (to leave out dropped non-nullable nulls); kube-apiserver's prune records
  // every unknown key whatever its value (pruning/algorithm.go RecordUnknownField). Report
  // version.unknownFields(obj) of the decoded object instead of the diff.
  it('[FINDING S12-CRD14] an unknown field set to null is reported by fieldValidation like any unknown field', async () => {
    const strict = await call(
      server,
      'POST',
      `${at('v1')}?fieldValidation=Strict`,
      widget('v1', 'w-null', { size: 'm', ghost: null }),
    );
    expect(strict.status).toBe(400);
    expect(strict.json<{ message: string }>().message).toContain('unknown field "spec.ghost"');
  });
  // Engine change (made): a request for a version the CRD does not serve falls through kube-apiserver's
  // handler chain (customresource_handler.go ServeHTTP: !hasServedCRDVersion -> delegate) to the
  // NotFound handler (apiserver util/notfoundhandler: http.NotFound), a plain-text 404, not a Status.
  it('[FINDING S12-CRD20] a request at a version that is not served is the plain 404 of an unknown path', async () => {
    const r = await call(server, 'GET', at('v2'));
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.text).toBe('404 page not found\n');
  });
});

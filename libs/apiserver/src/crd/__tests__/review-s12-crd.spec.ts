import { describe, expect, it } from '@jest/globals';
import { compileCrd } from '../index.js';
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
});

import { describe, expect, it } from '@jest/globals';
import { validateCrd } from '../index.js';
import type { StatusCause } from '../../types.js';
import type { JsonSchemaProps } from '../index.js';
import type { CrdFixture } from './fixtures.js';
import { schemaAt, v0, webPageCrd } from './fixtures.js';

function fields(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}

function expectCause(causes: StatusCause[], field: string, reason: string, message: string | RegExp): void {
  const match = causes.find(
    (c) =>
      c.field === field &&
      c.reason === reason &&
      (typeof message === 'string' ? c.message === message : message.test(c.message)),
  );
  if (!match)
    throw new Error(`expected ${field} ${reason} ${String(message)}; got:\n${fields(causes).join('\n')}`);
}

describe('validateCrd', () => {
  it('accepts a valid CRD (no causes)', () => {
    expect(validateCrd(webPageCrd())).toEqual([]);
  });

  it('a name that is not <plural>.<group> gives metadata.name Invalid', () => {
    const causes = validateCrd(webPageCrd((c) => (c.metadata.name = 'pages.sample.tosdk.io')));
    expectCause(
      causes,
      'metadata.name',
      'FieldValueInvalid',
      'Invalid value: "pages.sample.tosdk.io": must be spec.names.plural+"."+spec.group',
    );
  });

  it('a group without a dot gives spec.group Invalid "should be a domain with at least one dot"', () => {
    const causes = validateCrd(
      webPageCrd((c) => {
        c.spec.group = 'sample';
        c.metadata.name = 'webpages.sample';
      }),
    );
    expect(fields(causes)).toEqual([
      'spec.group: Invalid value: "sample": should be a domain with at least one dot',
    ]);
  });

  it('an upper-case group gives spec.group Invalid with the RFC 1123 subdomain message', () => {
    const causes = validateCrd(webPageCrd((c) => (c.spec.group = 'Sample.io')));
    expectCause(causes, 'spec.group', 'FieldValueInvalid', /a lowercase RFC 1123 subdomain must consist of/);
  });

  it('a missing group gives spec.group Required', () => {
    const causes = validateCrd(webPageCrd((c) => delete c.spec.group));
    expectCause(causes, 'spec.group', 'FieldValueRequired', 'Required value');
  });

  it('an unknown scope gives spec.scope Unsupported value with the supported list', () => {
    const causes = validateCrd(webPageCrd((c) => (c.spec.scope = 'Global')));
    expectCause(
      causes,
      'spec.scope',
      'FieldValueNotSupported',
      'Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    );
  });

  it('a mixed-case plural gives spec.names.plural Invalid (DNS-1035 label)', () => {
    const causes = validateCrd(
      webPageCrd((c) => {
        c.spec.names.plural = 'WebPages';
        c.metadata.name = 'WebPages.sample.tosdk.io';
      }),
    );
    expectCause(causes, 'spec.names.plural', 'FieldValueInvalid', /a DNS-1035 label must consist of/);
  });

  it('missing plural and kind give Required causes; kind equal to listKind gives Invalid', () => {
    expectCause(
      validateCrd(webPageCrd((c) => delete c.spec.names.kind)),
      'spec.names.kind',
      'FieldValueRequired',
      'Required value',
    );
    const same = validateCrd(webPageCrd((c) => (c.spec.names.listKind = 'WebPage')));
    expectCause(
      same,
      'spec.names.listKind',
      'FieldValueInvalid',
      'Invalid value: "WebPage": kind and listKind may not be the same',
    );
  });

  it('a kind with an underscore gives spec.names.kind "may have mixed case, but should otherwise match"', () => {
    const causes = validateCrd(webPageCrd((c) => (c.spec.names.kind = 'Web_Page')));
    expectCause(
      causes,
      'spec.names.kind',
      'FieldValueInvalid',
      /may have mixed case, but should otherwise match: a DNS-1035 label/,
    );
  });

  it('no versions gives spec.versions Invalid "must have exactly one version marked as storage version"', () => {
    const causes = validateCrd(webPageCrd((c) => (c.spec.versions = [])));
    expectCause(
      causes,
      'spec.versions',
      'FieldValueInvalid',
      'Invalid value: []: must have exactly one version marked as storage version',
    );
  });

  it('two storage versions give spec.versions Invalid "must have exactly one version marked as storage version"', () => {
    const causes = validateCrd(
      webPageCrd((c) => c.spec.versions.push({ ...structuredClone(v0(c)), name: 'v2' })),
    );
    expectCause(
      causes,
      'spec.versions',
      'FieldValueInvalid',
      /must have exactly one version marked as storage version$/,
    );
  });

  it('a version name that is not a DNS-1035 label gives spec.versions[0].name Invalid; a repeated name gives spec.versions Invalid "must contain unique version names"', () => {
    expectCause(
      validateCrd(webPageCrd((c) => (v0(c).name = 'V1'))),
      'spec.versions[0].name',
      'FieldValueInvalid',
      /DNS-1035/,
    );
    const dup = validateCrd(
      webPageCrd((c) => c.spec.versions.push({ ...structuredClone(v0(c)), storage: false })),
    );
    expectCause(
      dup,
      'spec.versions',
      'FieldValueInvalid',
      'Invalid value: ["v1","v1"]: must contain unique version names',
    );
  });

  it('a version without schema gives openAPIV3Schema Required "schemas are required"', () => {
    const causes = validateCrd(webPageCrd((c) => delete v0(c).schema));
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema',
      'FieldValueRequired',
      'Required value: schemas are required',
    );
  });

  it('a field without type gives ...properties[spec].properties[html].type Required "must not be empty for specified object fields"', () => {
    const causes = validateCrd(webPageCrd((c) => delete schemaAt(c, 'spec', 'html').type));
    expect(fields(causes)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[html].type: Required value: must not be empty for specified object fields',
    ]);
  });

  it('array items without type give items.type Required "must not be empty for specified array items"; an array without items gives items Required', () => {
    const causes = validateCrd(webPageCrd((c) => delete schemaAt(c, 'status', 'conditions').items!.type));
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[status].properties[conditions].items.type',
      'FieldValueRequired',
      'Required value: must not be empty for specified array items',
    );
    const noItems = validateCrd(
      webPageCrd((c) => (schemaAt(c, 'spec').properties!.tags = { type: 'array' })),
    );
    expectCause(
      noItems,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items',
      'FieldValueRequired',
      'Required value: must be specified',
    );
  });

  it('a root that is not an object gives openAPIV3Schema.type Invalid "must be object at the root"', () => {
    const causes = validateCrd(webPageCrd((c) => (schemaAt(c).type = 'string')));
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.type',
      'FieldValueInvalid',
      'Invalid value: "string": must be object at the root',
    );
  });

  it('an unknown type gives type Unsupported value', () => {
    const causes = validateCrd(webPageCrd((c) => (schemaAt(c, 'spec', 'html').type = 'text')));
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[html].type',
      'FieldValueNotSupported',
      /Unsupported value: "text": supported values: "array", "boolean"/,
    );
  });

  it('additionalProperties with properties gives additionalProperties Forbidden "mutual exclusive"', () => {
    const causes = validateCrd(
      webPageCrd((c) => (schemaAt(c, 'spec').additionalProperties = { type: 'string' })),
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties',
      'FieldValueForbidden',
      'Forbidden: additionalProperties and properties are mutual exclusive',
    );
  });

  it('x-kubernetes-preserve-unknown-fields: false gives Invalid "must be true or undefined"', () => {
    const causes = validateCrd(
      webPageCrd((c) => (schemaAt(c, 'spec')['x-kubernetes-preserve-unknown-fields'] = false)),
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-preserve-unknown-fields',
      'FieldValueInvalid',
      'Invalid value: false: must be true or undefined',
    );
  });

  it('int-or-string with preserve-unknown-fields gives x-kubernetes-preserve-unknown-fields Invalid "must be false if x-kubernetes-int-or-string is true"', () => {
    const causes = validateCrd(
      webPageCrd((c) => (schemaAt(c, 'spec', 'port')['x-kubernetes-preserve-unknown-fields'] = true)),
    );
    expect(fields(causes)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true',
    ]);
  });

  it('a field with only x-kubernetes-preserve-unknown-fields (any JSON value) needs no type', () => {
    expect(
      validateCrd(
        webPageCrd(
          (c) =>
            (schemaAt(c, 'spec').properties!.anything = { 'x-kubernetes-preserve-unknown-fields': true }),
        ),
      ),
    ).toEqual([]);
  });

  it('additionalProperties at the root gives additionalProperties Forbidden "must not be used at the root"', () => {
    const causes = validateCrd(
      webPageCrd((c) => {
        delete schemaAt(c).properties;
        schemaAt(c).additionalProperties = { type: 'string' };
        v0(c).selectableFields = [];
      }),
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.additionalProperties',
      'FieldValueForbidden',
      'Forbidden: must not be used at the root',
    );
  });

  it("value validations may not carry structure: description, default, nested type and metadata give kube's Forbidden causes (sorted)", () => {
    const causes = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c, 'spec').oneOf = [
            { description: 'x', default: {}, properties: { html: { type: 'string' }, metadata: {} } },
          ]),
      ),
    );
    expect(fields(causes)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].oneOf[0].default: Forbidden: must be undefined to be structural',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].oneOf[0].description: Forbidden: must be empty to be structural',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].oneOf[0].properties[html].type: Forbidden: must be empty to be structural',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].oneOf[0].properties[metadata]: Forbidden: must not be specified in a nested context',
    ]);
  });

  it('an embedded resource of type string gives type Invalid; one without properties or preserve gives properties Required', () => {
    const a = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c, 'spec').properties!.tpl = {
            type: 'string',
            'x-kubernetes-embedded-resource': true,
          }),
      ),
    );
    expectCause(
      a,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tpl].type',
      'FieldValueInvalid',
      'Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
    );
    const b = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c, 'spec').properties!.tpl = {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
          }),
      ),
    );
    expectCause(
      b,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tpl].properties',
      'FieldValueRequired',
      /must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields/,
    );
  });

  it('list-type map without keys gives list-map-keys Required; keys not among item properties give Invalid; list-type on an object gives Invalid', () => {
    const conditions = (c: CrdFixture) => schemaAt(c, 'status', 'conditions');
    const base = 'spec.versions[0].schema.openAPIV3Schema.properties[status].properties[conditions]';
    expectCause(
      validateCrd(webPageCrd((c) => delete conditions(c)['x-kubernetes-list-map-keys'])),
      `${base}.x-kubernetes-list-map-keys`,
      'FieldValueRequired',
      'Required value: must not be empty if x-kubernetes-list-type is map',
    );
    expectCause(
      validateCrd(webPageCrd((c) => (conditions(c)['x-kubernetes-list-map-keys'] = ['name']))),
      `${base}.x-kubernetes-list-map-keys`,
      'FieldValueInvalid',
      /entries must all be names of item properties/,
    );
    expectCause(
      validateCrd(webPageCrd((c) => (conditions(c)['x-kubernetes-list-type'] = 'bag'))),
      `${base}.x-kubernetes-list-type`,
      'FieldValueNotSupported',
      'Unsupported value: "bag": supported values: "atomic", "map", "set"',
    );
    expectCause(
      validateCrd(webPageCrd((c) => (schemaAt(c, 'spec')['x-kubernetes-list-type'] = 'set'))),
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type',
      'FieldValueInvalid',
      'Invalid value: "object": must be array if x-kubernetes-list-type is specified',
    );
    expectCause(
      validateCrd(webPageCrd((c) => (schemaAt(c, 'spec', 'html')['x-kubernetes-list-map-keys'] = ['a']))),
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[html].x-kubernetes-list-type',
      'FieldValueRequired',
      'Required value: must be map if x-kubernetes-list-map-keys is non-empty',
    );
    expectCause(
      validateCrd(webPageCrd((c) => (schemaAt(c, 'spec', 'html')['x-kubernetes-map-type'] = 'atomic'))),
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[html].type',
      'FieldValueInvalid',
      'Invalid value: "string": must be object if x-kubernetes-map-type is specified',
    );
  });

  it('a set of granular objects gives items.x-kubernetes-map-type Invalid "must be atomic"', () => {
    const causes = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c, 'spec').properties!.refs = {
            type: 'array',
            'x-kubernetes-list-type': 'set',
            items: { type: 'object', properties: { a: { type: 'string' } } },
          }),
      ),
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[refs].items.x-kubernetes-map-type',
      'FieldValueInvalid',
      /must be atomic as item of a list with x-kubernetes-list-type=set/,
    );
  });

  it('a required key that is not a property gives required[i] Invalid', () => {
    const causes = validateCrd(webPageCrd((c) => schemaAt(c, 'spec').required!.push('body')));
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].required[1]',
      'FieldValueInvalid',
      'Invalid value: "body": must be one of the names in properties',
    );
  });

  it('a root metadata schema with more than name/generateName gives properties[metadata] Forbidden', () => {
    const causes = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c).properties!.metadata = {
            type: 'object',
            properties: { labels: { type: 'object' } },
          }),
      ),
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[metadata]',
      'FieldValueForbidden',
      /must not specify anything other than name and generateName/,
    );
    expect(
      validateCrd(
        webPageCrd(
          (c) =>
            (schemaAt(c).properties!.metadata = {
              type: 'object',
              properties: { name: { type: 'string', maxLength: 20 } },
            }),
        ),
      ),
    ).toEqual([]);
  });

  it('type inside anyOf gives anyOf[0].type Forbidden "must be empty to be structural"; uniqueItems gives Forbidden', () => {
    const causes = validateCrd(
      webPageCrd((c) => (schemaAt(c, 'spec').anyOf = [{ type: 'object', required: ['html'] }])),
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].anyOf[0].type',
      'FieldValueForbidden',
      'Forbidden: must be empty to be structural',
    );
    const unique = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c, 'spec').properties!.tags = {
            type: 'array',
            uniqueItems: true,
            items: { type: 'string' },
          }),
      ),
    );
    expectCause(
      unique,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].uniqueItems',
      'FieldValueForbidden',
      /uniqueItems cannot be set to true/,
    );
  });

  it('a printer column with an unknown type gives type Invalid "must be one of"; a jsonPath without a leading dot gives Invalid; a missing name gives Required', () => {
    const causes = validateCrd(
      webPageCrd((c) => {
        v0(c).additionalPrinterColumns = [
          { name: 'X', type: 'float', jsonPath: 'spec.x' },
          { type: 'string', jsonPath: '.spec.y' },
        ];
      }),
    );
    expectCause(
      causes,
      'spec.versions[0].additionalPrinterColumns[0].type',
      'FieldValueInvalid',
      'Invalid value: "float": must be one of boolean,date,integer,number,string',
    );
    expectCause(
      causes,
      'spec.versions[0].additionalPrinterColumns[0].JSONPath',
      'FieldValueInvalid',
      'Invalid value: "spec.x": must be a simple json path starting with .',
    );
    expectCause(
      causes,
      'spec.versions[0].additionalPrinterColumns[1].name',
      'FieldValueRequired',
      'Required value',
    );
  });

  it('selectable fields: an unknown path gives Invalid, an object field gives Invalid, more than 8 give Too many, a repeat gives Duplicate', () => {
    const sf = (list: unknown[]) => validateCrd(webPageCrd((c) => (v0(c).selectableFields = list)));
    expectCause(
      sf([{ jsonPath: '.spec.size' }]),
      'spec.versions[0].selectableFields[0].jsonPath',
      'FieldValueInvalid',
      /does not refer to a valid field/,
    );
    expectCause(
      sf([{ jsonPath: '.spec' }]),
      'spec.versions[0].selectableFields[0].jsonPath',
      'FieldValueInvalid',
      /must point to a field of type string, boolean or integer/,
    );
    // only valid distinct paths count toward the limit (kube-apiserver counts the unique resolved paths)
    expectCause(
      validateCrd(
        webPageCrd((c) => {
          for (let i = 0; i < 9; i++) schemaAt(c, 'spec').properties![`f${i}`] = { type: 'string' };
          v0(c).selectableFields = Array.from({ length: 9 }, (_, i) => ({ jsonPath: `.spec.f${i}` }));
        }),
      ),
      'spec.versions[0].selectableFields',
      'FieldValueTooMany',
      'Too many: 9: must have at most 8 items',
    );
    expectCause(
      sf([{ jsonPath: '.spec.color' }, { jsonPath: '.spec.color' }]),
      'spec.versions[0].selectableFields[1].jsonPath',
      'FieldValueDuplicate',
      'Duplicate value: ".spec.color"',
    );
  });

  it('a scale subresource with specReplicasPath outside .spec gives Invalid "should be a json path under .spec"', () => {
    const causes = validateCrd(
      webPageCrd(
        (c) =>
          (v0(c).subresources!.scale = {
            specReplicasPath: '.status.replicas',
            statusReplicasPath: '.status.replicas',
          }),
      ),
    );
    expect(fields(causes)).toEqual([
      'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
    ]);
  });

  it('Webhook conversion without webhook gives spec.conversion.webhookClientConfig Required; an unknown strategy gives Unsupported', () => {
    expectCause(
      validateCrd(webPageCrd((c) => (c.spec.conversion = { strategy: 'Webhook' }))),
      'spec.conversion.webhookClientConfig',
      'FieldValueRequired',
      'Required value: required when strategy is set to Webhook',
    );
    expectCause(
      validateCrd(webPageCrd((c) => (c.spec.conversion = { strategy: 'Magic' }))),
      'spec.conversion.strategy',
      'FieldValueNotSupported',
      'Unsupported value: "Magic": supported values: "None", "Webhook"',
    );
  });

  it('preserveUnknownFields: true gives spec.preserveUnknownFields Invalid', () => {
    expectCause(
      validateCrd(webPageCrd((c) => (c.spec.preserveUnknownFields = true))),
      'spec.preserveUnknownFields',
      'FieldValueInvalid',
      /cannot set to true, set x-kubernetes-preserve-unknown-fields to true/,
    );
  });

  it('a default of the wrong type gives ...default Invalid with the validation message; a default with unknown fields gives "must not have unknown fields"', () => {
    const wrongType = validateCrd(webPageCrd((c) => (schemaAt(c, 'spec', 'replicas').default = 'one')));
    expect(fields(wrongType)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: "string": replicas in body must be of type integer: "string"',
    ]);
    const unknown = validateCrd(
      webPageCrd((c) => {
        schemaAt(c, 'spec').properties!.server = {
          type: 'object',
          default: { port: 80, tls: true },
          properties: { port: { type: 'integer' } },
        };
      }),
    );
    expectCause(
      unknown,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[server].default',
      'FieldValueInvalid',
      'Invalid value: {"port":80,"tls":true}: must not have unknown fields',
    );
    const tooBig = validateCrd(webPageCrd((c) => (schemaAt(c, 'spec', 'replicas').default = 11)));
    expectCause(
      tooBig,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].default',
      'FieldValueInvalid',
      /should be less than or equal to 10/,
    );
  });

  it('an invalid pattern gives pattern Invalid "must be a valid regular expression"; items given as a list gives items Forbidden', () => {
    const causes = validateCrd(webPageCrd((c) => (schemaAt(c, 'spec', 'html').pattern = '(')));
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[html].pattern',
      'FieldValueInvalid',
      /^Invalid value: "\(": must be a valid regular expression, but isn't: /,
    );
    const list = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c, 'spec').properties!.tags = {
            type: 'array',
            items: [{ type: 'string' }] as unknown as JsonSchemaProps,
          }),
      ),
    );
    expectCause(
      list,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items',
      'FieldValueForbidden',
      'Forbidden: items must be a schema object and not an array',
    );
  });

  it('x-kubernetes-validations: a rule without rule text gives rule Required; an unknown reason gives Unsupported; well-formed rules are accepted', () => {
    const causes = validateCrd(
      webPageCrd(
        (c) =>
          (schemaAt(c, 'spec')['x-kubernetes-validations'] = [
            { message: 'm' },
            { rule: 'self.replicas <= 5', reason: 'Bad' },
          ]),
      ),
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
      'FieldValueRequired',
      'Required value: rule is not specified',
    );
    expectCause(
      causes,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].reason',
      'FieldValueNotSupported',
      /Unsupported value: "Bad"/,
    );
    expect(
      validateCrd(
        webPageCrd(
          (c) => (schemaAt(c, 'spec')['x-kubernetes-validations'] = [{ rule: 'self.replicas <= 5' }]),
        ),
      ),
    ).toEqual([]);
    const badPath = validateCrd(
      webPageCrd(
        (c) => (schemaAt(c, 'spec')['x-kubernetes-validations'] = [{ rule: 'true', fieldPath: '.nope' }]),
      ),
    );
    expectCause(
      badPath,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath',
      'FieldValueInvalid',
      'Invalid value: ".nope": fieldPath must be a valid path',
    );
  });

  it('accepts int-or-string written as controller-gen does (anyOf integer/string), but not type inside anyOf otherwise', () => {
    const port = { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
    expect(validateCrd(webPageCrd((c) => (schemaAt(c, 'spec').properties!.port = port)))).toEqual([]);
    const quantity = {
      allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+(m|Mi)?$' }],
      'x-kubernetes-int-or-string': true,
    };
    expect(validateCrd(webPageCrd((c) => (schemaAt(c, 'spec').properties!.cpu = quantity)))).toEqual([]);
    const notIntOrString = { anyOf: [{ type: 'integer' }, { type: 'string' }] };
    expectCause(
      validateCrd(webPageCrd((c) => (schemaAt(c, 'spec').properties!.port = notIntOrString))),
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[port].anyOf[0].type',
      'FieldValueForbidden',
      'Forbidden: must be empty to be structural',
    );
  });

  describe('on update', () => {
    const established = (crd: CrdFixture) => ({
      ...crd,
      status: {
        conditions: [{ type: 'Established', status: 'True' }],
        storedVersions: ['v1'],
      },
    });

    it('a changed group gives spec.group "field is immutable"; a changed plural gives spec.names.plural "field is immutable"', () => {
      const old = established(webPageCrd());
      const causes = validateCrd(
        webPageCrd((c) => {
          c.spec.group = 'other.tosdk.io';
          c.metadata.name = 'webpages.other.tosdk.io';
        }),
        old,
      );
      expectCause(
        causes,
        'spec.group',
        'FieldValueInvalid',
        'Invalid value: "other.tosdk.io": field is immutable',
      );
      const plural = validateCrd(
        webPageCrd((c) => {
          c.spec.names.plural = 'pages';
          c.metadata.name = 'pages.sample.tosdk.io';
        }),
        old,
      );
      expectCause(
        plural,
        'spec.names.plural',
        'FieldValueInvalid',
        'Invalid value: "pages": field is immutable',
      );
    });

    it('a changed scope of an established CRD gives spec.scope "field is immutable"; before Established it is allowed', () => {
      const changed = webPageCrd((c) => (c.spec.scope = 'Cluster'));
      expectCause(
        validateCrd(changed, established(webPageCrd())),
        'spec.scope',
        'FieldValueInvalid',
        'Invalid value: "Cluster": field is immutable',
      );
      expect(validateCrd(changed, webPageCrd())).toEqual([]);
    });

    it('removing a version that is in status.storedVersions gives status.storedVersions[0] "missing from spec.versions; ..."', () => {
      const old = established(webPageCrd());
      const next = webPageCrd((c) => (v0(c).name = 'v2'));
      expect(fields(validateCrd(next, old))).toEqual([
        'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
      ]);
    });
  });
});

import { describe, expect, it } from '@jest/globals';
import { compileCrd } from '../index.js';
import type { JsonSchemaProps } from '../index.js';
import type { JsonObject, StatusCause } from '../../types.js';

/**
 * Review (session 10): what CEL rules may read under x-kubernetes-preserve-unknown-fields.
 * kube-apiserver types `self` from the schema only (k8s.io/apiserver pkg/cel/common/schemas.go,
 * SchemaDeclType: "The CEL declaration for objects with XPreserveUnknownFields does not expose
 * unknown fields"; an object is an object type of its declared properties, a map only with
 * additionalProperties; a schema without a type, other than int-or-string, is not exposed at all),
 * so a rule that reads a field the schema does not declare does not compile ("undefined field"),
 * and a rule on a node that is not exposed is refused with "failed to convert to declType for CEL
 * validation rules" (apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go, reported as
 * an internal field error by apis/apiextensions/validation/validation.go).
 */
const crdOf = (spec: JsonSchemaProps): JsonObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.s10.tosdk.io' },
  spec: {
    group: 's10.tosdk.io',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
      },
    ],
  },
});

function crdCauses(spec: JsonSchemaProps): string[] {
  try {
    compileCrd(crdOf(spec));
    return [];
  } catch (err) {
    return (err as { causes: StatusCause[] }).causes.map((c) => `${c.field}: ${c.message}`);
  }
}

describe('review s10: CEL rules over preserved unknown fields', () => {
  it('[FINDING S10-CEL1] a rule reading an undeclared field of a preserve-unknown-fields object does not compile, as in kube-apiserver', () => {
    const causes = crdCauses({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-validations': [{ rule: "self.mode == 'fast'" }],
    });
    expect(causes).toHaveLength(1);
    expect(causes[0]).toContain(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value:',
    );
    expect(causes[0]).toContain("compilation failed: ERROR: <input>:1:5: undefined field 'mode'");
  });

  it('[FINDING S10-CEL1] with declared properties too, only they are readable', () => {
    const declared = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { size: { type: 'integer' } },
    } satisfies JsonSchemaProps;
    expect(crdCauses({ ...declared, 'x-kubernetes-validations': [{ rule: 'self.size > 0' }] })).toEqual([]);
    const causes = crdCauses({ ...declared, 'x-kubernetes-validations': [{ rule: 'self.extra > 0' }] });
    expect(causes).toHaveLength(1);
    expect(causes[0]).toContain("undefined field 'extra'");
  });

  it('[FINDING S10-CEL1] an object without properties has no fields to read, not even to test with has()', () => {
    const causes = crdCauses({
      type: 'object',
      properties: {
        config: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
      'x-kubernetes-validations': [{ rule: "!has(self.config.mode) || self.config.mode != ''" }],
    });
    expect(causes).toHaveLength(1);
    expect(causes[0]).toContain("undefined field 'mode'");
  });

  it('[FINDING S10-CEL2] a rule on a schema without a type (preserve-unknown-fields only) is refused: CEL cannot type it', () => {
    expect(
      crdCauses({
        'x-kubernetes-preserve-unknown-fields': true,
        'x-kubernetes-validations': [{ rule: 'true' }],
      }),
    ).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations: Internal error: failed to convert to declType for CEL validation rules',
    ]);
  });

  it('[FINDING S10-CEL2] a typeless field is not exposed: its parent rule cannot read it', () => {
    const causes = crdCauses({
      type: 'object',
      properties: { anything: { 'x-kubernetes-preserve-unknown-fields': true }, n: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'has(self.anything)' }],
    });
    expect(causes).toHaveLength(1);
    expect(causes[0]).toContain("undefined field 'anything'");
    // an int-or-string field stays readable (as dyn)
    expect(
      crdCauses({
        type: 'object',
        properties: { port: { 'x-kubernetes-int-or-string': true } },
        'x-kubernetes-validations': [{ rule: 'type(self.port) == int ? self.port > 0 : true' }],
      }),
    ).toEqual([]);
  });
});

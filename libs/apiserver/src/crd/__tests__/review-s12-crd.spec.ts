import { describe, expect, it } from '@jest/globals';
import { compileCrd } from '../index.js';
import type { JsonSchemaProps } from '../index.js';
import type { JsonObject } from '../../types.js';

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

/** Admits a Gadget with `spec` on create; returns the admitted object and the causes. */
function admitSpec(root: JsonSchemaProps, spec: unknown): { obj: JsonObject; causes: string[] } {
  const version = compileCrd(crdOf(root)).versions[0];
  if (!version) throw new Error('the CRD has no version');
  const obj: JsonObject = { apiVersion: 's12.tosdk.io/v1', kind: 'Gadget', metadata: { name: 'g' }, spec };
  const causes = version.admit(obj, 'create').map((c) => `${c.field}: ${c.message}`);
  return { obj, causes };
}

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
});

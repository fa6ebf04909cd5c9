// `tosdk generate crds`: a definition Kubernetes would reject fails generation with a message naming
// the CRD and the field: the structural rules are checked by tosdk, then the CRD is created on an
// in-memory @tosdk/apiserver (Kubernetes' CRD validation, CEL compilation).
import { describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import { defineResource, K8s } from '@tosdk/core';
import { generateCrds, TosdkCliError } from '@tosdk/cli';

const gadget = (
  spec: ReturnType<typeof Type.Object>,
  validations?: Array<{ rule: string; message?: string }>,
) =>
  defineResource({
    group: 'example.com',
    version: 'v1',
    kind: 'Gadget',
    schema: { spec, status: Type.Object({ ok: Type.Optional(Type.Boolean()) }), validations },
  });

async function failure(p: Promise<unknown>): Promise<TosdkCliError> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(TosdkCliError);
  expect((e as TosdkCliError).code).toBe('InvalidDefinition');
  return e as TosdkCliError;
}

describe('tosdk generate crds', () => {
  it('generates a CRD the API server accepts, CEL rules included', async () => {
    const [crd] = await generateCrds([
      gadget(
        Type.Object(
          { min: Type.Integer(), max: Type.Integer(), size: K8s.IntOrString() },
          K8s.rules({ rule: 'self.min <= self.max', message: 'min must not exceed max' }),
        ),
        [{ rule: 'self.metadata.name.size() < 20', message: 'name too long' }],
      ),
    ]);
    expect(crd.metadata.name).toBe('gadgets.example.com');
  });

  it('fails on a CEL rule that does not compile, naming the CRD and the field', async () => {
    const e = await failure(
      generateCrds([
        gadget(Type.Object({ min: Type.Integer() }, K8s.rules({ rule: 'self.min <= ', message: 'x' }))),
      ]),
    );
    expect(e.message).toContain('gadgets.example.com');
    expect(e.message).toContain(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    );
    expect(e.message).toContain('x-kubernetes-validations[0]');
  });

  it('fails on a non-structural schema before reaching the server, naming the field', async () => {
    const e = await failure(generateCrds([gadget(Type.Object({ any: Type.Unsafe({ minimum: 1 }) }))]));
    expect(e.message).toBe(
      'CRD gadgets.example.com: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.any.type: every field needs a type in a structural schema (or K8s.IntOrString / K8s.PreserveUnknownFields)',
    );
  });

  it('fails on two storage versions', async () => {
    const v2 = defineResource({
      group: 'example.com',
      version: 'v2',
      kind: 'Gadget',
      storage: true,
      schema: { spec: Type.Object({}) },
    });
    const v1 = defineResource({
      group: 'example.com',
      version: 'v1',
      kind: 'Gadget',
      storage: true,
      schema: { spec: Type.Object({}) },
    });
    const e = await failure(generateCrds([v1, v2]));
    expect(e.message).toContain('versions v1 and v2 of Gadget are both storage versions');
  });
});

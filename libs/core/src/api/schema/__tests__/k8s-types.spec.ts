import { describe, expect, it } from '@jest/globals';
import { Kind, Type, TypeGuard } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { K8s } from '../../../index.js';

// K8s builds its schemas without importing TypeBox at run time (issue 15 §3: TypeBox is ~15 MB of
// RSS at import). These tests hold the hand-made schemas to TypeBox's own output, so a TypeBox
// upgrade that changes the representation fails here rather than in a user's CRD.

const item = Type.Object({ name: Type.String(), port: Type.Integer() });
const options = { description: 'the thing', default: undefined, title: 't' };

describe('K8s schema builders are TypeBox schemas', () => {
  it('each builder makes exactly what TypeBox makes (symbol Kind included)', () => {
    const pairs: [unknown, unknown][] = [
      [K8s.IntOrString(options), Type.Unsafe({ ...options, 'x-kubernetes-int-or-string': true })],
      [
        K8s.PreserveUnknownFields({ description: 'x' }),
        Type.Unsafe({ description: 'x', type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      ],
      [
        K8s.EmbeddedResource(),
        Type.Unsafe({
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        }),
      ],
      [
        K8s.ListMap(item, ['name'], { maxItems: 3 }),
        Type.Array(item, {
          maxItems: 3,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        }),
      ],
      [K8s.ListSet(Type.String()), Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' })],
      [K8s.ListAtomic(item), Type.Array(item, { 'x-kubernetes-list-type': 'atomic' })],
      [K8s.Nullable(Type.String()), Type.Union([Type.String(), Type.Null()])],
    ];
    for (const [ours, typebox] of pairs) {
      expect(ours).toStrictEqual(typebox);
      expect((ours as Record<symbol, unknown>)[Kind]).toBe((typebox as Record<symbol, unknown>)[Kind]);
      expect(TypeGuard.IsSchema(ours)).toBe(true);
    }
  });

  it('TypeBox validates values against them as against its own (Unsafe kinds aside, as in TypeBox)', () => {
    const schema = Type.Object({
      ports: K8s.ListMap(item, ['name']),
      note: K8s.Nullable(Type.String()),
    });
    expect(Value.Check(schema, { ports: [{ name: 'http', port: 80 }], note: null })).toBe(true);
    expect(Value.Check(schema, { ports: [], note: 'n' })).toBe(true);
    expect(Value.Check(schema, { ports: [{ name: 'http' }], note: null })).toBe(false);
    expect(Value.Check(schema, { ports: [], note: 3 })).toBe(false);
  });

  it('a schema kind passed in options is kept, as Type.Unsafe keeps it', () => {
    const withKind = { [Kind]: 'String', type: 'string' } as const;
    expect(K8s.IntOrString(withKind)).toStrictEqual(
      Type.Unsafe({ ...withKind, 'x-kubernetes-int-or-string': true }),
    );
  });
});

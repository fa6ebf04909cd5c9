import { describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import {
  customResourceDefinitions,
  defineResource,
  InvalidResourceDefinitionError,
  K8s,
} from '../../../index.js';
import type { ResourceOf } from '../../../index.js';

const Widget = defineResource({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  scope: 'Cluster',
  shortNames: ['wg'],
  categories: ['all'],
  storage: true,
  schema: {
    description: 'A widget.',
    spec: Type.Object(
      {
        size: Type.Union([Type.Literal('small'), Type.Literal('large')], { default: 'small' }),
        replicas: Type.Integer({ minimum: 0, exclusiveMaximum: 10 }),
        port: K8s.IntOrString(),
        extra: K8s.PreserveUnknownFields(),
        labels: Type.Optional(Type.Record(Type.String(), Type.String())),
        ports: K8s.ListMap(Type.Object({ name: Type.String(), port: Type.Integer() }), ['name']),
        tags: Type.Optional(K8s.ListSet(Type.String())),
        note: K8s.Nullable(Type.String({ format: 'date-time' })),
        anything: Type.Unknown(),
      },
      { ...K8s.rules({ rule: 'self.replicas >= 0', message: 'replicas must not be negative' }) },
    ),
    status: Type.Object({ replicas: Type.Optional(Type.Integer()) }),
  },
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
});
const WidgetV2 = defineResource({
  group: 'example.com',
  version: 'v2',
  kind: 'Widget',
  scope: 'Cluster',
  shortNames: ['wg'],
  categories: ['all'],
  storage: false,
  deprecated: 'use v1',
  schema: { spec: Type.Object({ size: Type.String() }) },
});

describe('customResourceDefinitions', () => {
  it('types spec and status from the schemas', () => {
    const w: ResourceOf<typeof Widget> = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      spec: {
        size: 'large',
        replicas: 1,
        port: 'http',
        extra: {},
        ports: [{ name: 'a', port: 1 }],
        note: null,
        anything: 1,
      },
      status: { replicas: 1 },
    };
    // @ts-expect-error size is a literal union
    const bad: ResourceOf<typeof Widget>['spec'] = { ...w.spec!, size: 'medium' };
    expect(bad).toBeDefined();
  });

  it('maps TypeBox to the structural schema Kubernetes expects, with versions, names and subresources', () => {
    const [crd] = customResourceDefinitions([Widget, WidgetV2]);
    expect(crd.metadata.name).toBe('widgets.example.com');
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.names).toEqual({
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wg'],
      categories: ['all'],
    });
    const [v1, v2] = crd.spec.versions;
    expect(v1).toMatchObject({ name: 'v1', served: true, storage: true });
    expect(v2).toMatchObject({ name: 'v2', storage: false, deprecated: true, deprecationWarning: 'use v1' });
    expect(v1['subresources']).toEqual({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    });
    interface Node {
      [k: string]: unknown;
      properties: Record<string, Node>;
      required: string[];
    }
    const spec = (v1['schema'] as { openAPIV3Schema: Node }).openAPIV3Schema.properties['spec'];
    expect(spec['x-kubernetes-validations']).toEqual([
      { rule: 'self.replicas >= 0', message: 'replicas must not be negative' },
    ]);
    expect(spec.properties['size']).toEqual({ type: 'string', default: 'small', enum: ['small', 'large'] });
    expect(spec.properties['replicas']).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 10,
      exclusiveMaximum: true,
    });
    expect(spec.properties['port']).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(spec.properties['extra']).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(spec.properties['labels']).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(spec.properties['ports']).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    expect(spec.properties['tags']['x-kubernetes-list-type']).toBe('set');
    expect(spec.properties['note']).toEqual({ type: 'string', format: 'date-time', nullable: true });
    expect(spec.properties['anything']).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec.required).toEqual(expect.arrayContaining(['size', 'replicas', 'ports', 'note']));
    expect(spec.required).not.toContain('labels');
    expect(JSON.stringify(crd)).not.toMatch(/anyOf|const|patternProperties/);
  });

  it('[FINDING S12-DOC18] a version is typed as a CRD version: its schema, subresources and columns read without casts', () => {
    const [crd] = customResourceDefinitions([Widget, WidgetV2]);
    const v1 = crd.spec.versions[0];
    // before: versions were JsonSchemaProps[] and this did not compile (TS2339 on openAPIV3Schema)
    const schema = v1.schema.openAPIV3Schema;
    expect(schema.type).toBe('object');
    expect(v1.subresources?.scale?.specReplicasPath).toBe('.spec.replicas');
    expect([v1.name, v1.served, v1.storage]).toEqual(['v1', true, true]);
  });

  it('carries the conversion of the kind (webhook for a later version)', () => {
    const conversion = {
      strategy: 'Webhook' as const,
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'conv', namespace: 'ops', path: '/convert' } },
      },
    };
    const v1 = defineResource({
      group: 'example.com',
      version: 'v1',
      kind: 'Shape',
      storage: true,
      conversion,
      schema: { spec: Type.Object({}) },
    });
    const v2 = defineResource({
      group: 'example.com',
      version: 'v2',
      kind: 'Shape',
      conversion,
      schema: { spec: Type.Object({ x: Type.Integer() }) },
    });
    expect(customResourceDefinitions([v1, v2])[0].spec.conversion).toEqual(conversion);
    const other = defineResource({
      group: 'example.com',
      version: 'v3',
      kind: 'Shape',
      schema: { spec: Type.Object({}) },
    });
    expect(() => customResourceDefinitions([v1, other])).toThrow(
      /different singular, shortNames, categories or conversion/,
    );
  });

  it('skips kinds declared without a schema', () => {
    const plain = defineResource({ group: 'example.com', version: 'v1', kind: 'Plain' });
    expect(customResourceDefinitions([plain])).toEqual([]);
  });

  const failure = (f: () => unknown): InvalidResourceDefinitionError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidResourceDefinitionError);
      return e as InvalidResourceDefinitionError;
    }
    throw new Error('expected an InvalidResourceDefinitionError');
  };
  const withSpec = (spec: Parameters<typeof Type.Object>[0] | ReturnType<typeof Type.Unsafe>) =>
    defineResource({
      group: 'example.com',
      version: 'v1',
      kind: 'Gadget',
      schema: { spec: 'type' in spec || 'properties' in spec ? (spec as never) : Type.Object(spec as never) },
    });

  it('rejects two storage versions, naming both', () => {
    const e = failure(() =>
      customResourceDefinitions([
        Widget,
        { ...WidgetV2, definition: { ...WidgetV2.definition!, version: { storage: true } } },
      ]),
    );
    expect(e.code).toBe('InvalidResourceDefinition');
    expect(e.message).toContain('widgets.example.com');
    expect(e.message).toContain('v1 and v2');
    expect(e.field).toBe('spec.versions[].storage');
  });

  it('rejects versions that disagree on scope', () => {
    const other = defineResource({
      group: 'example.com',
      version: 'v3',
      kind: 'Widget',
      shortNames: ['wg'],
      categories: ['all'],
      schema: { spec: Type.Object({}) },
    });
    expect(failure(() => customResourceDefinitions([Widget, other])).field).toBe('spec.scope');
  });

  it.each([
    ['a field without a type', { x: Type.Unsafe({ minLength: 1 }) }, 'properties.spec.properties.x.type'],
    [
      'a tuple',
      { x: Type.Tuple([Type.String(), Type.Integer()]) },
      'properties.spec.properties.x.additionalItems',
    ],
    [
      'additionalProperties: false',
      { x: Type.Object({}, { additionalProperties: false }) },
      'properties.spec.properties.x.additionalProperties',
    ],
    [
      'a union of types (no structural type)',
      { x: Type.Union([Type.String(), Type.Integer()]) },
      'properties.spec.properties.x.type',
    ],
    [
      'a map list key that is not required',
      { x: K8s.ListMap(Type.Object({ k: Type.Optional(Type.String()) }), ['k']) },
      'properties.spec.properties.x.items.required',
    ],
    [
      'a set of objects',
      { x: K8s.ListSet(Type.Object({})) },
      'properties.spec.properties.x.x-kubernetes-list-type',
    ],
    ['an unknown keyword', { x: Type.String({ $comment: 'hi' }) }, 'properties.spec.properties.x.$comment'],
    [
      'an empty CEL rule',
      { x: Type.String(K8s.rules({ rule: ' ' })) },
      'properties.spec.properties.x.x-kubernetes-validations[0].rule',
    ],
  ])('rejects %s, naming the field', (_what, spec, field) => {
    const e = failure(() => customResourceDefinitions([withSpec(spec)]));
    expect(e.field).toBe(`spec.versions[0].schema.openAPIV3Schema.${field}`);
    expect(e.message).toContain('gadgets.example.com');
  });
});

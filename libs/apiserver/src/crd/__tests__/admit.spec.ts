import { describe, expect, it } from '@jest/globals';
import { compileCrd, CrdError } from '../index.js';
import type { CompiledVersion, JsonSchemaProps } from '../index.js';
import type { JsonObject, StatusCause } from '../../types.js';
import { v0, webPageCrd } from './fixtures.js';

function versionWith(schema: JsonSchemaProps): CompiledVersion {
  const crd = webPageCrd((c) => {
    v0(c).schema = { openAPIV3Schema: schema };
    v0(c).selectableFields = [];
    v0(c).additionalPrinterColumns = [];
  });
  const version = compileCrd(crd).versions[0];
  if (!version) throw new Error('no version');
  return version;
}

function webPage(spec: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'sample.tosdk.io/v1',
    kind: 'WebPage',
    metadata: { name: 'home', namespace: 'default' },
    spec,
    ...extra,
  };
}

function lines(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}

const webPageVersion = (): CompiledVersion => {
  const v = compileCrd(webPageCrd()).versions[0];
  if (!v) throw new Error('no version');
  return v;
};

describe('compileCrd', () => {
  it('fills names, scope, storage version, subresources and the Age column when none is declared', () => {
    const compiled = compileCrd(webPageCrd((c) => delete v0(c).additionalPrinterColumns));
    expect(compiled.group).toBe('sample.tosdk.io');
    expect(compiled.names).toEqual({
      plural: 'webpages',
      singular: 'webpage',
      kind: 'WebPage',
      listKind: 'WebPageList',
      shortNames: ['wp'],
      categories: [],
    });
    expect(compiled.scope).toBe('Namespaced');
    expect(compiled.storageVersion).toBe('v1');
    expect(compiled.conversion).toBe('None');
    expect(compiled.versions[0]?.statusSubresource).toBe(true);
    expect(compiled.versions[0]?.scaleSubresource).toBeUndefined();
    expect(compiled.versions[0]?.printerColumns).toEqual([
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', priority: 0 },
    ]);
    expect(compiled.versions[0]?.selectableFields).toEqual(['spec.color', 'spec.replicas']);
  });

  it('throws CrdError CRD_INVALID with the causes for an invalid CRD', () => {
    let caught: unknown;
    try {
      compileCrd(webPageCrd((c) => (c.spec.scope = 'Global')));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CrdError);
    expect((caught as CrdError).code).toBe('CRD_INVALID');
    expect((caught as CrdError).causes.map((c) => c.field)).toEqual(['spec.scope']);
  });

  it('a deprecated version warns to use the preferred non-deprecated served version', () => {
    const compiled = compileCrd(
      webPageCrd((c) => {
        v0(c).deprecated = true;
        v0(c).storage = false;
        c.spec.versions.push({
          ...structuredClone(v0(c)),
          name: 'v2beta1',
          deprecated: false,
          storage: true,
        });
        c.spec.versions.push({ ...structuredClone(v0(c)), name: 'v2', deprecated: false, storage: false });
      }),
    );
    expect(compiled.versions[0]?.deprecationWarning).toBe(
      'sample.tosdk.io/v1 WebPage is deprecated; use sample.tosdk.io/v2 WebPage',
    );
  });

  it('applyDefaults fills defaults on read without pruning or validating', () => {
    const obj = webPage({ html: 'x', extra: true });
    webPageVersion().applyDefaults(obj);
    expect(obj.spec).toEqual({ html: 'x', extra: true, replicas: 1 });
  });

  it('reads the scale subresource and a deprecated version with its default warning', () => {
    const compiled = compileCrd(
      webPageCrd((c) => {
        v0(c).subresources = {
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        };
        v0(c).deprecated = true;
      }),
    );
    expect(compiled.versions[0]?.scaleSubresource).toEqual({
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
    });
    expect(compiled.versions[0]?.statusSubresource).toBe(false);
    expect(compiled.versions[0]?.deprecationWarning).toBe('sample.tosdk.io/v1 WebPage is deprecated');
  });
});

describe('admit: pruning', () => {
  it('drops unknown fields at every level but keeps apiVersion, kind and all of metadata at the root', () => {
    const obj = webPage(
      { html: '<p/>', colour: 'red' },
      { extra: 1, metadata: { name: 'home', labels: { a: 'b' } } },
    );
    expect(webPageVersion().admit(obj, 'create')).toEqual([]);
    expect(obj).toEqual({
      apiVersion: 'sample.tosdk.io/v1',
      kind: 'WebPage',
      metadata: { name: 'home', labels: { a: 'b' } },
      spec: { html: '<p/>', replicas: 1 },
    });
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields, still pruning the known fields below it', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: {
            known: { type: 'object', properties: { a: { type: 'string' } } },
            free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    });
    const obj = webPage({ anything: { deep: [1, 2] }, known: { a: 'x', b: 'gone' }, free: { x: { y: 1 } } });
    expect(v.unknownFields(obj)).toEqual(['spec.known.b']);
    expect(v.admit(obj, 'create')).toEqual([]);
    expect(obj.spec).toEqual({ anything: { deep: [1, 2] }, known: { a: 'x' }, free: { x: { y: 1 } } });
  });

  it('a schemaless CRD (root x-kubernetes-preserve-unknown-fields) keeps everything and validates nothing else', () => {
    const v = versionWith({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    const obj = webPage({ anything: [1, { deep: true }] }, { status: { free: 'form' } });
    expect(v.unknownFields(obj)).toEqual([]);
    expect(v.admit(obj, 'create')).toEqual([]);
    expect(obj).toMatchObject({ spec: { anything: [1, { deep: true }] }, status: { free: 'form' } });
  });

  it('prunes inside list items and map values, and reports the paths as unknown fields', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
            byName: {
              type: 'object',
              additionalProperties: { type: 'object', properties: { n: { type: 'integer' } } },
            },
          },
        },
      },
    });
    const obj = webPage({ items: [{ name: 'a', junk: 1 }], byName: { x: { n: 1, junk: 2 } } });
    expect(v.unknownFields(obj)).toEqual(['spec.items[0].junk', 'spec.byName.x.junk']);
    expect(obj.spec).toEqual({ items: [{ name: 'a', junk: 1 }], byName: { x: { n: 1, junk: 2 } } });
    expect(v.admit(obj, 'create')).toEqual([]);
    expect(obj.spec).toEqual({ items: [{ name: 'a' }], byName: { x: { n: 1 } } });
  });

  it('an embedded resource keeps apiVersion, kind and metadata and prunes the rest by its schema', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
            },
          },
        },
      },
    });
    const obj = webPage({
      template: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { labels: { app: 'x' } },
        spec: { image: 'nginx', junk: true },
        other: 1,
      },
    });
    expect(v.admit(obj, 'create')).toEqual([]);
    expect(obj.spec).toEqual({
      template: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { labels: { app: 'x' } },
        spec: { image: 'nginx' },
      },
    });
  });

  it('an embedded resource without apiVersion and kind gives Required "must not be empty" for both', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
            },
          },
        },
      },
    });
    expect(lines(v.admit(webPage({ template: { metadata: {} } }), 'create'))).toEqual([
      'spec.template.apiVersion: Required value: must not be empty',
      'spec.template.kind: Required value: must not be empty',
    ]);
  });
});

describe('admit: defaults', () => {
  const schema: JsonSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          size: { type: 'integer', default: 3 },
          server: {
            type: 'object',
            default: { port: 80 },
            properties: { port: { type: 'integer' }, tls: { type: 'boolean', default: false } },
          },
          optional: { type: 'object', properties: { inner: { type: 'string', default: 'x' } } },
          ports: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } },
            },
          },
          labels: {
            type: 'object',
            additionalProperties: { type: 'object', properties: { v: { type: 'string', default: 'd' } } },
          },
          nullable: { type: 'string', nullable: true, default: 'n' },
          notNullable: { type: 'string', default: 'nn' },
          plain: { type: 'string' },
        },
      },
    },
  };

  it('fills absent fields, defaults inside defaults, and array items and map values, but not absent parents', () => {
    const obj = webPage({ ports: [{ name: 'http' }, { name: 'https', protocol: 'UDP' }], labels: { a: {} } });
    expect(versionWith(schema).admit(obj, 'create')).toEqual([]);
    expect(obj.spec).toEqual({
      size: 3,
      server: { port: 80, tls: false },
      ports: [
        { name: 'http', protocol: 'TCP' },
        { name: 'https', protocol: 'UDP' },
      ],
      labels: { a: { v: 'd' } },
      notNullable: 'nn',
      nullable: 'n',
    });
    expect('optional' in (obj.spec as JsonObject)).toBe(false);
  });

  it('defaults a whole absent spec (default {}) and then its fields', () => {
    const obj: JsonObject = { apiVersion: 'sample.tosdk.io/v1', kind: 'WebPage', metadata: { name: 'x' } };
    versionWith(schema).admit(obj, 'create');
    expect(obj.spec).toEqual({ size: 3, server: { port: 80, tls: false }, nullable: 'n', notNullable: 'nn' });
  });

  it('a null in a non-nullable field gets the default; a null without default is dropped; a nullable null stays', () => {
    const obj = webPage({ notNullable: null, plain: null, nullable: null, size: null });
    expect(versionWith(schema).admit(obj, 'create')).toEqual([]);
    expect(obj.spec).toMatchObject({ notNullable: 'nn', nullable: null, size: 3 });
    expect('plain' in (obj.spec as JsonObject)).toBe(false);
  });

  it('never defaults into the root metadata', () => {
    const obj = webPage({ html: 'x' });
    webPageVersion().admit(obj, 'create');
    expect(obj.metadata).toEqual({ name: 'home', namespace: 'default' });
  });
});

describe('admit: validation', () => {
  it('a string where an integer is expected gives FieldValueTypeInvalid worded like kube-openapi', () => {
    const causes = webPageVersion().admit(webPage({ html: 'x', replicas: 'two' }), 'create');
    expect(causes).toEqual([
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      },
    ]);
  });

  it('a missing required field gives FieldValueRequired at the field', () => {
    expect(webPageVersion().admit(webPage({}), 'create')).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.html', message: 'Required value' },
    ]);
  });

  it('maximum, enum, format and minimum violations give their causes', () => {
    const causes = webPageVersion().admit(
      webPage({ html: 'x', replicas: 11, color: 'pink', when: 'yesterday' }),
      'create',
    );
    expect(lines(causes)).toEqual([
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      'spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    ]);
    expect(lines(webPageVersion().admit(webPage({ html: 'x', replicas: -1 }), 'create'))).toEqual([
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ]);
  });

  it('controller-gen style int-or-string with a pattern validates strings and accepts integers', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            cpu: {
              anyOf: [{ type: 'integer' }, { type: 'string' }],
              pattern: '^[0-9]+m?$',
              'x-kubernetes-int-or-string': true,
            },
          },
        },
      },
    });
    expect(v.admit(webPage({ cpu: 2 }), 'create')).toEqual([]);
    expect(v.admit(webPage({ cpu: '500m' }), 'create')).toEqual([]);
    expect(lines(v.admit(webPage({ cpu: 'lots' }), 'create'))).toEqual([
      'spec.cpu: Invalid value: "lots": spec.cpu in body should match \'^[0-9]+m?$\'',
    ]);
    expect(lines(v.admit(webPage({ cpu: true }), 'create'))).toEqual([
      'spec.cpu: Invalid value: "boolean": spec.cpu in body must be of type integer,string: "boolean"',
    ]);
  });

  it('int-or-string accepts 8080 and "http" and rejects true and 1.5', () => {
    const v = webPageVersion();
    expect(v.admit(webPage({ html: 'x', port: 8080 }), 'create')).toEqual([]);
    expect(v.admit(webPage({ html: 'x', port: 'http' }), 'create')).toEqual([]);
    expect(lines(v.admit(webPage({ html: 'x', port: true }), 'create'))).toEqual([
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
    expect(v.admit(webPage({ html: 'x', port: 1.5 }), 'create').map((c) => c.reason)).toEqual([
      'FieldValueTypeInvalid',
    ]);
  });

  it('nullable accepts null; a non-nullable field without default rejects nothing because the null is dropped, a nested required then fails', () => {
    const v = webPageVersion();
    const obj = webPage({ html: 'x', note: null });
    expect(v.admit(obj, 'create')).toEqual([]);
    expect((obj.spec as JsonObject).note).toBeNull();
    expect(lines(v.admit(webPage({ html: null }), 'create'))).toEqual(['spec.html: Required value']);
  });

  it('int32/int64 formats are not range-checked (as in Kubernetes), but the integer type is', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { n: { type: 'integer', format: 'int32' }, big: { type: 'integer', format: 'int64' } },
        },
      },
    });
    expect(v.admit(webPage({ n: 2 ** 40, big: 2 ** 52 }), 'create')).toEqual([]);
    expect(lines(v.admit(webPage({ n: 2.5 }), 'create'))).toEqual([
      'spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"',
    ]);
  });

  it('duplicate items of a set and duplicate keys of a map list give FieldValueDuplicate', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
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
        },
      },
    });
    const causes = v.admit(
      webPage({
        tags: ['a', 'b', 'a'],
        ports: [{ port: 80 }, { port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }],
      }),
      'create',
    );
    expect(lines(causes)).toEqual([
      'spec.tags[2]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}',
    ]);
  });

  it('anyOf reports one combined cause, not one per branch', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'string' } },
          anyOf: [{ required: ['a'] }, { required: ['b'] }],
        },
      },
    });
    expect(lines(v.admit(webPage({}), 'create'))).toEqual([
      'spec: Invalid value: {}: spec in body must validate at least one schema (anyOf)',
    ]);
    expect(v.admit(webPage({ b: 'x' }), 'create')).toEqual([]);
  });

  it('root metadata is not validated by the schema except name constraints', () => {
    const v = versionWith({
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    const ok = webPage(
      {},
      { metadata: { name: 'short', labels: { any: 'thing' }, annotations: { a: 'b' } } },
    );
    expect(v.admit(ok, 'create')).toEqual([]);
    expect(lines(v.admit(webPage({}, { metadata: { name: 'toolong' } }), 'create'))).toEqual([
      'metadata.name: Too long: may not be more than 5 bytes',
    ]);
  });

  it('on update with the old object, unchanged invalid values are not reported (ratcheting); changed ones are', () => {
    const v = webPageVersion();
    const old = webPage({ html: 'x', color: 'pink' });
    expect(v.admit(webPage({ html: 'y', color: 'pink' }), 'update', { old })).toEqual([]);
    expect(lines(v.admit(webPage({ html: 'y', color: 'mauve' }), 'update', { old }))).toEqual([
      'spec.color: Unsupported value: "mauve": supported values: "red", "green", "blue"',
    ]);
    expect(v.admit(webPage({ html: 'y', color: 'pink' }), 'update').length).toBe(1);
  });
});

describe('patchSchema', () => {
  const v = (): CompiledVersion =>
    versionWith({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
            plain: { type: 'array', items: { type: 'string' } },
            atomicList: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } },
            selector: {
              type: 'object',
              'x-kubernetes-map-type': 'atomic',
              additionalProperties: { type: 'string' },
            },
            containers: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string' },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['containerPort'],
                    items: {
                      type: 'object',
                      required: ['containerPort'],
                      properties: { containerPort: { type: 'integer' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    });

  it('maps x-kubernetes-list-type / list-map-keys / map-type to list and map semantics by path', () => {
    const ps = v().patchSchema;
    expect(ps.listInfo(['spec', 'tags'])).toEqual({ type: 'set' });
    expect(ps.listInfo(['spec', 'atomicList'])).toEqual({ type: 'atomic' });
    expect(ps.listInfo(['spec', 'plain'])).toBeUndefined();
    expect(ps.listInfo(['spec', 'containers'])).toEqual({ type: 'map', keys: ['name'] });
    expect(ps.listInfo(['spec', 'containers', '[]', 'ports'])).toEqual({
      type: 'map',
      keys: ['containerPort'],
    });
    expect(ps.listInfo(['spec', 'unknown'])).toBeUndefined();
    expect(ps.isAtomicMap?.(['spec', 'selector'])).toBe(true);
    expect(ps.isAtomicMap?.(['spec'])).toBe(false);
  });

  it("knows ObjectMeta's finalizers (set) and ownerReferences (map by uid) at the root", () => {
    const ps = v().patchSchema;
    expect(ps.listInfo(['metadata', 'finalizers'])).toEqual({ type: 'set' });
    expect(ps.listInfo(['metadata', 'ownerReferences'])).toEqual({ type: 'map', keys: ['uid'] });
  });
});

describe('selectable fields', () => {
  it('fieldValue gives the field selector string of strings, integers and booleans, undefined otherwise', () => {
    const v = webPageVersion();
    const obj = webPage({ html: 'x', color: 'red', replicas: 3, flag: false, nested: { a: 1 } });
    expect(v.fieldValue(obj, 'spec.color')).toBe('red');
    expect(v.fieldValue(obj, 'spec.replicas')).toBe('3');
    expect(v.fieldValue(obj, 'spec.flag')).toBe('false');
    expect(v.fieldValue(obj, 'metadata.name')).toBe('home');
    expect(v.fieldValue(obj, 'spec.nested')).toBeUndefined();
    expect(v.fieldValue(obj, 'spec.missing')).toBeUndefined();
    expect(v.fieldValue(obj, 'status.phase')).toBeUndefined();
  });
});

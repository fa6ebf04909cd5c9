import { describe, expect, it } from '@jest/globals';
import { buildOpenApiV2, buildOpenApiV3, compileCrd, definitionName } from '../index.js';
import type { CompiledCrd } from '../index.js';
import type { JsonObject } from '../../types.js';
import { schemaAt, v0, webPageCrd } from './fixtures.js';

const obj = (v: unknown): JsonObject => v as JsonObject;

function crds(): CompiledCrd[] {
  const webPage = compileCrd(
    webPageCrd((c) => {
      v0(c).subresources = {
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
      };
      c.spec.versions.push({
        name: 'v1alpha1',
        served: false,
        storage: false,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      });
    }),
  );
  const cluster = compileCrd(
    webPageCrd((c) => {
      c.metadata.name = 'sites.sample.tosdk.io';
      c.spec.scope = 'Cluster';
      c.spec.names = { plural: 'sites', singular: 'site', kind: 'Site' };
      v0(c).subresources = {};
      v0(c).selectableFields = [];
      schemaAt(c, 'spec').properties!.template = {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      };
    }),
  );
  return [webPage, cluster];
}

describe('definitionName', () => {
  it('reverses the group: sample.tosdk.io v1 WebPage is io.tosdk.sample.v1.WebPage', () => {
    expect(definitionName('sample.tosdk.io', 'v1', 'WebPage')).toBe('io.tosdk.sample.v1.WebPage');
  });
});

describe('buildOpenApiV3', () => {
  it('the root lists one served group version with a hashed serverRelativeURL; unserved versions are absent', () => {
    const { paths } = buildOpenApiV3(crds());
    expect(Object.keys(paths)).toEqual(['apis/sample.tosdk.io/v1']);
    expect(String(paths['apis/sample.tosdk.io/v1']?.serverRelativeURL)).toMatch(
      /^\/openapi\/v3\/apis\/sample\.tosdk\.io\/v1\?hash=[0-9A-F]{128}$/,
    );
  });

  it('the hash changes when a schema changes and is stable otherwise', () => {
    const a = buildOpenApiV3(crds()).paths['apis/sample.tosdk.io/v1']?.serverRelativeURL;
    expect(buildOpenApiV3(crds()).paths['apis/sample.tosdk.io/v1']?.serverRelativeURL).toBe(a);
    const changed = compileCrd(webPageCrd((c) => (schemaAt(c, 'spec').description = 'changed')));
    expect(buildOpenApiV3([changed]).paths['apis/sample.tosdk.io/v1']?.serverRelativeURL).not.toBe(a);
  });

  it('document() accepts the path with or without /openapi/v3/ and ?hash, and is undefined for unknown ones', () => {
    const v3 = buildOpenApiV3(crds());
    const doc = v3.document('apis/sample.tosdk.io/v1');
    expect(doc?.openapi).toBe('3.0.0');
    expect(v3.document('/openapi/v3/apis/sample.tosdk.io/v1?hash=ABC')).toBe(doc);
    expect(v3.document('apis/sample.tosdk.io/v1alpha1')).toBeUndefined();
    expect(v3.document('api/v1')).toBeUndefined();
  });

  it('components hold each kind with x-kubernetes-group-version-kind, its list, ObjectMeta and the schema as declared', () => {
    const doc = buildOpenApiV3(crds()).document('apis/sample.tosdk.io/v1')!;
    const schemas = obj(obj(doc.components).schemas);
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'io.tosdk.sample.v1.WebPage',
        'io.tosdk.sample.v1.WebPageList',
        'io.tosdk.sample.v1.Site',
        'io.tosdk.sample.v1.SiteList',
        'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
        'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
        'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
        'io.k8s.api.autoscaling.v1.Scale',
      ]),
    );
    const page = obj(schemas['io.tosdk.sample.v1.WebPage']);
    expect(page['x-kubernetes-group-version-kind']).toEqual([
      { group: 'sample.tosdk.io', kind: 'WebPage', version: 'v1' },
    ]);
    expect(page.description).toBe('A web page served by nginx.');
    const props = obj(page.properties);
    expect(Object.keys(props)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(props.metadata).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
    });
    const spec = obj(obj(props.spec).properties);
    expect(spec.note).toEqual({ type: 'string', nullable: true });
    expect(spec.port).toEqual({
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    });
    const list = obj(schemas['io.tosdk.sample.v1.WebPageList']);
    expect(list['x-kubernetes-group-version-kind']).toEqual([
      { group: 'sample.tosdk.io', kind: 'WebPageList', version: 'v1' },
    ]);
    expect(obj(obj(list.properties).items).items).toEqual({
      $ref: '#/components/schemas/io.tosdk.sample.v1.WebPage',
    });
    const template = obj(
      obj(obj(obj(obj(schemas['io.tosdk.sample.v1.Site']).properties).spec).properties).template,
    );
    expect(Object.keys(obj(template.properties))).toEqual(['apiVersion', 'kind', 'metadata']);
  });

  it('paths: namespaced and cluster-scoped collections and items, status and scale subresources, PATCH with fieldValidation and without strategic merge patch', () => {
    const doc = buildOpenApiV3(crds()).document('apis/sample.tosdk.io/v1')!;
    const paths = obj(doc.paths);
    expect(Object.keys(paths).sort()).toEqual([
      '/apis/sample.tosdk.io/v1/namespaces/{namespace}/webpages',
      '/apis/sample.tosdk.io/v1/namespaces/{namespace}/webpages/{name}',
      '/apis/sample.tosdk.io/v1/namespaces/{namespace}/webpages/{name}/scale',
      '/apis/sample.tosdk.io/v1/namespaces/{namespace}/webpages/{name}/status',
      '/apis/sample.tosdk.io/v1/sites',
      '/apis/sample.tosdk.io/v1/sites/{name}',
      '/apis/sample.tosdk.io/v1/webpages',
    ]);
    const patch = obj(obj(paths['/apis/sample.tosdk.io/v1/namespaces/{namespace}/webpages/{name}']).patch);
    expect(patch['x-kubernetes-action']).toBe('patch');
    expect(patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'sample.tosdk.io',
      version: 'v1',
      kind: 'WebPage',
    });
    expect((patch.parameters as JsonObject[]).map((p) => p.name)).toEqual(
      expect.arrayContaining(['dryRun', 'fieldManager', 'fieldValidation', 'force']),
    );
    expect(Object.keys(obj(obj(patch.requestBody).content))).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    const scale = obj(
      obj(paths['/apis/sample.tosdk.io/v1/namespaces/{namespace}/webpages/{name}/scale']).get,
    );
    expect(scale['x-kubernetes-group-version-kind']).toEqual({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
  });
});

describe('buildOpenApiV2', () => {
  it('is a Swagger 2.0 document with #/definitions references, GVK extensions and nullable dropped', () => {
    const doc = buildOpenApiV2(crds());
    expect(doc.swagger).toBe('2.0');
    const defs = obj(doc.definitions);
    const page = obj(defs['io.tosdk.sample.v1.WebPage']);
    expect(page['x-kubernetes-group-version-kind']).toEqual([
      { group: 'sample.tosdk.io', kind: 'WebPage', version: 'v1' },
    ]);
    expect(obj(page.properties).metadata).toMatchObject({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    const spec = obj(obj(obj(page.properties).spec).properties);
    expect(spec.note).toEqual({});
    expect(spec.port).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    const patch = obj(
      obj(obj(doc.paths)['/apis/sample.tosdk.io/v1/namespaces/{namespace}/webpages/{name}']).patch,
    );
    expect(patch.consumes).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect((patch.parameters as JsonObject[]).find((p) => p.in === 'body')).toMatchObject({
      schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
    });
  });
});

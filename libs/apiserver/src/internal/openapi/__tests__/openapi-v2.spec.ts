/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { request } from 'node:http';
import { KubeApiServer } from '../../../server.js';
import { call, waitFor } from '../../../__tests__/http-helper.js';

/** GET /openapi/v2 with an Accept header: status, content type and the raw bytes. */
function getV2(
  server: KubeApiServer,
  accept: string | undefined,
): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${server.tokenOf()}` };
    if (accept !== undefined) headers.accept = accept;
    const req = request(new URL('/openapi/v2', server.url), { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The fields of one protobuf message: field number to its raw values (length-delimited as bytes). */
function fields(buf: Uint8Array): Map<number, (Uint8Array | number | boolean)[]> {
  const out = new Map<number, (Uint8Array | number | boolean)[]>();
  const r = new BinaryReader(buf);
  while (r.pos < r.len) {
    const [no, type] = r.tag();
    const list = out.get(no) ?? [];
    if (type === WireType.LengthDelimited) list.push(r.bytes());
    else if (type === WireType.Varint) list.push(Number(r.uint64()));
    else if (type === WireType.Bit64) list.push(r.double());
    else throw new Error(`unexpected wire type ${type} at field ${no}`);
    out.set(no, list);
  }
  return out;
}
const text = (b: unknown): string => Buffer.from(b as Uint8Array).toString('utf8');

/** Every `$ref` in a JSON tree with the node that holds it. */
function refs(node: unknown, out: { ref: string; holder: Record<string, unknown> }[] = []): typeof out {
  if (Array.isArray(node)) for (const n of node) refs(n, out);
  else if (node !== null && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.$ref === 'string') out.push({ ref: o.$ref, holder: o });
    for (const [k, v] of Object.entries(o))
      if (k !== 'enum' && k !== 'default' && k !== 'example') refs(v, out);
  }
  return out;
}

/** Paths of schema keys (not of property names) in a definitions map that Swagger 2.0 lacks. */
function keysNamed(node: unknown, names: string[], path = '', out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n, i) => keysNamed(n, names, `${path}[${i}]`, out));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'enum' || k === 'default' || k === 'example') continue;
      if (k === 'properties' && v !== null && typeof v === 'object') {
        for (const [p, s] of Object.entries(v)) keysNamed(s, names, `${path}.properties.${p}`, out);
        continue;
      }
      if (names.includes(k)) out.push(`${path}.${k}`);
      keysNamed(v, names, `${path}.${k}`, out);
    }
  }
  return out;
}

describe('KubeApiServer /openapi/v2 with built-in kinds', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    const crd = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    });
    expect(crd.status).toBe(201);
    await waitFor(
      async () =>
        (await call(server, 'GET', '/apis/example.com/v1/namespaces/default/gadgets')).status === 200,
      10_000,
    );
  });
  afterAll(async () => {
    await server.stop();
  });

  it('the JSON document has built-in kinds (with their list kinds) beside custom resources, every $ref resolving to a definition', async () => {
    const r = await getV2(server, 'application/json');
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json');
    const doc = JSON.parse(r.body.toString());
    expect(doc.swagger).toBe('2.0');
    const defs = doc.definitions as Record<string, any>;
    const gvkOf = (kind: string): unknown[] =>
      Object.values(defs).flatMap((d) =>
        (d['x-kubernetes-group-version-kind'] ?? []).filter((g: any) => g.kind === kind),
      );
    expect(gvkOf('Deployment')).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    expect(gvkOf('DeploymentList')).toEqual([{ group: 'apps', version: 'v1', kind: 'DeploymentList' }]);
    expect(gvkOf('ConfigMap')).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap' }]);
    expect(gvkOf('Gadget')).toEqual([{ group: 'example.com', version: 'v1', kind: 'Gadget' }]);
    const dep = Object.values(defs).find(
      (d) => d['x-kubernetes-group-version-kind']?.[0]?.kind === 'Deployment',
    );
    const spec = defs[dep.properties.spec.$ref.replace('#/definitions/', '')];
    expect(spec.required).toEqual(expect.arrayContaining(['selector', 'template']));
    expect(spec.properties.replicas).toMatchObject({ type: 'integer', format: 'int32' });
    // what kube-openapi insists on when kubectl parses the document
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(100);
    for (const { ref, holder } of all) {
      expect(ref).toMatch(/^#\/definitions\//);
      expect(defs[ref.slice('#/definitions/'.length)]).toBeDefined();
      expect(holder.type).toBeUndefined();
      expect(holder.properties).toBeUndefined();
    }
    expect(keysNamed(defs, ['allOf', 'anyOf', 'oneOf', 'nullable'])).toEqual([]);
    // int-or-string spelled as Swagger 2.0 does
    const strategy = defs[spec.properties.strategy.$ref.replace('#/definitions/', '')];
    const rolling = defs[strategy.properties.rollingUpdate.$ref.replace('#/definitions/', '')];
    expect(rolling.properties.maxSurge).toMatchObject({ type: 'string', format: 'int-or-string' });
    // paths of built-ins and custom resources alike
    const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(item.patch.parameters.map((p: any) => p.name)).toContain('fieldValidation');
    expect(item.patch.consumes).toContain('application/apply-patch+yaml');
    expect(doc.paths['/api/v1/namespaces/{namespace}/configmaps'].post).toBeDefined();
    expect(doc.paths['/apis/example.com/v1/namespaces/{namespace}/gadgets/{name}']).toBeDefined();
  });

  it('answers protobuf (gnostic openapi.v2.Document) to the media type client-go asks for, labelled as kube-apiserver labels it', async () => {
    const json = JSON.parse((await getV2(server, 'application/json')).body.toString());
    const r = await getV2(server, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
    expect(r.status).toBe(200);
    // the `@` form is no valid media type for Go's mime parser: kube answers with the dotted one
    expect(r.type).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const doc = fields(r.body);
    expect(text(doc.get(1)?.[0])).toBe('2.0');
    const info = fields(doc.get(2)![0] as Uint8Array);
    expect(text(info.get(1)?.[0])).toBe('Kubernetes');
    const named = fields(doc.get(9)![0] as Uint8Array)
      .get(1)!
      .map((b) => fields(b as Uint8Array));
    expect(named.map((n) => text(n.get(1)?.[0]))).toEqual(Object.keys(json.definitions));
    const dep = named.find((n) => text(n.get(1)?.[0]) === 'io.k8s.api.apps.v1.Deployment')!;
    const schema = fields(dep.get(2)![0] as Uint8Array);
    // type (TypeItem 22) and the gvk vendor extension (31) whose Any.yaml kube-openapi parses
    expect(text(fields(schema.get(22)![0] as Uint8Array).get(1)?.[0])).toBe('object');
    const ext = schema.get(31)!.map((b) => fields(b as Uint8Array));
    const gvk = ext.find((e) => text(e.get(1)?.[0]) === 'x-kubernetes-group-version-kind')!;
    const yaml = text(fields(gvk.get(2)![0] as Uint8Array).get(2)?.[0]);
    expect(JSON.parse(yaml)).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    // properties (25) hold NamedSchema entries; spec is a bare reference
    const props = fields(schema.get(25)![0] as Uint8Array)
      .get(1)!
      .map((b) => fields(b as Uint8Array));
    const spec = props.find((p) => text(p.get(1)?.[0]) === 'spec')!;
    expect(text(fields(spec.get(2)![0] as Uint8Array).get(1)?.[0])).toBe(
      '#/definitions/io.k8s.api.apps.v1.DeploymentSpec',
    );
    // the dotted form is accepted too, and JSON stays the default
    expect((await getV2(server, 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).body).toEqual(
      r.body,
    );
    expect((await getV2(server, undefined)).type).toBe('application/json');
  });

  it('a CRD created later appears in the next answer (the cached encoding follows the CRDs)', async () => {
    const before = (await getV2(server, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).body;
    expect(before.includes(Buffer.from('com.example.v1.Sprocket'))).toBe(false);
    await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'sprockets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' },
        scope: 'Cluster',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    await waitFor(async () => {
      const now = (await getV2(server, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).body;
      return now.includes(Buffer.from('com.example.v1.Sprocket'));
    }, 10_000);
    const json = JSON.parse((await getV2(server, 'application/json')).body.toString());
    expect(json.definitions['com.example.v1.Sprocket']).toBeDefined();
    expect(json.definitions['io.k8s.api.apps.v1.Deployment']).toBeDefined();
  });
});

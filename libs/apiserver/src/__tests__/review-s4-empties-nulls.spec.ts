/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, configMapBody, fieldsOf, rawWatch, waitFor } from './http-helper.js';

/**
 * Adversarial review (session 4) of 1c991b8 (empties and nulls of built-in kinds): an applied empty
 * map or null is now owned (a leaf in fieldsV1) and nulls are decoded as Go does on every write.
 * These tests check what users already relied on: merge / strategic merge patch nulls delete, apply
 * removes what a manager stops applying but never what another manager owns, and no null in an odd
 * place makes the server fail.
 */
const NS = 'rv4';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

const configMap = configMapBody;

function deployment(name: string, container: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx:1', ...container }] },
      },
    },
  };
}

describe('review s4: empties and nulls of built-in kinds (1c991b8)', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  const apply = (url: string, body: unknown, manager: string, force = false): ReturnType<typeof call> =>
    call(
      server,
      'PATCH',
      `${url}?fieldManager=${manager}${force ? '&force=true' : ''}`,
      JSON.stringify(body),
      {
        contentType: APPLY,
      },
    );
  const patch = (
    url: string,
    body: unknown,
    contentType: string,
    manager = 'patcher',
  ): ReturnType<typeof call> =>
    call(server, 'PATCH', `${url}?fieldManager=${manager}`, body, { contentType });

  it("a manager that applied data: {} / labels: {} over another manager's keys and then stops applying them removes nothing of the other's", async () => {
    const url = `${CM}/keep1`;
    const created = await call(
      server,
      'POST',
      `${CM}?fieldManager=other`,
      configMap('keep1', { data: { b: 'x' } }, { labels: { team: 't' } }),
    );
    expect(created.status).toBe(201);
    const first = await apply(url, configMap('keep1', { data: {} }, { labels: {} }), 'm');
    expect(first.status).toBe(200);
    expect(first.json<any>().data).toEqual({ b: 'x' });
    // m stops applying data and labels: only what m alone owned may go, b and team are the other's
    const second = await apply(url, configMap('keep1'), 'm');
    expect(second.status).toBe(200);
    expect(second.json<any>().data).toEqual({ b: 'x' });
    expect(second.json<any>().metadata.labels).toEqual({ team: 't' });
    const got = (await call(server, 'GET', url)).json<any>();
    expect(got.data).toEqual({ b: 'x' });
    expect(got.metadata.labels).toEqual({ team: 't' });
    expect(fieldsOf(got, 'other')).toEqual({
      'f:data': { '.': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } },
    });
  });

  it("the same after an applied null: stopping to apply data: null removes nothing of another manager's", async () => {
    const url = `${CM}/keep2`;
    expect(
      (await call(server, 'POST', `${CM}?fieldManager=other`, configMap('keep2', { data: { b: 'x' } })))
        .status,
    ).toBe(201);
    expect((await apply(url, configMap('keep2', { data: null }), 'm')).status).toBe(200);
    const second = await apply(url, configMap('keep2', { data: { mine: '1' } }), 'm');
    expect(second.status).toBe(200);
    expect(second.json<any>().data).toEqual({ b: 'x', mine: '1' });
    const third = await apply(url, configMap('keep2'), 'm');
    expect(third.status).toBe(200);
    expect(third.json<any>().data).toEqual({ b: 'x' });
  });

  it('a manager that owned labels {a, b} and applies labels: {} removes both; a later apply without labels leaves none and owns none', async () => {
    const url = `${CM}/own1`;
    expect(
      (await apply(url, configMap('own1', { data: { k: 'v' } }, { labels: { a: '1', b: '2' } }), 'm')).status,
    ).toBe(201);
    const emptied = await apply(url, configMap('own1', { data: { k: 'v' } }, { labels: {} }), 'm');
    expect(emptied.status).toBe(200);
    expect(Object.keys(emptied.json<any>().metadata)).not.toContain('labels');
    const without = await apply(url, configMap('own1', { data: { k: 'v' } }), 'm');
    expect(without.status).toBe(200);
    expect(Object.keys(without.json<any>().metadata)).not.toContain('labels');
    expect(fieldsOf(without.json(), 'm')).toEqual({ 'f:data': { 'f:k': {} } });
    const relabelled = await apply(url, configMap('own1', { data: { k: 'v' } }, { labels: { c: '3' } }), 'm');
    expect(relabelled.json<any>().metadata.labels).toEqual({ c: '3' });
  });

  it('a merge patch null deletes map keys and whole maps of a built-in kind, also where the map is absent (no "" left), in the answer, a get and the watch', async () => {
    const created = await call(
      server,
      'POST',
      CM,
      configMap('mp1', { data: { k: 'v', j: 'w' } }, { labels: { a: '1', b: '2' } }),
    );
    expect(created.status).toBe(201);
    const watch = rawWatch(
      server,
      `${CM}?watch=true&resourceVersion=${created.json<any>().metadata.resourceVersion}`,
    );
    try {
      const patched = await patch(
        `${CM}/mp1`,
        { metadata: { labels: { a: null, zz: null }, annotations: { x: null } }, data: { k: null } },
        MERGE,
      );
      expect(patched.status).toBe(200);
      const check = (o: any): void => {
        expect(o.metadata.labels).toEqual({ b: '2' });
        expect(Object.keys(o.metadata)).not.toContain('annotations');
        expect(o.data).toEqual({ j: 'w' });
      };
      check(patched.json());
      check((await call(server, 'GET', `${CM}/mp1`)).json());
      const ev = await waitFor(() => watch.events.find((e) => e.type === 'MODIFIED'), 20_000);
      check(ev.object);
      const dropped = await patch(`${CM}/mp1`, { metadata: { labels: null }, data: null }, MERGE);
      expect(dropped.status).toBe(200);
      expect(Object.keys(dropped.json<any>().metadata)).not.toContain('labels');
      expect(Object.keys(dropped.json<any>())).not.toContain('data');
      // the patcher's managedFields entry does not claim the keys it deleted
      expect(JSON.stringify(fieldsOf(dropped.json(), 'patcher') ?? {})).not.toMatch(/f:a"|f:k"|f:zz"/);
    } finally {
      watch.close();
    }
  });

  it('a strategic merge patch null deletes labels, data keys and a container field; an unmatched null adds nothing', async () => {
    expect(
      (
        await call(
          server,
          'POST',
          CM,
          configMap('smp1', { data: { k: 'v', j: 'w' } }, { labels: { a: '1', b: '2' } }),
        )
      ).status,
    ).toBe(201);
    const cm = await patch(
      `${CM}/smp1`,
      { metadata: { labels: { a: null }, annotations: { x: null } }, data: { k: null, nope: null } },
      SMP,
    );
    expect(cm.status).toBe(200);
    expect(cm.json<any>().metadata.labels).toEqual({ b: '2' });
    expect(Object.keys(cm.json<any>().metadata)).not.toContain('annotations');
    expect(cm.json<any>().data).toEqual({ j: 'w' });

    expect(
      (await call(server, 'POST', DEP, deployment('smp2', { env: [{ name: 'E', value: '1' }], args: ['a'] })))
        .status,
    ).toBe(201);
    const dep = await patch(
      `${DEP}/smp2`,
      {
        spec: {
          replicas: null,
          template: { spec: { containers: [{ name: 'c', env: null, args: null, command: null }] } },
        },
      },
      SMP,
    );
    expect(dep.status).toBe(200);
    const c = dep.json<any>().spec.template.spec.containers[0];
    for (const k of ['env', 'args', 'command']) expect(Object.keys(c)).not.toContain(k);
    expect(c.image).toBe('nginx:1');
    expect(dep.json<any>().spec.replicas).toBe(1);
    expect(JSON.stringify(dep.json())).not.toContain('null');
  });

  it('a JSON patch remove of a label, a data key and a container list still removes them', async () => {
    expect(
      (await call(server, 'POST', DEP, deployment('jp1', { env: [{ name: 'E', value: '1' }] }))).status,
    ).toBe(201);
    const res = await patch(
      `${DEP}/jp1`,
      [
        { op: 'remove', path: '/spec/template/spec/containers/0/env' },
        { op: 'add', path: '/metadata/labels', value: { a: '1' } },
        { op: 'remove', path: '/metadata/labels/a' },
      ],
      JSON_PATCH,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.json<any>().spec.template.spec.containers[0])).not.toContain('env');
    expect(Object.keys(res.json<any>().metadata)).not.toContain('labels');
  });

  it('no null in an odd place of a built-in object makes the server answer 5xx; the answers are Status objects and the server keeps serving', async () => {
    const dep = (name: string, mutate: (d: any) => void): any => {
      const d = deployment(name);
      mutate(d);
      return d;
    };
    const bodies: Array<[string, string, unknown, string?]> = [
      ['POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: null }],
      ['POST', CM, configMap('odd-own', {}, { ownerReferences: [null] })],
      ['POST', CM, configMap('odd-mf', {}, { managedFields: [null] })],
      ['POST', CM, configMap('odd-mf2', {}, { managedFields: [{ manager: null, fieldsV1: null }] })],
      ['POST', CM, configMap('odd-name', {}, { name: null, generateName: 'odd-' })],
      ['POST', CM, configMap('odd-bin', { binaryData: { a: null } })],
      ['POST', DEP, dep('odd-d1', (d) => (d.spec = null))],
      ['POST', DEP, dep('odd-d2', (d) => (d.spec.template = null))],
      ['POST', DEP, dep('odd-d3', (d) => (d.spec.template.spec = null))],
      ['POST', DEP, dep('odd-d4', (d) => (d.spec.template.spec.containers = null))],
      ['POST', DEP, dep('odd-d5', (d) => (d.spec.template.spec.containers = [null]))],
      ['POST', DEP, dep('odd-d6', (d) => (d.spec.selector = null))],
      ['POST', DEP, dep('odd-d7', (d) => (d.spec.template.spec.containers[0].ports = [null]))],
      [
        'POST',
        DEP,
        dep('odd-d8', (d) => (d.spec.template.spec.containers[0].resources = { limits: { cpu: null } })),
      ],
      ['POST', DEP, dep('odd-d9', (d) => (d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: null }))],
      ['POST', DEP, dep('odd-d10', (d) => (d.spec.template.spec.volumes = [{ name: 'v', configMap: null }]))],
      [
        'POST',
        '/api/v1/namespaces/rv4/services',
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'odd-s1' }, spec: { ports: [null] } },
      ],
      [
        'POST',
        '/api/v1/namespaces/rv4/services',
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'odd-s2' },
          spec: { ports: [{ port: 80, targetPort: null }] },
        },
      ],
      [
        'POST',
        '/api/v1/namespaces/rv4/secrets',
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'odd-sec' },
          stringData: { a: null },
          data: { b: null },
        },
      ],
      [
        'POST',
        '/apis/rbac.authorization.k8s.io/v1/namespaces/rv4/roles',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'odd-r' },
          rules: [null],
        },
      ],
      ['PATCH', `${DEP}/odd-a1?fieldManager=m`, JSON.stringify(dep('odd-a1', (d) => (d.spec = null))), APPLY],
      [
        'PATCH',
        `${DEP}/odd-a2?fieldManager=m`,
        JSON.stringify(dep('odd-a2', (d) => (d.metadata.labels = { a: null }))),
        APPLY,
      ],
      [
        'PATCH',
        `${CM}/odd-a3?fieldManager=m`,
        JSON.stringify(configMap('odd-a3', {}, { ownerReferences: [null] })),
        APPLY,
      ],
      [
        'PATCH',
        `${CM}/odd-a4?fieldManager=m`,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'odd-a4', labels: null },
          data: null,
        }),
        APPLY,
      ],
    ];
    const failures: string[] = [];
    for (const [method, url, body, contentType] of bodies) {
      const res = await call(server, method, url, body, contentType ? { contentType } : {});
      if (res.status >= 500)
        failures.push(`${method} ${url} ${JSON.stringify(body)} -> ${res.status} ${res.text}`);
      else if (res.status >= 400 && res.json<any>().kind !== 'Status')
        failures.push(`${method} ${url} -> ${res.status} without a Status: ${res.text}`);
    }
    // and the same on the patch paths of an existing object
    expect((await call(server, 'POST', DEP, deployment('odd-p'))).status).toBe(201);
    const patches: Array<[unknown, string]> = [
      [{ spec: { template: { spec: { containers: [null] } } } }, SMP],
      [{ spec: { template: { spec: null } } }, SMP],
      [{ spec: { template: { spec: { containers: [{ name: 'c', ports: [null] }] } } } }, SMP],
      [{ metadata: { ownerReferences: [null] } }, MERGE],
      [{ spec: { template: { spec: { containers: null } } } }, MERGE],
      [[{ op: 'add', path: '/spec/template/spec/containers/0/env', value: [null] }], JSON_PATCH],
      [[{ op: 'replace', path: '/spec/template', value: null }], JSON_PATCH],
      [[{ op: 'replace', path: '/metadata', value: null }], JSON_PATCH],
    ];
    for (const [body, contentType] of patches) {
      const res = await patch(`${DEP}/odd-p`, body, contentType);
      if (res.status >= 500)
        failures.push(`PATCH ${contentType} ${JSON.stringify(body)} -> ${res.status} ${res.text}`);
    }
    expect(failures).toEqual([]);
    // (this server validates few fields of a Deployment: a null template or container list is stored, an
    // older limit, not a decoding one); the object is still served and a watch still answers
    const after = await call(server, 'GET', `${DEP}/odd-p`);
    expect(after.status).toBe(200);
    expect(JSON.stringify(after.json())).not.toContain('null');
    expect((await call(server, 'GET', DEP)).status).toBe(200);
  });
  it('fieldValidation=Strict names every unknown field by its own path: sibling list items, nested lists, maps and fields after a deep one (c55a682 walks with a segment stack)', async () => {
    const d = deployment('strict-paths');
    const spec = d.spec.template.spec;
    spec.containers = [
      {
        name: 'a',
        image: 'x',
        env: [
          { name: 'E', value: '1', bad0: 1 },
          { name: 'F', valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, junk: { x: 1 } } },
        ],
      },
      { name: 'b', image: 'y', nope: true, resources: { limits: { cpu: '1' } } },
    ];
    spec.volumes = [{ name: 'v', configMap: { name: 'c', items: [{ key: 'k', path: 'p', deep: [1] }] } }];
    spec.nodeSelector = { 'a.b/c': 'd' };
    d.spec.template.metadata.annotations = { anything: 'goes' };
    d.spec.after = { x: 1 };
    d.extra = 'top';
    const r = await call(server, 'POST', `${DEP}?fieldValidation=Strict`, d);
    expect(r.status).toBe(400);
    const message: string = r.json<any>().message;
    const named = [...message.matchAll(/unknown field "([^"]+)"/g)].map((m) => m[1]).sort();
    expect(named).toEqual(
      [
        'extra',
        'spec.after',
        'spec.template.spec.containers[0].env[0].bad0',
        'spec.template.spec.containers[0].env[1].valueFrom.junk',
        'spec.template.spec.containers[1].nope',
        'spec.template.spec.volumes[0].configMap.items[0].deep',
      ].sort(),
    );
    // the same paths in the Warning header by default, and the fields are dropped
    const warned = await call(server, 'POST', DEP, { ...d, metadata: { name: 'warn-paths' } });
    expect(warned.status).toBe(201);
    const header = String(warned.headers.warning);
    for (const path of named) expect(header).toContain(`unknown field \\"${path}\\"`);
    const stored = warned.json<any>();
    expect(stored.spec.template.spec.containers[1].nope).toBeUndefined();
    expect(stored.spec.template.spec.containers[1].resources.limits).toEqual({ cpu: '1' });
    expect(stored.spec.template.spec.nodeSelector).toEqual({ 'a.b/c': 'd' });
  });
  it("a PUT that carries the object's managedFields back (kubectl edit, an update from a cache) keeps every manager's fieldsV1 and warns of no unknown field (79051be prunes unknown metadata fields; fieldsV1 keys are no fields)", async () => {
    const url = `${CM}/mf1`;
    const applied = await apply(url, configMap('mf1', { data: { k: 'v' } }, { labels: { a: '1' } }), 'm');
    expect(applied.status).toBe(201);
    const edited = applied.json<any>();
    edited.data.k2 = 'v2';
    const put = await call(server, 'PUT', `${url}?fieldManager=editor`, edited);
    expect(put.status).toBe(200);
    expect(put.headers.warning).toBeUndefined();
    expect(fieldsOf(put.json(), 'm')).toEqual({
      'f:data': { 'f:k': {} },
      'f:metadata': { 'f:labels': { 'f:a': {} } },
    });
    expect(fieldsOf(put.json(), 'editor')).toEqual({ 'f:data': { 'f:k2': {} } });

    // the same on a custom resource, whose metadata is now walked for unknown fields too
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'knobs.review.s4.io' },
      spec: {
        group: 'review.s4.io',
        scope: 'Namespaced',
        names: { kind: 'Knob', plural: 'knobs', singular: 'knob', listKind: 'KnobList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            },
          },
        ],
      },
    };
    expect(
      (await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    const K = `/apis/review.s4.io/v1/namespaces/${NS}/knobs`;
    await waitFor(async () => (await call(server, 'GET', K)).status === 200, 20_000);
    const knob = await apply(
      `${K}/k1`,
      {
        apiVersion: 'review.s4.io/v1',
        kind: 'Knob',
        metadata: { name: 'k1', labels: { a: '1' }, annotations: { b: '2' } },
        spec: { x: 1 },
      },
      'm',
    );
    expect(knob.status).toBe(201);
    const knobEdited = knob.json<any>();
    knobEdited.spec.y = 2;
    const knobPut = await call(server, 'PUT', `${K}/k1?fieldManager=editor`, knobEdited);
    expect(knobPut.status).toBe(200);
    expect(knobPut.headers.warning).toBeUndefined();
    expect(fieldsOf(knobPut.json(), 'm')).toEqual({
      'f:metadata': { 'f:annotations': { 'f:b': {} }, 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:x': {} },
    });
    expect(fieldsOf(knobPut.json(), 'editor')).toEqual({ 'f:spec': { 'f:y': {} } });
  });
  it("a custom resource's metadata is decoded wherever its null, empty or unknown member sits: a list item's field, a map value, next to ordinary members (dba38c3 walks only when a first look finds one)", async () => {
    const K = `/apis/review.s4.io/v1/namespaces/${NS}/knobs`;
    await waitFor(async () => (await call(server, 'GET', K)).status === 200, 20_000);
    const owner = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'mf1',
      uid: (await call(server, 'GET', `${CM}/mf1`)).json<any>().metadata.uid,
    };
    const cases: Array<[string, Record<string, unknown>, (m: any) => void]> = [
      [
        'item-null',
        { ownerReferences: [{ ...owner, blockOwnerDeletion: null }] },
        (m) => expect(m.ownerReferences).toEqual([owner]),
      ],
      [
        'item-unknown',
        { ownerReferences: [{ ...owner, extra: 'x' }] },
        (m) => expect(m.ownerReferences).toEqual([owner]),
      ],
      [
        'map-null',
        { labels: { a: '1' }, annotations: { b: '2', c: null } },
        (m) => expect(m.annotations).toEqual({ b: '2', c: '' }),
      ],
      [
        'finalizer-list',
        { labels: { a: '1' }, finalizers: ['x/y'], ownerReferences: [owner] },
        (m) => expect(m.finalizers).toEqual(['x/y']),
      ],
      ['plain', { labels: { a: '1' }, annotations: { b: '2' } }, (m) => expect(m.labels).toEqual({ a: '1' })],
    ];
    for (const [name, meta, check] of cases) {
      const res = await call(server, 'POST', K, {
        apiVersion: 'review.s4.io/v1',
        kind: 'Knob',
        metadata: { name, ...meta },
        spec: {},
      });
      expect(res.status).toBe(201);
      check(res.json<any>().metadata);
      expect(JSON.stringify(res.json<any>().metadata)).not.toContain(':null');
      expect(JSON.stringify(res.json<any>().metadata)).not.toContain('extra');
    }
  });
  // F6 (older than this session; more visible since 1c991b8 decodes a null finalizer to ""): finalizer
  // names are not validated. kube-apiserver's ValidateObjectMeta (apimachinery pkg/api/validation/
  // objectmeta.go, ValidateFinalizers -> ValidateFinalizerName -> IsQualifiedName) refuses an empty or
  // malformed name, and orphan together with foregroundDeletion, with a 422 on every kind; here they
  // are stored, and a finalizer "" that no controller owns keeps the object from ever being deleted.
  // Fixed by H19 (the commit that flipped this: names.ts validateFinalizers).
  it('F6: a finalizer that is no qualified name ("", "bad name", a null that decodes to "") or orphan with foregroundDeletion is a 422 naming metadata.finalizers', async () => {
    const refused: unknown[][] = [
      [''],
      ['bad name'],
      ['example.com/x', null],
      ['orphan', 'foregroundDeletion'],
    ];
    const answers: string[] = [];
    for (const finalizers of refused) {
      const res = await call(server, 'POST', CM, { metadata: { generateName: 'fin-', finalizers } });
      answers.push(
        `${JSON.stringify(finalizers)} -> ${res.status}${res.status === 422 && String(res.json<any>().message).includes('metadata.finalizers') ? ' metadata.finalizers' : ''}`,
      );
    }
    expect(answers).toEqual(refused.map((f) => `${JSON.stringify(f)} -> 422 metadata.finalizers`));
    // qualified names pass
    expect(
      (
        await call(server, 'POST', CM, {
          metadata: { generateName: 'fin-', finalizers: ['example.com/x', 'kubernetes'] },
        })
      ).status,
    ).toBe(201);
  });
});

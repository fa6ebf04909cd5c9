import { describe, expect, it } from '@jest/globals';
import { builtinPatchSchema, serverSideApply, trackUpdate } from '../index.js';
import type { JsonObject, ManagedFieldsEntry } from '../../types.js';

const cmSchema = builtinPatchSchema('', 'v1', 'ConfigMap');
const deploySchema = builtinPatchSchema('apps', 'v1', 'Deployment');
const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-01T00:01:00Z';
const T3 = '2026-01-01T00:02:00Z';

const configMap = (data: JsonObject, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cm',
    namespace: 'default',
    uid: 'uid-1',
    resourceVersion: '7',
    creationTimestamp: T1,
    labels: { app: 'web' },
    ...extra,
  },
  data,
});

function withManaged(object: JsonObject, managedFields: ManagedFieldsEntry[]): JsonObject {
  return { ...object, metadata: { ...(object.metadata as JsonObject), managedFields } };
}

describe('trackUpdate', () => {
  it('reuseEncoding gives the same entries, sharing the fieldsV1 of managers the write leaves alone', () => {
    const entries: ManagedFieldsEntry[] = [
      {
        manager: 'applier',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} } },
      },
      {
        manager: 'editor',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:b': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ];
    const before = withManaged(configMap({ a: '1', b: '1' }), entries);
    for (const [after, untouched] of [
      [configMap({ a: '1', b: '2' }), 'applier'], // editor's own field: the applier's entry is untouched
      [configMap({ a: '2', b: '1' }), 'editor'], // the applier loses f:a to a third manager
      [configMap({ a: '1' }), 'applier'], // a removal takes f:b from the editor
    ] as const) {
      const args = { before, after, manager: 'third', apiVersion: 'v1', now: T2, schema: cmSchema };
      const fresh = trackUpdate(args);
      const reused = trackUpdate({ ...args, reuseEncoding: true });
      expect(reused).toEqual(fresh);
      const kept = reused.find((e) => e.manager === untouched)!;
      expect(kept.fieldsV1).toBe(entries.find((e) => e.manager === untouched)!.fieldsV1);
      for (const e of reused)
        if (e.manager !== untouched) expect(entries.map((x) => x.fieldsV1)).not.toContain(e.fieldsV1);
    }
  });

  it('a manager writing again only fields it owns keeps its set and only its time moves', () => {
    const entries: ManagedFieldsEntry[] = [
      {
        manager: 'ctl',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } },
      },
      {
        manager: 'other',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:c': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ];
    const before = withManaged(configMap({ a: '1', b: '1', c: '1' }), entries);
    const cases: [JsonObject, JsonObject, JsonObject | undefined][] = [
      // only its own field: its set stays, the other entry is untouched
      [
        configMap({ a: '2', b: '1', c: '1' }),
        { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } },
        entries[1].fieldsV1,
      ],
      // its own field and a new one: it gains the new one
      [
        configMap({ a: '2', b: '1', c: '1', d: '1' }),
        { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {}, 'f:d': {} } },
        entries[1].fieldsV1,
      ],
      // its own field and one the other manager owns: it takes that one
      [
        configMap({ a: '2', b: '1', c: '2' }),
        { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {}, 'f:c': {} } },
        { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      ],
      // its own field changed and another of its own removed: the removed one leaves its set
      [configMap({ a: '2', c: '1' }), { 'f:data': { '.': {}, 'f:a': {} } }, entries[1].fieldsV1],
    ];
    for (const [after, ctlFields, otherFields] of cases) {
      for (const reuseEncoding of [false, true]) {
        const out = trackUpdate({
          before: JSON.parse(JSON.stringify(before)) as JsonObject,
          after,
          manager: 'ctl',
          apiVersion: 'v1',
          now: T2,
          schema: cmSchema,
          reuseEncoding,
        });
        const ctl = out.find((e) => e.manager === 'ctl');
        expect(ctl?.fieldsV1).toEqual(ctlFields);
        expect(ctl?.time).toBe(T2);
        expect(out.find((e) => e.manager === 'other')?.fieldsV1).toEqual(otherFields);
      }
    }
  });

  it('[DR-10] a create records an Update entry without server-owned metadata or apiVersion/kind', () => {
    const entries = trackUpdate({
      before: undefined,
      after: configMap({ key: 'v' }),
      manager: 'kubectl-create',
      apiVersion: 'v1',
      now: T1,
      schema: cmSchema,
    });
    expect(entries).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:data': { '.': {}, 'f:key': {} },
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        },
      },
    ]);
  });

  it('a write that changes nothing leaves managedFields unchanged (time too)', () => {
    const before = withManaged(configMap({ key: 'v' }), [
      {
        manager: 'a',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:key': {} } },
      },
    ]);
    const after = {
      ...configMap({ key: 'v' }),
      metadata: { ...(before.metadata as JsonObject), resourceVersion: '8' },
    };
    const entries = trackUpdate({ before, after, manager: 'b', apiVersion: 'v1', now: T2, schema: cmSchema });
    expect(entries).toEqual((before.metadata as JsonObject).managedFields);
  });

  it('changed fields move to the writer, other entries shrink, empty entries are dropped', () => {
    const before = withManaged(configMap({ one: '1', two: '2' }), [
      {
        manager: 'a',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:one': {} } },
      },
      {
        manager: 'b',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:two': {} } },
      },
    ]);
    const entries = trackUpdate({
      before,
      after: configMap({ one: 'uno', two: '2' }),
      manager: 'c',
      apiVersion: 'v1',
      now: T2,
      schema: cmSchema,
    });
    expect(entries.map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([
      ['b', T1, { 'f:data': { 'f:two': {} } }],
      ['c', T2, { 'f:data': { 'f:one': {} } }],
    ]);
  });

  it('removed fields leave every entry; an update that only removes does not add an entry', () => {
    const before = withManaged(configMap({ one: '1', two: '2' }), [
      {
        manager: 'a',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:one': {}, 'f:two': {} } },
      },
    ]);
    const entries = trackUpdate({
      before,
      after: configMap({ one: '1' }),
      manager: 'b',
      apiVersion: 'v1',
      now: T2,
      schema: cmSchema,
    });
    expect(entries).toEqual([
      {
        manager: 'a',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:one': {} } },
      },
    ]);
  });

  it('the same manager keeps one Update entry per apiVersion and subresource, and its time moves', () => {
    let object = configMap({ one: '1' });
    const first = trackUpdate({
      before: undefined,
      after: object,
      manager: 'a',
      apiVersion: 'v1',
      now: T1,
      schema: cmSchema,
    });
    object = withManaged(object, first);
    const next = configMap({ one: '1', two: '2' });
    const second = trackUpdate({
      before: object,
      after: next,
      manager: 'a',
      apiVersion: 'v1',
      now: T2,
      schema: cmSchema,
    });
    expect(second).toHaveLength(1);
    expect(second[0].time).toBe(T2);
    expect(second[0].fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:one': {}, 'f:two': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    });
    const status = trackUpdate({
      before: withManaged(next, second),
      after: { ...next, status: { phase: 'x' } },
      manager: 'a',
      apiVersion: 'v1',
      subresource: 'status',
      now: T3,
      schema: cmSchema,
    });
    expect(status.map((e) => [e.manager, e.subresource, e.time])).toEqual([
      ['a', undefined, T2],
      ['a', 'status', T3],
    ]);
    expect(status[1].fieldsV1).toEqual({ 'f:status': { '.': {}, 'f:phase': {} } });
  });

  it('[DR-10] an update takes a field from an applier (Apply entry loses it)', () => {
    const applied = serverSideApply({
      live: undefined,
      applied: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: { replicas: 3, paused: false },
      },
      manager: 'kubectl',
      force: false,
      apiVersion: 'apps/v1',
      now: T1,
      schema: deploySchema,
    });
    const after = { ...applied, spec: { replicas: 5, paused: false } };
    const entries = trackUpdate({
      before: applied,
      after,
      manager: 'hpa',
      apiVersion: 'apps/v1',
      now: T2,
      schema: deploySchema,
    });
    expect(entries.map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ['kubectl', 'Apply', { 'f:spec': { 'f:paused': {} } }],
      ['hpa', 'Update', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });

  it('managedFields sent with an update replace the stored ones; [{}] resets them', () => {
    const before = withManaged(configMap({ one: '1' }), [
      {
        manager: 'a',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:one': {} } },
      },
    ]);
    const edited: ManagedFieldsEntry[] = [
      {
        manager: 'z',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:one': {} } },
      },
    ];
    const replaced = trackUpdate({
      before,
      after: withManaged(configMap({ one: '1' }), edited),
      manager: 'b',
      apiVersion: 'v1',
      now: T2,
      schema: cmSchema,
    });
    expect(replaced.map((e) => e.manager)).toEqual(['z']);
    const reset = trackUpdate({
      before,
      after: withManaged(configMap({ one: '1' }), [{} as ManagedFieldsEntry]),
      manager: 'b',
      apiVersion: 'v1',
      now: T2,
      schema: cmSchema,
    });
    expect(reset).toEqual([]);
    const ignoredOnStatus = trackUpdate({
      before,
      after: withManaged(configMap({ one: '1' }), edited),
      manager: 'b',
      apiVersion: 'v1',
      subresource: 'status',
      now: T2,
      schema: cmSchema,
    });
    expect(ignoredOnStatus.map((e) => e.manager)).toEqual(['a']);
  });

  it('entries are ordered as kube-apiserver stores them: Apply first, then by time and manager', () => {
    const before = withManaged(configMap({ one: '1', two: '2' }), [
      {
        manager: 'u',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:one': {} } },
      },
      {
        manager: 'ap',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T2,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:two': {} } },
      },
    ]);
    const entries = trackUpdate({
      before,
      after: configMap({ one: '1', two: '2', three: '3' }),
      manager: 'a',
      apiVersion: 'v1',
      now: T3,
      schema: cmSchema,
    });
    expect(entries.map((e) => [e.operation, e.manager])).toEqual([
      ['Apply', 'ap'],
      ['Update', 'u'],
      ['Update', 'a'],
    ]);
  });

  it('tracks list-map items of a Deployment by key, with "." for a newly added item', () => {
    const base: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }] } } },
    };
    const after = structuredClone(base);
    (
      (((after.spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[]
    ).push({
      name: 'b',
      image: 'b:1',
    });
    const entries = trackUpdate({
      before: base,
      after,
      manager: 'm',
      apiVersion: 'apps/v1',
      now: T1,
      schema: deploySchema,
    });
    expect(entries[0].fieldsV1).toEqual({
      'f:spec': {
        'f:template': {
          'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
  });
  it('keeps at most 10 Update entries: the oldest of one apiVersion merge into "ancient-changes"', () => {
    const data: JsonObject = {};
    const entries: ManagedFieldsEntry[] = [];
    for (let i = 0; i < 10; i++) {
      data[`k${i}`] = String(i);
      entries.push({
        manager: `m${i}`,
        operation: 'Update',
        apiVersion: 'v1',
        time: `2026-01-01T00:00:0${i}Z`,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { [`f:k${i}`]: {} } },
      });
    }
    const before = withManaged(configMap(data), entries);
    const out = trackUpdate({
      before,
      after: configMap({ ...data, extra: 'x' }),
      manager: 'newcomer',
      apiVersion: 'v1',
      now: T3,
      schema: cmSchema,
    });
    expect(out).toHaveLength(10);
    const ancient = out.find((e) => e.manager === 'ancient-changes');
    expect(ancient).toMatchObject({
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-01-01T00:00:01Z',
      fieldsV1: { 'f:data': { 'f:k0': {}, 'f:k1': {} } },
    });
    expect(out.map((e) => e.manager)).not.toContain('m0');
    expect(out.map((e) => e.manager)).toContain('newcomer');
  });
});

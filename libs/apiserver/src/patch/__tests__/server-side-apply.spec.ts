import { describe, expect, it } from '@jest/globals';
import {
  ApplyConflictError,
  builtinPatchSchema,
  PatchError,
  serverSideApply,
  trackUpdate,
} from '../index.js';
import type { ServerSideApplyArgs } from '../index.js';
import type { JsonObject, ManagedFieldsEntry } from '../../types.js';

const deploySchema = builtinPatchSchema('apps', 'v1', 'Deployment');
const cmSchema = builtinPatchSchema('', 'v1', 'ConfigMap');
const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-01T00:01:00Z';
const T3 = '2026-01-01T00:02:00Z';

function apply(
  live: JsonObject | undefined,
  applied: JsonObject,
  manager: string,
  extra: Partial<ServerSideApplyArgs> = {},
): JsonObject {
  const apiVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : 'apps/v1';
  const schema = apiVersion === 'v1' ? cmSchema : deploySchema;
  return serverSideApply({ live, applied, manager, force: false, apiVersion, now: T1, schema, ...extra });
}

const deployment = (spec: JsonObject, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx', namespace: 'default', ...metadata },
  spec,
});

const managed = (object: JsonObject): ManagedFieldsEntry[] =>
  ((object.metadata as JsonObject).managedFields as ManagedFieldsEntry[] | undefined) ?? [];
const entry = (object: JsonObject, manager: string): ManagedFieldsEntry | undefined =>
  managed(object).find((e) => e.manager === manager);
const spec = (object: JsonObject): JsonObject => object.spec as JsonObject;
const containers = (object: JsonObject): JsonObject[] =>
  ((spec(object).template as JsonObject).spec as JsonObject).containers as JsonObject[];

function conflictOf(run: () => unknown): ApplyConflictError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApplyConflictError);
    return error as ApplyConflictError;
  }
  throw new Error('expected an ApplyConflictError');
}

function failure(run: () => unknown): PatchError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PatchError);
    return error as PatchError;
  }
  throw new Error('expected a PatchError');
}

describe('serverSideApply', () => {
  it('[ES-11] creates a missing object and records the Apply entry (the ConfigMap of the server-side apply docs)', () => {
    const applied = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } },
      data: { key: 'some value' },
    };
    const input = structuredClone(applied);
    const out = apply(undefined, applied, 'kubectl');
    expect(applied).toEqual(input);
    expect(out).toEqual({
      ...applied,
      metadata: {
        ...applied.metadata,
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'v1',
            time: T1,
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
          },
        ],
      },
    });
  });

  it("a conflict with an applier fails with 409 and kube-apiserver's message", () => {
    const live = apply(undefined, deployment({ replicas: 3 }), 'kubectl');
    const error = conflictOf(() => apply(live, deployment({ replicas: 5 }), 'other'));
    expect(error.status).toBe(409);
    expect(error.code).toBe('ApplyConflict');
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    expect(error.conflicts).toEqual([{ manager: 'kubectl', field: '.spec.replicas' }]);
    expect(error.causeMessages).toEqual(['conflict with "kubectl"']);
  });

  it('a conflict with an Update manager names its apiVersion; several conflicts are listed per manager', () => {
    const created = apply(undefined, deployment({ replicas: 1, paused: false }), 'ctl');
    const after: JsonObject = { ...created, spec: { replicas: 2, paused: true } };
    const metadata: JsonObject = { ...(after.metadata as JsonObject) };
    const updated: JsonObject = { ...after, metadata };
    metadata.managedFields = trackUpdate({
      before: created,
      after,
      manager: 'mgr',
      apiVersion: 'apps/v1',
      now: T2,
      schema: deploySchema,
    });
    const one = conflictOf(() => apply(updated, deployment({ replicas: 9 }), 'ctl'));
    expect(one.message).toBe(
      'Apply failed with 1 conflict: conflict with "mgr" using apps/v1: .spec.replicas',
    );
    const two = conflictOf(() => apply(updated, deployment({ replicas: 9, paused: false }), 'ctl'));
    expect(two.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "mgr" using apps/v1:\n- .spec.paused\n- .spec.replicas',
    );
  });

  it('conflicts with several managers are grouped by manager, sorted', () => {
    let live = apply(undefined, deployment({ replicas: 1 }), 'b-mgr');
    live = apply(live, deployment({ paused: true }), 'a-mgr');
    const error = conflictOf(() => apply(live, deployment({ replicas: 2, paused: false }), 'c-mgr'));
    expect(error.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "a-mgr":\n- .spec.paused\nconflicts with "b-mgr":\n- .spec.replicas',
    );
  });

  it('force takes ownership and removes the field from the previous owner (dropping an empty entry)', () => {
    const live = apply(undefined, deployment({ replicas: 3 }), 'kubectl');
    const out = apply(live, deployment({ replicas: 5 }), 'other', { force: true, now: T2 });
    expect(spec(out).replicas).toBe(5);
    expect(managed(out).map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['other', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });

  it('applying the same value shares ownership without a conflict', () => {
    const live = apply(undefined, deployment({ replicas: 3 }), 'a');
    const out = apply(live, deployment({ replicas: 3 }), 'b', { now: T2 });
    // b changed no value, so kube's managedFieldsUpdater gives its entry no time; a missing time
    // sorts as 0 seconds, before a's
    expect(managed(out).map((e) => [e.manager, e.fieldsV1, e.time])).toEqual([
      ['b', { 'f:spec': { 'f:replicas': {} } }, undefined],
      ['a', { 'f:spec': { 'f:replicas': {} } }, T1],
    ]);
  });

  it('a field left out of a re-apply is removed when nobody else owns it', () => {
    const live = apply(undefined, deployment({ replicas: 3 }, { labels: { a: '1', b: '2' } }), 'kubectl');
    const out = apply(live, deployment({ replicas: 3 }, { labels: { a: '1' } }), 'kubectl', { now: T2 });
    expect((out.metadata as JsonObject).labels).toEqual({ a: '1' });
    expect(entry(out, 'kubectl')!.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:replicas': {} },
    });
    expect(entry(out, 'kubectl')!.time).toBe(T2);
  });

  it('a map emptied by pruning is removed too', () => {
    const live = apply(undefined, deployment({ replicas: 1 }, { labels: { a: '1' } }), 'kubectl');
    const out = apply(live, deployment({ replicas: 1 }), 'kubectl');
    expect(out.metadata).not.toHaveProperty('labels');
  });

  it('a field left out of a re-apply stays when another manager owns it (it is only disowned)', () => {
    let live = apply(undefined, deployment({ replicas: 3 }), 'kubectl');
    live = apply(live, deployment({ replicas: 3 }), 'hpa');
    const out = apply(live, deployment({ paused: false }), 'kubectl', { now: T2 });
    expect(spec(out)).toEqual({ replicas: 3, paused: false });
    expect(entry(out, 'kubectl')!.fieldsV1).toEqual({ 'f:spec': { 'f:paused': {} } });
    expect(entry(out, 'hpa')!.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('an update takes a field from the applier; the applier then conflicts and its re-apply leaves the field (docs: transferring ownership)', () => {
    const live = apply(undefined, deployment({ replicas: 3 }), 'kubectl');
    const scaled: JsonObject = { ...live, spec: { replicas: 5 } };
    scaled.metadata = {
      ...(live.metadata as JsonObject),
      managedFields: trackUpdate({
        before: live,
        after: scaled,
        manager: 'kube-controller-manager',
        apiVersion: 'apps/v1',
        now: T2,
        schema: deploySchema,
      }),
    };
    expect(entry(scaled, 'kubectl')).toBeUndefined();
    const error = conflictOf(() => apply(scaled, deployment({ replicas: 3 }), 'kubectl'));
    expect(error.message).toBe(
      'Apply failed with 1 conflict: conflict with "kube-controller-manager" using apps/v1: .spec.replicas',
    );
    const out = apply(scaled, deployment({ paused: false }), 'kubectl', { now: T3 });
    expect(spec(out).replicas).toBe(5);
  });

  it('two managers merge containers of one list-map by name; each owns its item', () => {
    const a = deployment({ template: { spec: { containers: [{ name: 'app', image: 'app:1' }] } } });
    const b = deployment({ template: { spec: { containers: [{ name: 'sidecar', image: 'proxy:1' }] } } });
    let live = apply(undefined, a, 'team-a');
    live = apply(live, b, 'team-b', { now: T2 });
    expect(containers(live)).toEqual([
      { name: 'app', image: 'app:1' },
      { name: 'sidecar', image: 'proxy:1' },
    ]);
    expect(entry(live, 'team-b')!.fieldsV1).toEqual({
      'f:spec': {
        'f:template': {
          'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
    const error = conflictOf(() =>
      apply(
        live,
        deployment({ template: { spec: { containers: [{ name: 'app', image: 'app:2' }] } } }),
        'team-b',
      ),
    );
    expect(error.conflicts).toEqual([
      { manager: 'team-a', field: '.spec.template.spec.containers[name="app"].image' },
    ]);
    const removed = apply(live, deployment({ template: { spec: { containers: [] } } }), 'team-a', {
      now: T3,
    });
    expect(containers(removed)).toEqual([{ name: 'sidecar', image: 'proxy:1' }]);
  });

  it('an atomic list is replaced whole and owned as one field', () => {
    const withArgs = (args: string[]): JsonObject =>
      deployment({ template: { spec: { containers: [{ name: 'c', args }] } } });
    const live = apply(undefined, withArgs(['a', 'b']), 'one');
    expect(entry(live, 'one')!.fieldsV1).toEqual({
      'f:spec': {
        'f:template': {
          'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:args': {}, 'f:name': {} } } },
        },
      },
    });
    const error = conflictOf(() => apply(live, withArgs(['c']), 'two'));
    expect(error.conflicts).toEqual([
      { manager: 'one', field: '.spec.template.spec.containers[name="c"].args' },
    ]);
    const forced = apply(live, withArgs(['c']), 'two', { force: true });
    expect(containers(forced)[0].args).toEqual(['c']);
  });

  it('[EP-23] set lists merge per value; an apply of the spec never drops a finalizer another manager added', () => {
    let live = apply(undefined, deployment({ replicas: 1 }, { finalizers: ['a.example.com/f'] }), 'one');
    live = apply(live, deployment({}, { finalizers: ['b.example.com/f'] }), 'two');
    expect((live.metadata as JsonObject).finalizers).toEqual(['a.example.com/f', 'b.example.com/f']);
    // `spec: {}` is applied too: an empty map is owned as a leaf, as structured-merge-diff does.
    expect(entry(live, 'two')!.fieldsV1).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"b.example.com/f"': {} } },
      'f:spec': {},
    });
    const out = apply(live, deployment({ replicas: 2 }), 'one');
    expect((out.metadata as JsonObject).finalizers).toEqual(['b.example.com/f']);
    const controller = trackUpdate({
      before: undefined,
      after: deployment({}, { finalizers: ['ctrl/f'] }),
      manager: 'ctrl',
      apiVersion: 'apps/v1',
      now: T1,
      schema: deploySchema,
    });
    const withFinalizer = deployment({}, { finalizers: ['ctrl/f'], managedFields: controller });
    const specApplied = apply(withFinalizer, deployment({ replicas: 4 }), 'ctrl');
    expect((specApplied.metadata as JsonObject).finalizers).toEqual(['ctrl/f']);
  });

  it('container ports are keyed by containerPort and protocol (protocol defaults to TCP)', () => {
    const out = apply(
      undefined,
      deployment({
        template: {
          spec: {
            containers: [
              { name: 'c', ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] },
            ],
          },
        },
      }),
      'm',
    );
    const fields = (
      ((entry(out, 'm')!.fieldsV1['f:spec'] as JsonObject)['f:template'] as JsonObject)[
        'f:spec'
      ] as JsonObject
    )['f:containers'] as JsonObject;
    expect(Object.keys((fields['k:{"name":"c"}'] as JsonObject)['f:ports'] as JsonObject)).toEqual([
      'k:{"containerPort":53,"protocol":"UDP"}',
      'k:{"containerPort":80,"protocol":"TCP"}',
    ]);
  });

  it('reuseEncoding gives the same object, sharing the fieldsV1 of entries the apply leaves alone', () => {
    let live = apply(undefined, deployment({ replicas: 1, paused: false }), 'a');
    live = apply(live, deployment({ minReadySeconds: 5 }), 'b');
    // [applied by b, a's entry untouched, b applies the same fields as before]
    const cases: [JsonObject, boolean, boolean][] = [
      [deployment({ minReadySeconds: 6 }), true, true], // b's own field: a's entry is untouched
      [deployment({ minReadySeconds: 6, replicas: 2 }), false, false], // forced: a loses replicas
      [deployment({ minReadySeconds: 6, paused: null }), false, false], // an explicit null takes paused from a
      [deployment({}), true, false], // b gives up its field: a's entry is untouched
      [deployment({ minReadySeconds: 5 }), true, true], // the same apply again
    ];
    for (const [applied, aUntouched, bSameFields] of cases) {
      const fresh = apply(live, applied, 'b', { force: true });
      const reused = apply(live, applied, 'b', { force: true, reuseEncoding: true });
      expect(reused).toEqual(fresh);
      const shared = entry(reused, 'a')?.fieldsV1 === entry(live, 'a')?.fieldsV1;
      expect(shared).toBe(aUntouched);
      // a re-apply of the same fields keeps the applier's stored encoding too
      expect(entry(reused, 'b')?.fieldsV1 === entry(live, 'b')?.fieldsV1).toBe(bSameFields);
    }
  });

  it('an explicit null removes a field and conflicts with its owner like any change', () => {
    const live = apply(undefined, deployment({ replicas: 3, paused: true }), 'a');
    const error = conflictOf(() => apply(live, deployment({ paused: null }), 'b'));
    expect(error.conflicts).toEqual([{ manager: 'a', field: '.spec.paused' }]);
    const forced = apply(live, deployment({ paused: null }), 'b', { force: true });
    expect(spec(forced)).toEqual({ replicas: 3 });
  });

  it('a CronJob merges the containers of its job template by name', () => {
    const cron = (name: string): JsonObject => ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name, image: name }] } } } } },
    });
    const schema = builtinPatchSchema('batch', 'v1', 'CronJob');
    const args = { force: false, apiVersion: 'batch/v1', now: T1, schema };
    let live = serverSideApply({ ...args, live: undefined, applied: cron('a'), manager: 'one' });
    live = serverSideApply({ ...args, live, applied: cron('b'), manager: 'two' });
    const jobTemplate = spec(live).jobTemplate as JsonObject;
    const podSpec = ((jobTemplate.spec as JsonObject).template as JsonObject).spec as JsonObject;
    expect((podSpec.containers as JsonObject[]).map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('a no-op re-apply keeps the entry and its time', () => {
    const live = apply(undefined, deployment({ replicas: 1 }), 'm');
    const again = apply(live, deployment({ replicas: 1 }), 'm', { now: T3 });
    expect(again).toEqual(live);
  });

  it('the status subresource considers only .status and records subresource status', () => {
    const live = apply(undefined, deployment({ replicas: 1 }), 'm');
    const out = apply(live, { ...deployment({ replicas: 7 }), status: { readyReplicas: 1 } }, 'm', {
      subresource: 'status',
      now: T2,
    });
    expect(spec(out).replicas).toBe(1);
    expect(out.status).toEqual({ readyReplicas: 1 });
    const status = managed(out).find((e) => e.subresource === 'status');
    expect(status).toEqual({
      manager: 'm',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: T2,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:readyReplicas': {} } },
      subresource: 'status',
    });
    const ignored = apply(live, { ...deployment({ replicas: 1 }), status: { readyReplicas: 3 } }, 'm', {
      ignoreStatus: true,
    });
    expect(ignored.status).toBeUndefined();
  });

  it('an atomic map (label selector) is owned whole', () => {
    const out = apply(undefined, deployment({ selector: { matchLabels: { app: 'x' } } }), 'm');
    expect(entry(out, 'm')!.fieldsV1).toEqual({ 'f:spec': { 'f:selector': {} } });
    const replaced = apply(out, deployment({ selector: { matchLabels: { app: 'y' } } }), 'm');
    expect(spec(replaced).selector).toEqual({ matchLabels: { app: 'y' } });
  });

  it('an apply configuration that is not an object gives PatchError NotAnObject (400)', () => {
    const error = failure(() =>
      serverSideApply({
        live: undefined,
        applied: [] as unknown as JsonObject,
        manager: 'm',
        force: false,
        apiVersion: 'v1',
        now: T1,
        schema: cmSchema,
      }),
    );
    expect([error.code, error.status]).toEqual(['NotAnObject', 400]);
  });

  it("a wrong apiVersion gives PatchError InvalidApplyConfiguration (400) with kube-apiserver's message", () => {
    const error = failure(() =>
      serverSideApply({
        live: undefined,
        applied: deployment({}),
        manager: 'm',
        force: false,
        apiVersion: 'apps/v2',
        now: T1,
        schema: deploySchema,
      }),
    );
    expect([error.code, error.status]).toEqual(['InvalidApplyConfiguration', 400]);
    expect(error.message).toBe(
      'Incorrect version specified in apply patch. Specified patch version: apps/v1, expected: apps/v2',
    );
  });

  it('metadata.managedFields in an apply configuration gives PatchError InvalidApplyConfiguration (400)', () => {
    const error = failure(() => apply(undefined, deployment({}, { managedFields: [] }), 'm'));
    expect([error.code, error.status, error.message]).toEqual([
      'InvalidApplyConfiguration',
      400,
      'metadata.managedFields must be nil',
    ]);
  });

  it('a list-map item without its key, or a repeated key, gives PatchError InvalidApplyConfiguration (400)', () => {
    for (const list of [[{ image: 'x' }], [{ name: 'a' }, { name: 'a' }]]) {
      const error = failure(() =>
        apply(undefined, deployment({ template: { spec: { containers: list } } }), 'm'),
      );
      expect([error.code, error.status]).toEqual(['InvalidApplyConfiguration', 400]);
    }
  });
});

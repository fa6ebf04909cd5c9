/**
 * Multi-step apply/update scenarios with the outcomes structured-merge-diff's own test suite expects
 * (merge/set_test.go, merge/multiple_appliers_test.go): final object, item order, owners, conflicts.
 */
import { describe, expect, it } from '@jest/globals';
import { ApplyConflictError, serverSideApply, trackUpdate } from '../index.js';
import type { JsonObject, ListInfo, ManagedFieldsEntry, PatchSchema } from '../../types.js';

type Op =
  | { apply: string; object: JsonObject; conflicts?: { manager: string; field: string }[] }
  | { update: string; object: JsonObject };

interface Scenario {
  name: string;
  list: ListInfo;
  ops: Op[];
  object: JsonObject;
  managed: Record<string, JsonObject>;
}

const setList: ListInfo = { type: 'set' };
const mapList: ListInfo = { type: 'map', keys: ['name'] };
const v = (...items: string[]): JsonObject => Object.fromEntries(items.map((item) => [`v:"${item}"`, {}]));
const k = (...names: string[]): JsonObject =>
  Object.fromEntries(names.map((name) => [`k:{"name":"${name}"}`, { '.': {}, 'f:name': {} }]));
const named = (...names: string[]): JsonObject[] => names.map((name) => ({ name }));

const scenarios: Scenario[] = [
  {
    name: 'set: apply twice',
    list: setList,
    ops: [
      { apply: 'default', object: { list: ['a', 'c'] } },
      { apply: 'default', object: { list: ['a', 'b', 'c', 'd'] } },
    ],
    object: { list: ['a', 'b', 'c', 'd'] },
    managed: { default: { 'f:list': v('a', 'b', 'c', 'd') } },
  },
  {
    name: 'set: apply, update, apply without overlap (items interleave)',
    list: setList,
    ops: [
      { apply: 'default', object: { list: ['a', 'c'] } },
      { update: 'controller', object: { list: ['a', 'b', 'c', 'd'] } },
      { apply: 'default', object: { list: ['a', 'aprime', 'c', 'cprime'] } },
    ],
    object: { list: ['a', 'b', 'aprime', 'c', 'd', 'cprime'] },
    managed: {
      default: { 'f:list': v('a', 'aprime', 'c', 'cprime') },
      controller: { 'f:list': v('b', 'd') },
    },
  },
  {
    name: 'set: apply, update, apply with overlap (shared ownership of b)',
    list: setList,
    ops: [
      { apply: 'default', object: { list: ['a', 'c'] } },
      { update: 'controller', object: { list: ['a', 'b', 'c', 'd'] } },
      { apply: 'default', object: { list: ['a', 'b', 'c'] } },
    ],
    object: { list: ['a', 'b', 'c', 'd'] },
    managed: { default: { 'f:list': v('a', 'b', 'c') }, controller: { 'f:list': v('b', 'd') } },
  },
  {
    name: 'set: apply twice reordered',
    list: setList,
    ops: [
      { apply: 'default', object: { list: ['a', 'b', 'c', 'd'] } },
      { apply: 'default', object: { list: ['a', 'd', 'c', 'b'] } },
    ],
    object: { list: ['a', 'd', 'c', 'b'] },
    managed: { default: { 'f:list': v('a', 'b', 'c', 'd') } },
  },
  {
    name: 'set: an update that only reorders owns nothing; the next apply restores its order',
    list: setList,
    ops: [
      { apply: 'default', object: { list: ['a', 'b', 'c', 'd'] } },
      { update: 'controller', object: { list: ['a', 'd', 'c', 'b'] } },
      { apply: 'default', object: { list: ['a', 'b', 'c', 'd'] } },
    ],
    object: { list: ['a', 'b', 'c', 'd'] },
    managed: { default: { 'f:list': v('a', 'b', 'c', 'd') } },
  },
  {
    name: 'set: apply twice removing items',
    list: setList,
    ops: [
      { apply: 'default', object: { list: ['a', 'b', 'c', 'd'] } },
      { apply: 'default', object: { list: ['a', 'c'] } },
    ],
    object: { list: ['a', 'c'] },
    managed: { default: { 'f:list': v('a', 'c') } },
  },
  {
    name: 'list-map: two appliers, one removes an item it alone owned',
    list: mapList,
    ops: [
      { apply: 'apply-one', object: { list: named('a', 'b') } },
      { apply: 'apply-two', object: { list: named('c') } },
      { apply: 'apply-one', object: { list: named('a') } },
    ],
    object: { list: named('a', 'c') },
    managed: { 'apply-one': { 'f:list': k('a') }, 'apply-two': { 'f:list': k('c') } },
  },
  {
    name: 'list-map: same value, no conflict',
    list: mapList,
    ops: [
      { apply: 'apply-one', object: { list: [{ name: 'a', value: 0 }] } },
      { apply: 'apply-two', object: { list: [{ name: 'a', value: 0 }] } },
    ],
    object: { list: [{ name: 'a', value: 0 }] },
    managed: {
      'apply-one': { 'f:list': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:value': {} } } },
      'apply-two': { 'f:list': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:value': {} } } },
    },
  },
  {
    name: 'list-map: a changed value conflicts',
    list: mapList,
    ops: [
      { apply: 'apply-one', object: { list: [{ name: 'a', value: 0 }] } },
      {
        apply: 'apply-two',
        object: { list: [{ name: 'a', value: 1 }] },
        conflicts: [{ manager: 'apply-one', field: '.list[name="a"].value' }],
      },
    ],
    object: { list: [{ name: 'a', value: 0 }] },
    managed: { 'apply-one': { 'f:list': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:value': {} } } } },
  },
  {
    name: 'list-map: remove items, keep the one another applier shares',
    list: mapList,
    ops: [
      { apply: 'apply-one', object: { list: named('a', 'b', 'c') } },
      { apply: 'apply-two', object: { list: named('c', 'd') } },
      { apply: 'apply-one', object: { list: named('a') } },
    ],
    object: { list: named('a', 'c', 'd') },
    managed: { 'apply-one': { 'f:list': k('a') }, 'apply-two': { 'f:list': k('c', 'd') } },
  },
];

function run(scenario: Scenario): JsonObject {
  const schema: PatchSchema = { listInfo: (path) => (path.join('.') === 'list' ? scenario.list : undefined) };
  const typed = (object: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Thing', ...object });
  let live: JsonObject | undefined;
  scenario.ops.forEach((op, step) => {
    const now = `2026-01-01T00:00:0${step}Z`;
    if ('apply' in op) {
      const call = (): JsonObject =>
        serverSideApply({
          live,
          applied: typed(op.object),
          manager: op.apply,
          force: false,
          apiVersion: 'v1',
          now,
          schema,
        });
      if (op.conflicts === undefined) {
        live = call();
      } else {
        let caught: unknown;
        try {
          call();
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(ApplyConflictError);
        expect((caught as ApplyConflictError).conflicts).toEqual(op.conflicts);
      }
    } else {
      const after = typed(op.object);
      const managedFields = trackUpdate({
        before: live,
        after,
        manager: op.update,
        apiVersion: 'v1',
        now,
        schema,
      });
      live = { ...after, metadata: { managedFields } };
    }
  });
  return live!;
}

describe('apply scenarios of structured-merge-diff', () => {
  it.each(scenarios.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    const out = run(scenario);
    const { metadata, apiVersion, kind, ...rest } = out;
    expect([apiVersion, kind]).toEqual(['v1', 'Thing']);
    expect(rest).toEqual(scenario.object);
    const entries =
      ((metadata as JsonObject | undefined)?.managedFields as ManagedFieldsEntry[] | undefined) ?? [];
    expect(Object.fromEntries(entries.map((e) => [e.manager, e.fieldsV1]))).toEqual(scenario.managed);
  });
});

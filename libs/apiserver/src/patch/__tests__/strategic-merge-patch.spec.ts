import { describe, expect, it } from '@jest/globals';
import { applyStrategicMergePatch, builtinPatchSchema, PatchError } from '../index.js';
import type { JsonObject, PatchSchema } from '../../types.js';

const deploymentSchema = builtinPatchSchema('apps', 'v1', 'Deployment');
const podSchema = builtinPatchSchema('', 'v1', 'Pod');

/** The Deployment of the "Update API Objects in Place Using kubectl patch" task. */
const patchDemo = (): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'patch-demo', finalizers: ['example.com/a'] },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'nginx' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: {
        containers: [
          {
            name: 'patch-demo-ctr',
            image: 'nginx',
            ports: [{ containerPort: 80 }, { containerPort: 443 }],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
        ],
        tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }],
      },
    },
  },
});

const podSpec = (object: JsonObject): JsonObject =>
  ((object.spec as JsonObject).template as JsonObject).spec as JsonObject;
const containers = (object: JsonObject): JsonObject[] => podSpec(object).containers as JsonObject[];
const names = (items: JsonObject[]): unknown[] => items.map((item) => item.name);

function failure(run: () => unknown): PatchError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PatchError);
    return error as PatchError;
  }
  throw new Error('expected a PatchError');
}

describe('applyStrategicMergePatch', () => {
  it('merges containers by name; a new container comes first (kubectl patch docs)', () => {
    const target = patchDemo();
    const before = structuredClone(target);
    const out = applyStrategicMergePatch(
      target,
      { spec: { template: { spec: { containers: [{ name: 'patch-demo-ctr-2', image: 'redis' }] } } } },
      deploymentSchema,
    );
    expect(names(containers(out))).toEqual(['patch-demo-ctr-2', 'patch-demo-ctr']);
    expect(containers(out)[1].image).toBe('nginx');
    expect(target).toEqual(before);
  });

  it('merges fields of an existing container and keeps its position', () => {
    const target = patchDemo();
    podSpec(target).containers = [
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:1' },
      { name: 'c', image: 'c:1' },
    ];
    const out = applyStrategicMergePatch(
      target,
      { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } },
      deploymentSchema,
    );
    expect(containers(out)).toEqual([
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:2' },
      { name: 'c', image: 'c:1' },
    ]);
  });

  it('replaces an atomic list (tolerations) whole (kubectl patch docs)', () => {
    const out = applyStrategicMergePatch(
      patchDemo(),
      {
        spec: {
          template: { spec: { tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] } },
        },
      },
      deploymentSchema,
    );
    expect(podSpec(out).tolerations).toEqual([{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }]);
  });

  it('merges container ports by containerPort and env by name', () => {
    const out = applyStrategicMergePatch(
      patchDemo(),
      {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: 'patch-demo-ctr',
                  ports: [{ containerPort: 443, name: 'https' }, { containerPort: 8080 }],
                  env: [
                    { name: 'B', value: 'two' },
                    { name: 'C', value: '3' },
                    { name: 'A', $patch: 'delete' },
                  ],
                },
              ],
            },
          },
        },
      },
      deploymentSchema,
    );
    const [ctr] = containers(out);
    expect(ctr.ports).toEqual([
      { containerPort: 80 },
      { containerPort: 443, name: 'https' },
      { containerPort: 8080 },
    ]);
    expect(ctr.env).toEqual([
      { name: 'B', value: 'two' },
      { name: 'C', value: '3' },
    ]);
    expect(ctr.image).toBe('nginx');
  });

  it('$patch: delete removes a list item by merge key', () => {
    const out = applyStrategicMergePatch(
      patchDemo(),
      { spec: { template: { spec: { containers: [{ name: 'patch-demo-ctr', $patch: 'delete' }] } } } },
      deploymentSchema,
    );
    expect(containers(out)).toEqual([]);
  });

  it('$patch: replace in a list replaces the whole list', () => {
    const out = applyStrategicMergePatch(
      patchDemo(),
      {
        spec: {
          template: { spec: { containers: [{ name: 'only', image: 'busybox' }, { $patch: 'replace' }] } },
        },
      },
      deploymentSchema,
    );
    expect(containers(out)).toEqual([{ name: 'only', image: 'busybox' }]);
  });

  it('$patch: replace in a map replaces the map; $patch: delete clears it; $patch: merge merges', () => {
    const replaced = applyStrategicMergePatch(
      patchDemo(),
      { spec: { strategy: { $patch: 'replace', type: 'Recreate' } } },
      deploymentSchema,
    );
    expect((replaced.spec as JsonObject).strategy).toEqual({ type: 'Recreate' });
    const deleted = applyStrategicMergePatch(
      patchDemo(),
      { spec: { template: { metadata: { labels: { $patch: 'delete' } } } } },
      deploymentSchema,
    );
    expect(((deleted.spec as JsonObject).template as JsonObject).metadata).toEqual({ labels: {} });
    const merged = applyStrategicMergePatch(
      patchDemo(),
      { spec: { selector: { $patch: 'merge', matchLabels: { tier: 'web' } } } },
      deploymentSchema,
    );
    expect((merged.spec as JsonObject).selector).toEqual({ matchLabels: { app: 'nginx', tier: 'web' } });
  });

  it('$retainKeys clears fields it does not list (Deployment strategy, kubectl patch docs)', () => {
    const out = applyStrategicMergePatch(
      patchDemo(),
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      deploymentSchema,
    );
    expect((out.spec as JsonObject).strategy).toEqual({ type: 'Recreate' });
  });

  it('$retainKeys with a field it does not list gives PatchError RetainKeysMismatch (400)', () => {
    const error = failure(() =>
      applyStrategicMergePatch(
        patchDemo(),
        { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: { maxSurge: 1 } } } },
        deploymentSchema,
      ),
    );
    expect([error.code, error.status]).toEqual(['RetainKeysMismatch', 400]);
  });

  it('[EP-22] finalizers are merged as a set; $deleteFromPrimitiveList removes values', () => {
    const added = applyStrategicMergePatch(
      patchDemo(),
      { metadata: { finalizers: ['example.com/b', 'example.com/a'] } },
      deploymentSchema,
    );
    expect((added.metadata as JsonObject).finalizers).toEqual(['example.com/b', 'example.com/a']);
    const removed = applyStrategicMergePatch(
      added,
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } },
      deploymentSchema,
    );
    expect((removed.metadata as JsonObject).finalizers).toEqual(['example.com/b']);
  });

  it('$setElementOrder orders the merged list; server-only items are interleaved by live order (as strategicpatch does)', () => {
    const target = patchDemo();
    podSpec(target).containers = [
      { name: 'a', image: 'a' },
      { name: 'b', image: 'b' },
      { name: 'c', image: 'c' },
    ];
    const out = applyStrategicMergePatch(
      target,
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'd' }],
              containers: [{ name: 'd', image: 'd' }],
            },
          },
        },
      },
      deploymentSchema,
    );
    // b (server only) sorts before c because b precedes c in the live list; c, a, d follow the directive.
    expect(names(containers(out))).toEqual(['b', 'c', 'a', 'd']);
    expect(podSpec(out)).not.toHaveProperty('$setElementOrder/containers');
  });

  it('$setElementOrder on a primitive set list orders finalizers', () => {
    const out = applyStrategicMergePatch(
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'], finalizers: ['c'] } },
      podSchema,
    );
    expect((out.metadata as JsonObject).finalizers).toEqual(['b', 'c', 'a']);
  });

  it('a patch list that contradicts $setElementOrder gives PatchError InvalidPatch (400)', () => {
    const error = failure(() =>
      applyStrategicMergePatch(
        patchDemo(),
        {
          spec: {
            template: {
              spec: {
                '$setElementOrder/containers': [{ name: 'x' }, { name: 'y' }],
                containers: [{ name: 'y' }, { name: 'x' }],
              },
            },
          },
        },
        deploymentSchema,
      ),
    );
    expect([error.code, error.status]).toEqual(['InvalidPatch', 400]);
  });

  it('null deletes fields and unmatched nulls are dropped from new subtrees', () => {
    const out = applyStrategicMergePatch(
      patchDemo(),
      { spec: { replicas: null, paused: { nested: null, kept: 1 } }, metadata: { labels: { gone: null } } },
      deploymentSchema,
    );
    expect(out.spec).not.toHaveProperty('replicas');
    expect((out.spec as JsonObject).paused).toEqual({ kept: 1 });
    expect((out.metadata as JsonObject).labels).toEqual({});
  });

  it('merges pod status conditions by type and Service ports by port', () => {
    const pod = applyStrategicMergePatch(
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'Initialized', status: 'True' },
          ],
        },
      },
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      podSchema,
    );
    expect((pod.status as JsonObject).conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'Initialized', status: 'True' },
    ]);
    const svc = applyStrategicMergePatch(
      { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } },
      { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
      builtinPatchSchema('', 'v1', 'Service'),
    );
    expect((svc.spec as JsonObject).ports).toEqual([{ port: 80, targetPort: 9090 }, { port: 443 }]);
  });

  it('a Job status.conditions is merged by type in a strategic merge patch (patchStrategy), though atomic for apply', () => {
    const out = applyStrategicMergePatch(
      { status: { conditions: [{ type: 'Complete', status: 'False' }] } },
      { status: { conditions: [{ type: 'Failed', status: 'True' }] } },
      builtinPatchSchema('batch', 'v1', 'Job'),
    );
    expect((out.status as JsonObject).conditions).toEqual([
      { type: 'Failed', status: 'True' },
      { type: 'Complete', status: 'False' },
    ]);
  });

  it('an unknown kind replaces lists whole', () => {
    const out = applyStrategicMergePatch(
      { spec: { items: [{ name: 'a' }], tags: ['x'] }, metadata: { finalizers: ['f'] } },
      { spec: { items: [{ name: 'b' }], tags: ['y'] }, metadata: { finalizers: ['g'] } },
      builtinPatchSchema('example.com', 'v1', 'Widget'),
    );
    expect(out).toEqual({ spec: { items: [{ name: 'b' }], tags: ['y'] }, metadata: { finalizers: ['g'] } });
  });

  it('a non-object patch gives PatchError NotAnObject (400)', () => {
    for (const patch of [[], 'x', null, 2]) {
      const error = failure(() => applyStrategicMergePatch(patchDemo(), patch, deploymentSchema));
      expect([error.code, error.status]).toEqual(['NotAnObject', 400]);
    }
  });

  it('an item of a merge list without its merge key gives PatchError MissingMergeKey (422)', () => {
    const error = failure(() =>
      applyStrategicMergePatch(
        patchDemo(),
        { spec: { template: { spec: { containers: [{ image: 'x' }] } } } },
        deploymentSchema,
      ),
    );
    expect([error.code, error.status]).toEqual(['MissingMergeKey', 422]);
  });

  it('an unknown $patch value gives PatchError InvalidPatch (400)', () => {
    const error = failure(() =>
      applyStrategicMergePatch(patchDemo(), { spec: { strategy: { $patch: 'explode' } } }, deploymentSchema),
    );
    expect([error.code, error.status]).toEqual(['InvalidPatch', 400]);
  });

  it('directives of the wrong type give PatchError InvalidPatch (400)', () => {
    const patches = [
      { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } },
      { metadata: { '$setElementOrder/finalizers': 'a' } },
      { spec: { strategy: { $retainKeys: 'type' } } },
    ];
    for (const patch of patches) {
      const error = failure(() => applyStrategicMergePatch(patchDemo(), patch, deploymentSchema));
      expect([error.code, error.status]).toEqual(['InvalidPatch', 400]);
    }
  });

  it('a list of lists in a merge list gives PatchError TypeMismatch (422)', () => {
    const error = failure(() =>
      applyStrategicMergePatch(
        { metadata: { finalizers: [['a']] } },
        { metadata: { finalizers: [['b']] } },
        podSchema,
      ),
    );
    expect([error.code, error.status]).toEqual(['TypeMismatch', 422]);
  });

  it('a value of another type replaces the old one', () => {
    const out = applyStrategicMergePatch(
      patchDemo(),
      { spec: { template: { spec: { containers: 'none' } } } },
      deploymentSchema,
    );
    expect(podSpec(out).containers).toBe('none');
  });
});

describe('applyStrategicMergePatch order cases of the strategicpatch test suite', () => {
  const schema: PatchSchema = {
    listInfo: (path) =>
      path.join('.') === 'mergingList'
        ? { type: 'map', keys: ['name'] }
        : path.join('.') === 'mergingIntList'
          ? { type: 'set' }
          : undefined,
  };
  const n = (name: number, extra: JsonObject = {}): JsonObject => ({ name, ...extra });
  const cases: [string, JsonObject, JsonObject, JsonObject][] = [
    [
      'add an item in a list and preserve order',
      { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' })] },
      { '$setElementOrder/mergingList': [n(3), n(1), n(2)], mergingList: [n(3, { value: 3 })] },
      { mergingList: [n(3, { value: 3 }), n(1, { other: 'a' }), n(2, { value: 2, other: 'b' })] },
    ],
    [
      'add multiple items in a list and preserve order',
      { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' })] },
      {
        '$setElementOrder/mergingList': [n(1), n(4), n(2), n(3)],
        mergingList: [n(4, { value: 4 }), n(3, { value: 3 })],
      },
      {
        mergingList: [
          n(1, { other: 'a' }),
          n(4, { value: 4 }),
          n(2, { value: 2, other: 'b' }),
          n(3, { value: 3 }),
        ],
      },
    ],
    [
      'delete an item in a list and preserve order',
      { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' }), n(3, { value: 3 })] },
      { '$setElementOrder/mergingList': [n(2), n(1)], mergingList: [n(3, { $patch: 'delete' })] },
      { mergingList: [n(2, { value: 2, other: 'b' }), n(1, { other: 'a' })] },
    ],
    [
      'change an item in a list and preserve order',
      { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' }), n(3, { value: 3 })] },
      { '$setElementOrder/mergingList': [n(2), n(3), n(1)], mergingList: [n(3, { value: 'x' })] },
      { mergingList: [n(2, { value: 2, other: 'b' }), n(3, { value: 'x' }), n(1, { other: 'a' })] },
    ],
    [
      'add and delete an item in a list and preserve order',
      { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' }), n(3, { value: 3 })] },
      {
        '$setElementOrder/mergingList': [n(4), n(2), n(1)],
        mergingList: [n(4, { value: 4 }), n(3, { $patch: 'delete' })],
      },
      { mergingList: [n(4, { value: 4 }), n(2, { value: 2, other: 'b' }), n(1, { other: 'a' })] },
    ],
    [
      'set elements order in a list with server-only items',
      {
        mergingList: [n(1, { other: 'a' }), n(3, { value: 3 }), n(4, { value: 4 }), n(2, { value: 2 }), n(9)],
      },
      { '$setElementOrder/mergingList': [n(4), n(2), n(3), n(1)] },
      {
        mergingList: [n(4, { value: 4 }), n(2, { value: 2 }), n(3, { value: 3 }), n(1, { other: 'a' }), n(9)],
      },
    ],
    [
      'set elements order in a list with server-only items 2',
      {
        mergingList: [n(1, { other: 'a' }), n(2, { value: 2 }), n(9), n(3, { value: 3 }), n(4, { value: 4 })],
      },
      { '$setElementOrder/mergingList': [n(2), n(1), n(4), n(3)] },
      {
        mergingList: [n(2, { value: 2 }), n(1, { other: 'a' }), n(9), n(4, { value: 4 }), n(3, { value: 3 })],
      },
    ],
    [
      'set elements order in a list with server-only items 3',
      { mergingList: [n(1), n(2), n(7), n(9), n(8), n(3), n(4)] },
      { '$setElementOrder/mergingList': [n(2), n(1), n(4), n(3)] },
      { mergingList: [n(2), n(1), n(7), n(9), n(8), n(4), n(3)] },
    ],
    [
      'add an item in a int list and preserve order',
      { mergingIntList: [1, 2] },
      { '$setElementOrder/mergingIntList': [3, 1, 2], mergingIntList: [3] },
      { mergingIntList: [3, 1, 2] },
    ],
    [
      'delete an item in a int list and preserve order',
      { mergingIntList: [1, 2, 3] },
      { '$setElementOrder/mergingIntList': [2, 1], '$deleteFromPrimitiveList/mergingIntList': [3] },
      { mergingIntList: [2, 1] },
    ],
    [
      'add and delete an item in a int list and preserve order',
      { mergingIntList: [1, 2, 3] },
      {
        '$setElementOrder/mergingIntList': [4, 2, 1],
        mergingIntList: [4],
        '$deleteFromPrimitiveList/mergingIntList': [3],
      },
      { mergingIntList: [4, 2, 1] },
    ],
    [
      'set elements order in a int list with server-only items 3',
      { mergingIntList: [1, 2, 7, 9, 8, 3, 4] },
      { '$setElementOrder/mergingIntList': [2, 1, 4, 3] },
      { mergingIntList: [2, 1, 7, 9, 8, 4, 3] },
    ],
  ];
  const retain = (map: JsonObject): JsonObject => ({ retainKeysMap: map });
  cases.push(
    [
      'retainKeys map should clear defaulted field',
      retain({ value: 'foo' }),
      retain({ $retainKeys: ['other'], other: 'bar' }),
      retain({ other: 'bar' }),
    ],
    [
      'retainKeys map adds a field and clear a field',
      retain({ name: 'foo', other: 'a' }),
      retain({ $retainKeys: ['name', 'value'], value: 'bar' }),
      retain({ name: 'foo', value: 'bar' }),
    ],
    [
      'retainKeys map deletes a field and clears a field',
      retain({ name: 'foo', value: 'bar', other: 'a' }),
      retain({ $retainKeys: ['name'], value: null }),
      retain({ name: 'foo' }),
    ],
  );
  it.each(cases)('%s', (_name, current, patch, result) => {
    expect(applyStrategicMergePatch(current, patch, schema)).toEqual(result);
  });
});

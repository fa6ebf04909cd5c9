import { describe, expect, it } from '@jest/globals';
import {
  builtinPatchSchema,
  decodeFieldsV1,
  encodeFieldsV1,
  fieldSetOf,
  FieldSet,
  formatFieldPath,
  PatchError,
} from '../index.js';
import type { JsonObject } from '../../types.js';

describe('FieldSet and the FieldsV1 encoding', () => {
  it('round-trips a Kubernetes FieldsV1 value, with "." for an item owned as a whole and by field', () => {
    const fields = {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    };
    const set = decodeFieldsV1(fields);
    expect(set.has(['f:metadata', 'f:labels', 'f:app'])).toBe(true);
    expect(set.has(['f:spec', 'f:containers', 'k:{"name":"nginx"}'])).toBe(true);
    expect(set.has(['f:spec', 'f:containers'])).toBe(false);
    expect(JSON.stringify(encodeFieldsV1(set))).toBe(JSON.stringify(fields));
  });

  it('encodes in structured-merge-diff order: ".", fields, keys, values', () => {
    const set = FieldSet.of(
      ['f:z'],
      ['f:a', 'v:"b"'],
      ['f:a', 'k:{"name":"x"}'],
      ['f:a', 'f:b'],
      ['f:a'],
      ['f:m', 'f:n'],
    );
    expect(JSON.stringify(set.toFieldsV1())).toBe(
      '{"f:a":{".":{},"f:b":{},"k:{\\"name\\":\\"x\\"}":{},"v:\\"b\\"":{}},"f:m":{"f:n":{}},"f:z":{}}',
    );
  });

  it('sorts children inserted in any order: fields, keys, values, then indexes by number', () => {
    const elements = [
      'i:10',
      'v:"b"',
      'i:2',
      'k:{"name":"y"}',
      'f:z',
      'v:"a"',
      'k:{"name":"x"}',
      'f:a',
      'i:0',
    ];
    const sorted = ['f:a', 'f:z', 'k:{"name":"x"}', 'k:{"name":"y"}', 'v:"a"', 'v:"b"', 'i:0', 'i:2', 'i:10'];
    // every rotation of the insertion order gives the same encoding and the same path order
    for (let r = 0; r < elements.length; r++) {
      const order = [...elements.slice(r), ...elements.slice(0, r)];
      const set = FieldSet.of(...order.map((e) => ['f:list', e]));
      expect(Object.keys(set.toFieldsV1()['f:list'] as object)).toEqual(sorted);
      expect(set.paths().map((p) => p[1])).toEqual(sorted);
    }
  });

  it('equality is by paths: order, empty branches and removed paths do not count, membership does', () => {
    const a = FieldSet.of(
      ['f:spec', 'f:x'],
      ['f:spec', 'k:{"name":"a"}'],
      ['f:spec', 'k:{"name":"a"}', 'f:image'],
    );
    const b = FieldSet.of(
      ['f:spec', 'k:{"name":"a"}', 'f:image'],
      ['f:spec', 'k:{"name":"a"}'],
      ['f:spec', 'f:x'],
    );
    expect(a.equals(b)).toBe(true);
    // a branch left empty by removing its only path equals no branch at all, both ways
    const withEmpty = FieldSet.of(
      ['f:spec', 'f:x'],
      ['f:spec', 'k:{"name":"a"}'],
      ['f:spec', 'k:{"name":"a"}', 'f:image'],
      ['f:status', 'f:y'],
    );
    expect(withEmpty.equals(a)).toBe(false);
    withEmpty.remove(['f:status', 'f:y']);
    expect(withEmpty.equals(a)).toBe(true);
    expect(a.equals(withEmpty)).toBe(true);
    // the same nodes, one a member and one only a parent
    expect(FieldSet.of(['f:a'], ['f:a', 'f:b']).equals(FieldSet.of(['f:a', 'f:b']))).toBe(false);
    expect(FieldSet.of(['f:a', 'f:b']).equals(FieldSet.of(['f:a'], ['f:a', 'f:b']))).toBe(false);
    expect(FieldSet.of(['f:a', 'f:b']).equals(FieldSet.of(['f:a', 'f:c']))).toBe(false);
    expect(new FieldSet().equals(FieldSet.of(['f:a']).remove(['f:a']))).toBe(true);
    // remove takes out exactly one path, keeping the paths below it
    expect(FieldSet.of(['f:a'], ['f:a', 'f:b']).remove(['f:a']).paths()).toEqual([['f:a', 'f:b']]);
    expect(FieldSet.of(['f:a']).remove(['f:missing']).paths()).toEqual([['f:a']]);
  });

  it('set operations: union, difference, intersection, recursive difference, equality', () => {
    const a = FieldSet.of(['f:a'], ['f:a', 'f:b'], ['f:c']);
    const b = FieldSet.of(['f:a'], ['f:d']);
    expect(a.union(b).paths()).toEqual([['f:a'], ['f:a', 'f:b'], ['f:c'], ['f:d']]);
    expect(a.difference(b).paths()).toEqual([['f:a', 'f:b'], ['f:c']]);
    expect(a.recursiveDifference(b).paths()).toEqual([['f:c']]);
    expect(a.intersection(b).paths()).toEqual([['f:a']]);
    expect(a.equals(a.clone())).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(new FieldSet().isEmpty()).toBe(true);
    expect(a.hasDescendant(['f:a'])).toBe(true);
    expect(a.hasDescendant(['f:c'])).toBe(false);
  });

  it('intersects, equality and the one-walk encoding agree with their path-list definitions on random sets', () => {
    // a seeded generator, so a failure reproduces
    let seed = 17;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const elements = ['f:a', 'f:b', 'k:{"name":"x"}', 'v:"v"', 'i:0', 'i:10'];
    const randomSet = (): FieldSet => {
      const set = new FieldSet();
      for (let i = next(8); i > 0; i--)
        set.insert(Array.from({ length: 1 + next(4) }, () => elements[next(elements.length)]));
      return set;
    };
    // FieldsV1 from the path list: each path's node, "." where a member also has children
    const reference = (set: FieldSet): unknown => {
      const tree = new Map<string, { member: boolean; children: Map<string, unknown> }>();
      type Node = { member: boolean; children: Map<string, Node> };
      const root: Node = { member: false, children: tree as Map<string, Node> };
      for (const path of set.paths()) {
        let node = root;
        for (const e of path) {
          let child = node.children.get(e);
          if (child === undefined) node.children.set(e, (child = { member: false, children: new Map() }));
          node = child;
        }
        node.member = true;
      }
      const encode = (node: Node): Record<string, unknown> => {
        const out: Record<string, unknown> = node.member && node.children.size > 0 ? { '.': {} } : {};
        for (const [e, child] of node.children) out[e] = encode(child);
        return out;
      };
      return encode(root);
    };
    for (let i = 0; i < 300; i++) {
      const a = randomSet();
      const b = randomSet();
      expect(a.intersects(b)).toBe(!a.intersection(b).isEmpty());
      expect(JSON.stringify(a.toFieldsV1())).toBe(JSON.stringify(reference(a)));
      const d = a.difference(b);
      expect(JSON.stringify(d.toFieldsV1())).toBe(JSON.stringify(reference(d)));
      // equality by the path lists, including sets with branches a difference emptied
      const samePaths = (x: FieldSet, y: FieldSet): boolean =>
        JSON.stringify(x.paths()) === JSON.stringify(y.paths());
      expect(a.equals(b)).toBe(samePaths(a, b));
      expect(d.equals(a.difference(b))).toBe(true);
      const u = a.union(b);
      const removedB = u.clone();
      for (const path of b.paths()) removedB.remove(path);
      expect(removedB.equals(a.difference(b))).toBe(samePaths(removedB, a.difference(b)));
      expect(u.equals(b.union(a))).toBe(true);
    }
    expect(FieldSet.of(['f:a', 'f:b']).intersects(FieldSet.of(['f:a']))).toBe(false);
    expect(FieldSet.of(['f:a', 'f:b']).intersects(FieldSet.of(['f:a', 'f:b'], ['f:c']))).toBe(true);
  });

  it('the field set of a parsed object keeps an own "__proto__" key as a field, and no server metadata', () => {
    const parsed = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"u","__proto__":{"p":"q"}},"data":{"k":"v"},"__proto__":{"x":"y"}}',
    ) as JsonObject;
    expect(fieldSetOf(parsed, builtinPatchSchema('', 'v1', 'ConfigMap')).paths()).toEqual([
      ['f:__proto__', 'f:x'],
      ['f:data', 'f:k'],
      ['f:metadata', 'f:__proto__', 'f:p'],
    ]);
  });

  it('formats paths as Kubernetes messages do', () => {
    expect(formatFieldPath(['f:spec', 'f:replicas'])).toBe('.spec.replicas');
    expect(formatFieldPath(['f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image'])).toBe(
      '.spec.containers[name="nginx"].image',
    );
    expect(formatFieldPath(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'])).toBe(
      '.spec.ports[port=80,protocol="TCP"]',
    );
    expect(formatFieldPath(['f:metadata', 'f:finalizers', 'v:"a"'])).toBe('.metadata.finalizers[="a"]');
  });

  it('invalid FieldsV1 gives PatchError InvalidManagedFields (400)', () => {
    for (const bad of [[], 'x', { 'x:y': {} }, { 'f:a': 3 }, { '.': {} }]) {
      let caught: unknown;
      try {
        decodeFieldsV1(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PatchError);
      expect([(caught as PatchError).code, (caught as PatchError).status]).toEqual([
        'InvalidManagedFields',
        400,
      ]);
    }
  });

  it('the field set of an object: leaves, list-map items by key (with key defaults), set values, atomic lists', () => {
    const schema = builtinPatchSchema('apps', 'v1', 'Deployment');
    const set = fieldSetOf(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: 'n', uid: 'u', labels: { app: 'x' }, finalizers: ['f'] },
        spec: {
          selector: { matchLabels: { app: 'x' } },
          template: {
            spec: {
              containers: [{ name: 'c', image: 'i', args: ['a'], ports: [{ containerPort: 80 }] }],
              tolerations: [{ key: 'k' }],
            },
          },
        },
      },
      schema,
    );
    expect(set.toFieldsV1()).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"f"': {} }, 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:selector': {},
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"c"}': {
                '.': {},
                'f:args': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
            },
            'f:tolerations': {},
          },
        },
      },
    });
  });
});

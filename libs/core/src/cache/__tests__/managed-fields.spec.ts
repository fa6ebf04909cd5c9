import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { managedFieldsTransform } from '../../index.js';

const entry = (manager: string) => ({
  manager,
  operation: 'Apply',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:data': { 'f:a': {} } },
});

const object = (): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'a',
    namespace: 'ns',
    resourceVersion: '7',
    labels: { app: 'x' },
    managedFields: [entry('tosdk'), entry('kubectl'), entry('other')],
  },
  data: { a: '1' },
});

describe('managedFieldsTransform', () => {
  it('keepOwn keeps only the given managers, dropAll none, keepAll is no transform; the input is never changed', () => {
    const input = object();
    const snapshot = structuredClone(input);
    const own = managedFieldsTransform<V1ConfigMap>('keepOwn', ['tosdk'])!(input);
    expect(own.metadata?.managedFields?.map((e) => e.manager)).toEqual(['tosdk']);
    const none = managedFieldsTransform<V1ConfigMap>('dropAll')!(input);
    expect(none.metadata).not.toHaveProperty('managedFields');
    expect(Object.keys(none.metadata!)).toEqual(['name', 'namespace', 'resourceVersion', 'labels']);
    // everything else is the same object graph, values included
    for (const out of [own, none]) {
      expect(out.data).toBe(input.data);
      expect(out.metadata?.labels).toBe(input.metadata?.labels);
      expect({ ...out.metadata, managedFields: undefined }).toEqual({
        ...input.metadata,
        managedFields: undefined,
      });
    }
    expect(input).toEqual(snapshot);
    expect(managedFieldsTransform('keepAll')).toBeUndefined();
  });

  it('keepOwn with no own entry drops the list; an object without managedFields or already pruned is returned as is', () => {
    const input = object();
    const out = managedFieldsTransform<V1ConfigMap>('keepOwn', ['nobody'])!(input);
    expect(out.metadata).not.toHaveProperty('managedFields');
    const bare: V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } };
    expect(managedFieldsTransform<V1ConfigMap>('dropAll')!(bare)).toBe(bare);
    const onlyOwn: V1ConfigMap = { ...bare, metadata: { name: 'c', managedFields: [entry('tosdk')] } };
    expect(managedFieldsTransform<V1ConfigMap>('keepOwn', ['tosdk'])!(onlyOwn)).toBe(onlyOwn);
  });

  it('a Set of managers is read at each call (managers added later count); an array is copied', () => {
    const managers = new Set(['tosdk']);
    const live = managedFieldsTransform<V1ConfigMap>('keepOwn', managers)!;
    const list = ['tosdk'];
    const copied = managedFieldsTransform<V1ConfigMap>('keepOwn', list)!;
    managers.add('kubectl');
    list.push('kubectl');
    expect(live(object()).metadata?.managedFields?.map((e) => e.manager)).toEqual(['tosdk', 'kubectl']);
    expect(copied(object()).metadata?.managedFields?.map((e) => e.manager)).toEqual(['tosdk']);
  });
});

import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Secret, V1StatefulSet } from '@kubernetes/client-node';
import type { CustomResource } from '../../api/resource-type.js';

type Spec = CustomResource<{ replicas?: number; paused?: boolean }>;
import { pruneToFields } from '../internal/fields-v1.js';
import { matchesManagedFields, matchesWholeObject, sanitizeDesired } from '../matchers.js';

const applied = (fieldsV1: object, manager = 'me') => [
  { manager, operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 },
];

describe('fieldsV1 pruning', () => {
  it('keeps named fields, keyed and set list items, and whole leaves', () => {
    const obj = {
      spec: {
        ports: [
          { port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30000 },
          { port: 443, protocol: 'TCP', targetPort: 8443 },
        ],
        finalizers: ['a', 'b'],
        selector: { app: 'x', extra: 'y' },
        clusterIP: '10.0.0.1',
      },
    };
    const fields = {
      'f:spec': {
        'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} } },
        'f:finalizers': { 'v:"b"': {} },
        'f:selector': {},
      },
    };
    expect(pruneToFields(obj, fields)).toEqual({
      spec: {
        ports: [{ port: 80, targetPort: 8080 }],
        finalizers: ['b'],
        selector: { app: 'x', extra: 'y' },
      },
    });
  });
});

describe('managed-fields matcher', () => {
  const actual: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'n',
      labels: { mine: '1', theirs: '2' },
      managedFields: applied({ 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:mine': {} } } }),
    },
    data: { a: '1', b: 'theirs' },
  };

  it('[DR-10] compares only what our manager owns', () => {
    expect(
      matchesManagedFields(
        actual,
        { metadata: { name: 'c', labels: { mine: '1' } }, data: { a: '1' } },
        'me',
      ),
    ).toBe(true);
    expect(
      matchesManagedFields(
        actual,
        { metadata: { name: 'c', labels: { mine: '1' } }, data: { a: '2' } },
        'me',
      ),
    ).toBe(false);
    // a field the desired state adds or drops is a mismatch
    expect(
      matchesManagedFields(
        actual,
        { metadata: { name: 'c', labels: { mine: '1' } }, data: { a: '1', c: '3' } },
        'me',
      ),
    ).toBe(false);
    expect(matchesManagedFields(actual, { metadata: { name: 'c' }, data: { a: '1' } }, 'me')).toBe(false);
  });

  it('[DR-10] an object without an apply entry of the manager does not match (take-over by apply)', () => {
    expect(
      matchesManagedFields(
        actual,
        { metadata: { name: 'c', labels: { mine: '1' } }, data: { a: '1' } },
        'other',
      ),
    ).toBe(false);
  });

  it('[DR-17] StatefulSet claim templates filled in by the server still match', () => {
    const desired: V1StatefulSet = {
      metadata: { name: 's' },
      spec: {
        selector: {},
        serviceName: 's',
        template: {},
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }],
      },
    };
    const server: V1StatefulSet = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: {
        name: 's',
        managedFields: applied({
          'f:spec': {
            'f:selector': {},
            'f:serviceName': {},
            'f:template': {},
            'f:volumeClaimTemplates': {},
          },
        }),
      },
      spec: {
        selector: {},
        serviceName: 's',
        template: {},
        volumeClaimTemplates: [
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'] },
            status: { phase: 'Pending' },
          },
        ],
      },
    };
    expect(matchesManagedFields(server, desired, 'me')).toBe(true);
  });
});

describe('managed-fields matcher: empty maps (review finding F2)', () => {
  // a custom resource: its empty maps are kept by the server (a built-in kind's are dropped by Go's
  // omitempty, so there an empty map the object lacks matches: review finding F4)
  const cm = (data: Record<string, unknown>, fieldsV1: object): V1ConfigMap => ({
    apiVersion: 'test.tosdk.io/v1',
    kind: 'Widget',
    metadata: { name: 'c', namespace: 'n', managedFields: applied(fieldsV1) },
    ...data,
  });

  it('[DR-10] an empty map is a value: an intent adding one, or dropping one we applied, does not match', () => {
    // we applied {spec: {value}}; the intent adds config: {}
    const without = cm({ spec: { value: 'x' } }, { 'f:spec': { 'f:value': {} } });
    expect(
      matchesManagedFields(
        without,
        { metadata: { name: 'c' }, spec: { value: 'x', config: {} } } as never,
        'me',
      ),
    ).toBe(false);
    expect(
      matchesManagedFields(without, { metadata: { name: 'c' }, spec: { value: 'x' } } as never, 'me'),
    ).toBe(true);
    // we applied {spec: {value, config: {}}} (fieldsV1 leaf f:config); the intent drops config
    const withEmpty = cm(
      { spec: { value: 'x', config: {} } },
      { 'f:spec': { 'f:value': {}, 'f:config': {} } },
    );
    expect(
      matchesManagedFields(withEmpty, { metadata: { name: 'c' }, spec: { value: 'x' } } as never, 'me'),
    ).toBe(false);
    expect(
      matchesManagedFields(
        withEmpty,
        { metadata: { name: 'c' }, spec: { value: 'x', config: {} } } as never,
        'me',
      ),
    ).toBe(true);
  });

  it('[DR-10] a map emptied by others removing what we owned is left out, not compared as {}', () => {
    // we own labels.mine (and the labels map itself); someone removed the label
    const emptied = cm(
      { metadata: { name: 'c', namespace: 'n', labels: {} } },
      { 'f:metadata': { 'f:labels': { '.': {}, 'f:mine': {} } }, 'f:data': { 'f:a': {} } },
    );
    emptied.metadata!.managedFields = applied({
      'f:metadata': { 'f:labels': { '.': {}, 'f:mine': {} } },
      'f:data': { 'f:a': {} },
    });
    emptied.data = { a: '1' };
    expect(pruneToFields(emptied, { 'f:metadata': { 'f:labels': { '.': {}, 'f:mine': {} } } })).toEqual({});
    // the intent still wants the label: a mismatch (it is sent again)
    expect(
      matchesManagedFields(
        emptied,
        { metadata: { name: 'c', labels: { mine: '1' } }, data: { a: '1' } },
        'me',
      ),
    ).toBe(false);
    // an intent naming only the identity in metadata compares nothing there
    expect(
      matchesManagedFields(
        cm({ data: { a: '1' } }, { 'f:data': { 'f:a': {} } }),
        { metadata: { name: 'c', namespace: 'n' }, data: { a: '1' } },
        'me',
      ),
    ).toBe(true);
  });
});

describe('whole-object matcher and sanitizing', () => {
  it('[DR-16] server defaults and labels of others are fine; changed values and desired labels are not (unless labels are ignored)', () => {
    const actual: Spec = {
      metadata: { name: 'x', labels: { a: '1', theirs: 't' } },
      spec: { replicas: 1, paused: false },
    };
    expect(matchesWholeObject(actual, { metadata: { name: 'x' }, spec: { replicas: 1 } })).toBe(true);
    expect(matchesWholeObject(actual, { metadata: { name: 'x' }, spec: { replicas: 2 } })).toBe(false);
    expect(
      matchesWholeObject(actual, { metadata: { name: 'x', labels: { a: '1' } }, spec: { replicas: 1 } }),
    ).toBe(true);
    expect(
      matchesWholeObject(actual, { metadata: { name: 'x', labels: { a: '2' } }, spec: { replicas: 1 } }),
    ).toBe(false);
    expect(
      matchesWholeObject(actual, { metadata: { name: 'x', annotations: { n: '1' } }, spec: { replicas: 1 } }),
    ).toBe(false);
    expect(
      matchesWholeObject(
        actual,
        { metadata: { name: 'x', labels: { a: '2' } }, spec: { replicas: 1 } },
        { labelsAndAnnotations: false },
      ),
    ).toBe(true);
  });

  it('a Secret stringData becomes base64 data', () => {
    const s: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { k: 'v' },
      data: { o: 'eA==' },
    };
    expect(sanitizeDesired(s)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { o: 'eA==', k: 'dg==' },
    });
  });
});

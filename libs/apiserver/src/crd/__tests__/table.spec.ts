import { describe, expect, it } from '@jest/globals';
import { buildTable, builtinColumns, compileCrd, humanDuration, JsonPath } from '../index.js';
import type { PrinterColumn } from '../index.js';
import type { JsonObject } from '../../types.js';
import { webPageCrd } from './fixtures.js';

const NOW = new Date('2026-01-10T12:00:00Z');
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function page(name: string, created: string, spec: JsonObject, status?: JsonObject): JsonObject {
  return {
    apiVersion: 'sample.tosdk.io/v1',
    kind: 'WebPage',
    metadata: { name, namespace: 'default', creationTimestamp: created, uid: `uid-${name}` },
    spec,
    ...(status ? { status } : {}),
  };
}

describe('humanDuration', () => {
  it.each([
    [0, '0s'],
    [-1500, '0s'],
    [-3000, '<invalid>'],
    [5_000, '5s'],
    [119_000, '119s'],
    [120_000, '2m'],
    [200_000, '3m20s'],
    [15 * 60_000, '15m'],
    [179 * 60_000, '179m'],
    [3 * 3600_000, '3h'],
    [(4 * 60 + 5) * 60_000, '4h5m'],
    [20 * 3600_000, '20h'],
    [50 * 3600_000, '2d2h'],
    [3 * 86400_000, '3d'],
    [30 * 86400_000, '30d'],
    [(3 * 365 + 10) * 86400_000, '3y10d'],
    [9 * 365 * 86400_000, '9y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('JsonPath', () => {
  const obj = {
    metadata: { labels: { 'app.kubernetes.io/name': 'web' } },
    spec: {
      replicas: 3,
      'a.b': 'dotted',
      items: [
        { name: 'x', n: 1 },
        { name: 'y', n: 5 },
      ],
    },
    status: {
      conditions: [
        { type: 'Progressing', status: 'True' },
        { type: 'Ready', status: 'False' },
      ],
    },
  };

  it.each([
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    [".status.conditions[?(@.type=='Progressing')].status", ['True']],
    ['.status.conditions[?(@.type!="Ready")].type', ['Progressing']],
    ['.spec.items[1].name', ['y']],
    ['.spec.items[-1].name', ['y']],
    ['.spec.items[*].name', ['x', 'y']],
    ['.spec.items[?(@.n > 2)].name', ['y']],
    ["['spec']['a.b']", ['dotted']],
    ['..name', ['x', 'y']],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['web']],
    ['.spec.missing', []],
    ['.spec.items[7]', []],
  ])('%s selects %j', (path, expected) => {
    expect(JsonPath.parse(path).evaluate(obj)).toEqual(expected);
  });

  it('a malformed path throws CrdError JSONPATH_INVALID', () => {
    expect(() => JsonPath.parse('.spec.items[abc]')).toThrow(
      expect.objectContaining({ code: 'JSONPATH_INVALID' }),
    );
    expect(() => JsonPath.parse('.status.conditions[?(@.type=="Ready"]')).toThrow(/invalid JSONPath/);
  });
});

describe('buildTable', () => {
  const columns = (): PrinterColumn[] => compileCrd(webPageCrd()).versions[0]?.printerColumns ?? [];

  it('a CRD table has Name then the printer columns, typed cells, ages and null for missing values', () => {
    const objects = [
      page('home', ago(5_000), { replicas: 2 }, { conditions: [{ type: 'Ready', status: 'True' }] }),
      page('about', ago(3 * 86400_000), {}),
    ];
    const table = buildTable(objects, columns(), { includeObject: 'None', now: NOW, resourceVersion: '42' });
    expect(table.kind).toBe('Table');
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.metadata).toEqual({ resourceVersion: '42' });
    expect(
      (table.columnDefinitions as JsonObject[]).map((c) => [c.name, c.type, c.format, c.priority]),
    ).toEqual([
      ['Name', 'string', 'name', 0],
      ['Replicas', 'integer', '', 0],
      ['Ready', 'string', '', 0],
      ['Age', 'date', '', 0],
    ]);
    expect(table.rows).toEqual([
      { cells: ['home', 2, 'True', '5s'] },
      { cells: ['about', null, null, '3d'] },
    ]);
  });

  it('includeObject Metadata gives PartialObjectMetadata rows; Object gives the whole object', () => {
    const obj = page('home', ago(60_000), { replicas: 1 });
    const meta = buildTable([obj], columns(), { includeObject: 'Metadata', now: NOW });
    expect((meta.rows as JsonObject[])[0]?.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: obj.metadata,
    });
    const full = buildTable([obj], columns(), { includeObject: 'Object', now: NOW });
    expect((full.rows as JsonObject[])[0]?.object).toBe(obj);
  });

  it('without printer columns it is the default table: Name and Created At (RFC 3339)', () => {
    const table = buildTable([page('a', '2026-01-01T00:00:00Z', {})], undefined, {
      includeObject: 'None',
      now: NOW,
    });
    expect((table.columnDefinitions as JsonObject[]).map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(table.rows).toEqual([{ cells: ['a', '2026-01-01T00:00:00Z'] }]);
  });

  it('string columns render numbers, booleans and objects as text; integer columns truncate; wrong types give null', () => {
    const cols: PrinterColumn[] = [
      { name: 'S', type: 'string', jsonPath: '.spec.n', priority: 0 },
      { name: 'O', type: 'string', jsonPath: '.spec.o', priority: 0 },
      { name: 'I', type: 'integer', jsonPath: '.spec.f', priority: 1 },
      { name: 'B', type: 'boolean', jsonPath: '.spec.n', priority: 0 },
      { name: 'Bad', type: 'string', jsonPath: '.spec[', priority: 0 },
    ];
    const table = buildTable([page('x', ago(0), { n: 7, o: { a: 1 }, f: 2.9 })], cols, {
      includeObject: 'None',
      now: NOW,
    });
    expect((table.rows as JsonObject[])[0]?.cells).toEqual(['x', '7', '{"a":1}', 2, null, null]);
  });
});

describe('builtinColumns', () => {
  const table = (obj: JsonObject, group: string, version: string, kind: string): unknown[] =>
    ((
      buildTable([obj], builtinColumns(group, version, kind), { includeObject: 'None', now: NOW })
        .rows as JsonObject[]
    )[0]?.cells ?? []) as unknown[];

  it('Pods show READY, STATUS, RESTARTS, AGE (and IP, NODE, NOMINATED NODE, READINESS GATES for -o wide)', () => {
    const pod = {
      metadata: { name: 'p', creationTimestamp: ago(120_000) },
      spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n1' },
      status: {
        phase: 'Running',
        podIP: '10.0.0.5',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: { running: {} } },
          { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    expect(table(pod, '', 'v1', 'Pod')).toEqual([
      'p',
      '1/2',
      'CrashLoopBackOff',
      '3',
      '2m',
      '10.0.0.5',
      'n1',
      '<none>',
      '<none>',
    ]);
    // readiness gates: the gates whose condition is True, of all gates (kubectl's printPod)
    const gated = {
      ...pod,
      spec: {
        ...pod.spec,
        readinessGates: [{ conditionType: 'example.com/a' }, { conditionType: 'example.com/b' }],
      },
      status: { ...pod.status, conditions: [{ type: 'example.com/a', status: 'True' }] },
    };
    expect(table(gated, '', 'v1', 'Pod').at(-1)).toBe('1/2');
    const deleting = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: ago(0) } };
    expect(table(deleting, '', 'v1', 'Pod')[2]).toBe('Terminating');
  });

  it('Deployments show READY, UP-TO-DATE, AVAILABLE; ConfigMaps DATA; Services TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S); Namespaces STATUS', () => {
    const dep = {
      metadata: { name: 'd', creationTimestamp: ago(60_000) },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'x' } },
        template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(table(dep, 'apps', 'v1', 'Deployment')).toEqual([
      'd',
      '2/3',
      3,
      2,
      '60s',
      'web',
      'nginx',
      'app=x',
    ]);
    expect(
      table(
        {
          metadata: { name: 'c', creationTimestamp: ago(1000) },
          data: { a: '1', b: '2' },
          binaryData: { c: '' },
        },
        '',
        'v1',
        'ConfigMap',
      ),
    ).toEqual(['c', 3, '1s']);
    const svc = {
      metadata: { name: 's', creationTimestamp: ago(1000) },
      spec: {
        type: 'NodePort',
        clusterIP: '10.96.0.10',
        ports: [
          { port: 80, nodePort: 30080 },
          { port: 53, protocol: 'UDP' },
        ],
        selector: { app: 'x' },
      },
    };
    expect(table(svc, '', 'v1', 'Service')).toEqual([
      's',
      'NodePort',
      '10.96.0.10',
      '<none>',
      '80:30080/TCP,53/UDP',
      '1s',
      'app=x',
    ]);
    expect(
      table(
        { metadata: { name: 'ns', creationTimestamp: ago(1000) }, status: { phase: 'Terminating' } },
        '',
        'v1',
        'Namespace',
      ),
    ).toEqual(['ns', 'Terminating', '1s']);
  });

  it('unknown kinds get no columns (the default table)', () => {
    expect(builtinColumns('batch', 'v1', 'Job')).toEqual([]);
  });
});

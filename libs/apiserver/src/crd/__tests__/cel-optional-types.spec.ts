import { describe, expect, it } from '@jest/globals';
import { isCelError, plan } from '@bufbuild/cel';
import { compileCrd } from '../index.js';
import type { JsonSchemaProps } from '../index.js';
import { kubernetesCelEnv } from '../internal/cel/environment.js';
import { parseWithLimits } from '../internal/cel/parse-limits.js';
import { toCel } from '../internal/cel/values.js';
import type { StatusCause } from '../../types.js';
import { KubeApiServer } from '../../server.js';
import { call } from '../../__tests__/http-helper.js';

/** Evaluates an expression (through the rules' parser) in the rules' environment. */
const run = (rule: string, self: unknown): unknown => {
  const r = plan(kubernetesCelEnv(), parseWithLimits(rule))({ self: toCel(self, undefined) });
  if (isCelError(r)) throw r;
  return typeof r === 'bigint' ? Number(r) : r;
};

const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

/** The CRD whose spec has `props` and the rule on spec; the causes it is rejected with ([] when accepted). */
function rejected(
  rule: string,
  props: Record<string, JsonSchemaProps>,
  extra: Record<string, unknown> = {},
): string[] {
  try {
    compileCrd({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: props,
                    'x-kubernetes-validations': [{ rule, ...extra }],
                  },
                },
              },
            },
          },
        ],
      },
    });
    return [];
  } catch (err) {
    const causes = (err as { causes?: StatusCause[] }).causes;
    if (!causes) throw err;
    return lines(causes);
  }
}

describe('CEL optional syntax (a.?b, a[?k]) as cel-go parses it', () => {
  const self = { a: { b: 1 }, list: [10, 20], m: { k: 'v' }, n: null };
  it.each([
    ['self.?a.?b.orValue(0) == 1', true],
    ['self.?a.?c.orValue(7) == 7', true],
    ['self.?x.?y.orValue(3) == 3', true],
    ['self.?a.hasValue() && !self.?x.hasValue()', true],
    ['self.?a.b.value() == 1', true],
    ['self.list[?1].orValue(0) == 20 && self.list[?5].orValue(0) == 0', true],
    ["self.m[?'k'].value() == 'v' && !self.m[?'z'].hasValue()", true],
    ["self.?m[?'k'].orValue('none') == 'v'", true],
    ['optional.of(1).orValue(2) == 1 && optional.none().orValue(2) == 2', true],
    // cel-go's optional library: or, optMap, optFlatMap, has() through an optional
    [
      'optional.none().or(optional.of(3)).value() == 3 && optional.of(1).or(optional.of(2)).value() == 1',
      true,
    ],
    ['self.?a.optMap(x, x.b + 1).value() == 2 && !self.?z.optMap(x, x.b).hasValue()', true],
    ['self.?a.optFlatMap(x, x.?b).value() == 1 && !self.?a.optFlatMap(x, x.?c).hasValue()', true],
    ['has(self.?a.b) && !has(self.?a.c) && !has(self.?z.b)', true],
    // optional list elements and map entries are left out when none
    ['[?self.?a.?b, ?self.?z, 3] == [1, 3] && [true ? 1 : 2, 3] == [1, 3]', true],
    ["{?'x': self.?a.?b, ?'y': self.?z, 'k': 1} == {'x': 1, 'k': 1}", true],
    // a present map lacking the next field gives none; a null value is present
    ['!self.?a.c.hasValue() && self.?n.hasValue()', true],
    // text inside string literals is never rewritten
    ["'x.?y' + \"[?0]\" == 'x.?y[?0]'", true],
  ])('%s is %j', (rule, expected) => {
    expect(run(rule, self)).toEqual(expected);
  });

  it('selecting a field of a present optional that holds no map is an error, as in cel-go', () => {
    expect(() => run('self.?list[?0].x.hasValue()', self)).toThrow('no such key: x');
  });

  it('a rule with optional selection is accepted on a CRD and guards an absent field', () => {
    expect(rejected('self.?replicas.orValue(1) > 0', { replicas: { type: 'integer' } })).toEqual([]);
    expect(rejected("self.?name.orValue('') != 'bad'", { name: { type: 'string' } })).toEqual([]);
  });
});

describe('CEL rules are type-checked against the schema when a CRD is written, as kube-apiserver does', () => {
  const props: Record<string, JsonSchemaProps> = {
    name: { type: 'string', maxLength: 64 },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 64 } },
    labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 64 } },
    items: {
      type: 'array',
      maxItems: 10,
      items: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
    },
    when: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    timeout: { type: 'string', format: 'duration' },
    ios: { 'x-kubernetes-int-or-string': true },
    free: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { known: { type: 'string' } },
    },
  };
  const FIELD = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';
  /** The rule as kube-apiserver prints the invalid value: Go's %#v of apiextensions.ValidationRule. */
  const goRule = (rule: string, message = '', messageExpression = ''): string =>
    `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:${JSON.stringify(message)}, MessageExpression:${JSON.stringify(messageExpression)}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

  it.each([
    ['self.name == 1', "found no matching overload for '_==_' applied to '(string, int)'", 1, 11],
    ['self.count == true', "found no matching overload for '_==_' applied to '(int, bool)'", 1, 12],
    ['self.ratio == 1', "found no matching overload for '_==_' applied to '(double, int)'", 1, 12],
    ["self.count + 'a' > 0", "found no matching overload for '_+_' applied to '(int, string)'", 1, 12],
    ['self.name > 5', "found no matching overload for '_>_' applied to '(string, int)'", 1, 11],
    ['self.nope > 0', "undefined field 'nope'", 1, 5],
    // fields kept by x-kubernetes-preserve-unknown-fields are not exposed to CEL (SchemaDeclType)
    ['self.free.anything == 1', "undefined field 'anything'", 1, 10],
    ["self.name.first == 'x'", "type 'string' does not support field selection", 1, 10],
    [
      "self.count.startsWith('a')",
      "found no matching overload for 'startsWith' applied to 'int.(string)'",
      1,
      22,
    ],
    ['self.tags.all(t, t > 1)', "found no matching overload for '_>_' applied to '(string, int)'", 1, 20],
    ["self.labels['a'] == 2", "found no matching overload for '_==_' applied to '(string, int)'", 1, 18],
    ['self.items.exists(i, i.size == 1)', "undefined field 'size'", 1, 23],
    [
      'self.count.all(x, x > 0)',
      "expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
      1,
      5,
    ],
    ['self.?nope.orValue(1) > 0', "undefined field 'nope'", 1, 5],
    [
      "self.when > 'yesterday'",
      "found no matching overload for '_>_' applied to '(google.protobuf.Timestamp, string)'",
      1,
      11,
    ],
    [
      'self.count > 0 &&\n  self.name == 3',
      "found no matching overload for '_==_' applied to '(string, int)'",
      2,
      13,
    ],
  ])('%s is refused: %s', (rule, detail, line, column) => {
    const message = rule.includes('\n') ? 'multi-line rule' : '';
    const causes = rejected(rule, props, message ? { message } : {});
    expect(causes).toHaveLength(1);
    const src = rule.split('\n')[line - 1];
    expect(causes[0]).toBe(
      `${FIELD}.rule: Invalid value: ${goRule(rule, message)}: compilation failed: ERROR: <input>:${line}:${column}: ${detail}\n | ${src}\n | ${'.'.repeat(column - 1)}^`,
    );
  });

  it('a rule that is not a bool, and a messageExpression that is not a string, are refused', () => {
    expect(rejected('self.count', props)).toEqual([
      `${FIELD}.rule: Invalid value: ${goRule('self.count')}: cel expression must evaluate to a bool`,
    ]);
    expect(rejected('self.count > 0', props, { messageExpression: 'self.count' })).toEqual([
      `${FIELD}.messageExpression: Invalid value: ${goRule('self.count > 0', '', 'self.count')}: messageExpression must evaluate to a string`,
    ]);
    expect(rejected('self.count > 0', props, { messageExpression: 'self.nope' })[0]).toContain(
      `: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'`,
    );
  });

  it.each([
    "self.count > 0 && self.name != ''",
    'self.ratio > 0 && self.ratio == 1.0 && self.count < self.ratio',
    'self.tags.all(t, t.size() < 10) && self.tags.exists(t, t == "a") && self.tags.exists_one(t, t == "b")',
    "self.labels.all(k, self.labels[k] != '') && 'a' in self.labels && size(self.labels) < 5",
    "'a' in self.tags && self.tags.map(t, t.size()).sum() >= 0 && self.tags.filter(t, t != '').size() >= 0",
    "self.items.exists(i, i.id == 'x') || self.items.size() == 0",
    "self.when < timestamp('2030-01-01T00:00:00Z') && self.when.getFullYear() > 2000",
    "self.day < timestamp('2030-01-01T00:00:00Z') && self.day.getFullYear() > 2000",
    "duration('1h') > self.timeout && self.timeout + duration('1s') > duration('0s')",
    "self.ios == 1 || self.ios == 'a' || (type(self.ios) == string && self.ios.endsWith('%'))",
    'has(self.name) ? self.name.size() > 0 : true',
    'self.free.known == "k"',
    "isURL(self.name) || self.name.matches('^a') || self.name.lowerAscii() == self.name",
    "[1, 2].all(x, x > 0) && {'a': 1}['a'] == 1 && self.?name.orValue('') == ''",
    "quantity(self.name).isLessThan(quantity('1')) || self.name.split('-').size() > 1",
    'self.count >= 0 ? self.name != "" : self.tags.size() > 0',
    "self.all(k, k != '') && self.items.all(i, i.all(f, f.size() > 0))",
    "self.metadata.name != '' || self.kind == 'Thing'",
  ])('%s is accepted', (rule) => {
    expect(
      rejected(
        rule.replace('self.metadata.name', 'self.name').replace("self.kind == 'Thing'", 'true'),
        props,
      ),
    ).toEqual([]);
  });

  it('transition rules type oldSelf like self (an optional with optionalOldSelf)', () => {
    expect(rejected('self.count >= oldSelf.count', props)).toEqual([]);
    expect(rejected('self.name == oldSelf.count', props)[0]).toContain("applied to '(string, int)'");
    expect(
      rejected('!oldSelf.hasValue() || self.count >= oldSelf.value().count', props, {
        optionalOldSelf: true,
      }),
    ).toEqual([]);
  });

  it('a date string is a timestamp when the rule runs, as the type check says', () => {
    const v = compileCrd({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'days.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'days', singular: 'day', kind: 'Day', listKind: 'DayList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { day: { type: 'string', format: 'date' } },
                    'x-kubernetes-validations': [
                      { rule: "self.day < timestamp('2030-01-01T00:00:00Z')", message: 'too late' },
                    ],
                  },
                },
              },
            },
          },
        ],
      },
    }).versions[0];
    const obj = (day: string) => ({
      apiVersion: 'example.com/v1',
      kind: 'Day',
      metadata: { name: 'd', namespace: 'default' },
      spec: { day },
    });
    expect(v.admit(obj('2029-12-31'), 'create')).toEqual([]);
    expect(lines(v.admit(obj('2030-01-02'), 'create'))).toEqual(['spec: Invalid value: "object": too late']);
  });
});

describe('the type check on the API server', () => {
  it('a CRD update that adds a rule comparing a string with an int gets a 422 with the type error; the stored CRD is unchanged', async () => {
    const server = await KubeApiServer.start({ tls: false });
    try {
      const crd = (rule: string): Record<string, unknown> => ({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'knobs.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'knobs', singular: 'knob', kind: 'Knob' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: {
                      type: 'object',
                      properties: { name: { type: 'string' } },
                      'x-kubernetes-validations': [{ rule }],
                    },
                  },
                },
              },
            },
          ],
        },
      });
      const PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      expect((await call(server, 'POST', PATH, crd("self.name != ''"))).status).toBe(201);
      const stored = (await call(server, 'GET', `${PATH}/knobs.example.com`)).json<{
        metadata: { resourceVersion: string };
      }>();
      const bad = crd('self.name == 1');
      (bad.metadata as Record<string, unknown>).resourceVersion = stored.metadata.resourceVersion;
      const r = await call(server, 'PUT', `${PATH}/knobs.example.com`, bad);
      expect(r.status).toBe(422);
      const status = r.json<{ reason: string; details: { causes: StatusCause[] } }>();
      expect(status.reason).toBe('Invalid');
      expect(status.details.causes[0].message).toContain(
        "compilation failed: ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(string, int)'",
      );
      const after = (await call(server, 'GET', `${PATH}/knobs.example.com`)).json<{
        metadata: { resourceVersion: string };
      }>();
      expect(after.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    } finally {
      await server.stop();
    }
  });
});

describe('rules of the kind real CRDs carry (route matches nested in bounded lists) stay within the cost limits', () => {
  it('an enum string tested with `in`, prefix checks and a namespaced format function are accepted at 16 x 64 cardinality', () => {
    const match: JsonSchemaProps = {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['Exact', 'Prefix', 'Regex'] },
        value: { type: 'string', maxLength: 1024 },
        host: { type: 'string', maxLength: 63 },
      },
      'x-kubernetes-validations': [
        { rule: "(self.kind in ['Exact', 'Prefix']) ? self.value.startsWith('/') : true" },
        { rule: "(self.kind in ['Exact', 'Prefix']) ? !self.value.contains('//') : true" },
        { rule: "(self.kind in ['Exact', 'Prefix']) ? !self.value.endsWith('/..') : true" },
        { rule: "self.kind in ['Exact', 'Prefix'] || self.kind == 'Regex'" },
        { rule: 'size(self.host) == 0 || format.dns1123Label().validate(self.host) == null' },
      ],
    };
    const causes = rejected('true', {
      routes: {
        type: 'array',
        maxItems: 16,
        items: {
          type: 'object',
          properties: { matches: { type: 'array', maxItems: 64, items: match } },
        },
      },
    });
    expect(causes).toEqual([]);
  });

  it("rules scanning an unbounded list of conditions (required fields make each item big) are accepted at the root, as Kueue's Workload has them", () => {
    const condition: JsonSchemaProps = {
      type: 'object',
      required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
      properties: {
        lastTransitionTime: { type: 'string', format: 'date-time' },
        message: { type: 'string', maxLength: 32768 },
        reason: { type: 'string', maxLength: 1024 },
        status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
        type: { type: 'string', maxLength: 316 },
      },
    };
    const held = (v: string): string =>
      `(has(${v}.status) && has(${v}.status.conditions) && ${v}.status.conditions.exists(c, c.type == 'Held' && c.status == 'True'))`;
    const rule = `(${held('oldSelf')} && ${held('self')}) ? oldSelf.spec.queue == self.spec.queue : true`;
    let causes: string[];
    try {
      compileCrd({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'jobs.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'jobs', singular: 'job', kind: 'Job', listKind: 'JobList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  'x-kubernetes-validations': [1, 2, 3, 4, 5].map(() => ({ rule })),
                  properties: {
                    spec: { type: 'object', properties: { queue: { type: 'string', maxLength: 63 } } },
                    status: {
                      type: 'object',
                      properties: {
                        conditions: {
                          type: 'array',
                          'x-kubernetes-list-type': 'map',
                          'x-kubernetes-list-map-keys': ['type'],
                          items: condition,
                        },
                      },
                    },
                  },
                },
              },
            },
          ],
        },
      });
      causes = [];
    } catch (err) {
      causes = lines((err as { causes: StatusCause[] }).causes);
    }
    expect(causes).toEqual([]);
  });

  it("a rule over the keys of an unbounded map of int-or-string values is accepted (the size of a map entry is kube-apiserver's)", () => {
    expect(
      rejected('true', {
        capacity: {
          type: 'object',
          additionalProperties: {
            'x-kubernetes-int-or-string': true,
            anyOf: [{ type: 'integer' }, { type: 'string' }],
            pattern: '^[0-9]+[KMG]?i?$',
          },
          'x-kubernetes-validations': [
            { rule: "self.all(x, !(x in ['cpu', 'memory', 'ephemeral-storage', 'pods']))" },
          ],
        },
      }),
    ).toEqual([]);
  });
});

import { describe, expect, it } from '@jest/globals';
import { compileCrd } from '../index.js';
import type { CompiledVersion, JsonSchemaProps } from '../index.js';
import { isCelError, parse, plan } from '@bufbuild/cel';
import { kubernetesCelEnv } from '../internal/cel/environment.js';
import { toCel } from '../internal/cel/values.js';
import type { JsonObject, StatusCause } from '../../types.js';
import { v0, webPageCrd } from './fixtures.js';

/** Evaluates an expression in the rules' environment; a CEL error is thrown. */
const run = (rule: string, self: unknown): unknown => {
  const r = plan(kubernetesCelEnv(), parse(rule))({ self: toCel(self, undefined) });
  if (isCelError(r)) throw r;
  return typeof r === 'bigint' ? Number(r) : r;
};

describe('CEL (@bufbuild/cel with the Kubernetes libraries)', () => {
  const self = {
    min: 1,
    max: 5,
    name: 'web-1',
    tags: ['a', 'b'],
    ports: [{ port: 80 }, { port: 443 }],
    labels: { app: 'x' },
  };

  it.each([
    ['self.min <= self.max', true],
    ['self.max - self.min * 2 == 3', true],
    ['self.max / 2 == 2 && self.max % 2 == 1', true],
    ["self.name.startsWith('web') && self.name.endsWith('-1') && self.name.contains('b-')", true],
    ["self.name.matches('^[a-z]+-[0-9]+$')", true],
    ['size(self.tags) == 2 && self.tags.size() == 2 && self.name.size() == 5', true],
    ["'a' in self.tags && 'app' in self.labels && !('z' in self.tags)", true],
    ['self.ports.all(p, p.port > 0) && self.ports.exists(p, p.port == 443)', true],
    ['self.ports.exists_one(p, p.port < 100)', true],
    ['self.ports.map(p, p.port) == [80, 443]', true],
    ['self.ports.filter(p, p.port > 100).size() == 1', true],
    ['self.labels.all(k, self.labels[k].size() > 1)', false],
    ['has(self.min) && !has(self.missing)', true],
    ['self.min > 3 ? "big" : "small"', 'small'],
    ["self.tags.join(',') == 'a,b' && [1, 2, 3].sum() == 6 && [3, 1].min() == 1", true],
    ["int('42') + 1 == 43 && string(7) == '7' && double(1) == 1.0", true],
    ['!has(self.missing) || self.missing > 0', true],
    ['self.missing > 0 || true', true],
    ['{"a": 1}.a == 1 && -self.min == -1', true],
    ["self.name.split('-') == ['web', '1'] && 'a/b/c'.split('/', 2) == ['a', 'b/c']", true],
    [
      "self.name.replace('-', '_') == 'web_1' && self.name.substring(1, 3) == 'eb' && self.name.indexOf('b') == 2",
      true,
    ],
    ["self.name.charAt(0) == 'w' && 'abcabc'.lastIndexOf('b') == 4", true],
    ["duration('1m30s') > duration('90s') || duration('1m30s') == duration('90s')", true],
    ["duration('1h') > duration('59m') && duration('0s') == duration('0')", true],
    ['self.name.matches(r"^(?i)WEB-[0-9]+$")', true],
    ["'ab'.matches(r'^(?i)AB\\z')", true],
  ])('%s is %j', (rule, expected) => {
    expect(run(rule, self)).toEqual(expected);
  });

  it('a missing field, a type mismatch and division by zero are evaluation errors', () => {
    expect(() => run('self.missing > 0', self)).toThrow(/missing/);
    expect(() => run('self.name > 1', self)).toThrow(/no matching overload/);
    expect(() => run('self.min / 0 == 1', self)).toThrow(/divide by zero/);
  });

  it('malformed rules are syntax errors', () => {
    expect(() => parse('self.min <=')).toThrow();
    expect(() => parse("self.a == 'x")).toThrow();
  });
});

function version(schema: JsonSchemaProps): CompiledVersion {
  const crd = webPageCrd((c) => {
    v0(c).schema = { openAPIV3Schema: schema };
    v0(c).selectableFields = [];
  });
  const v = compileCrd(crd).versions[0];
  if (!v) throw new Error('no version');
  return v;
}

const cr = (spec: JsonObject): JsonObject => ({
  apiVersion: 'sample.tosdk.io/v1',
  kind: 'WebPage',
  metadata: { name: 'x', namespace: 'default' },
  spec,
});
const lines = (causes: StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

describe('x-kubernetes-validations in admit', () => {
  const schema: JsonSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          {
            rule: 'self.minReplicas <= self.maxReplicas',
            message: 'minReplicas must not exceed maxReplicas',
          },
          {
            rule: '!has(self.mode) || self.mode != "legacy"',
            fieldPath: '.mode',
            reason: 'FieldValueForbidden',
            message: 'legacy mode is gone',
          },
          { rule: 'self.size() < 10' },
        ],
        properties: {
          minReplicas: { type: 'integer', default: 1 },
          maxReplicas: { type: 'integer', default: 3 },
          mode: { type: 'string' },
          owner: {
            type: 'string',
            'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'owner is immutable' }],
          },
          name: {
            type: 'string',
            'x-kubernetes-validations': [
              {
                rule: 'self.lowerAscii() == self',
                messageExpression: "'name ' + self + ' must be lower case'",
              },
            ],
          },
          items: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['id'],
            items: {
              type: 'object',
              required: ['id'],
              properties: {
                id: { type: 'string' },
                size: {
                  type: 'integer',
                  'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'size may only grow' }],
                },
              },
            },
          },
          fancy: {
            type: 'string',
            'x-kubernetes-validations': [{ rule: 'isURL(self)' }],
          },
        },
      },
    },
  };

  it('passing rules give no causes (defaults applied first)', () => {
    expect(version(schema).admit(cr({ maxReplicas: 2 }), 'create')).toEqual([]);
  });

  it('a failed rule gives Invalid with its message at the node; fieldPath and reason move and reword it', () => {
    expect(
      lines(version(schema).admit(cr({ minReplicas: 5, maxReplicas: 2, mode: 'legacy' }), 'create')),
    ).toEqual([
      'spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
      'spec.mode: Forbidden: legacy mode is gone',
    ]);
  });

  it('a rule without message reports "failed rule: <rule>"; messageExpression builds the message', () => {
    const big = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v']));
    const v = version({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          'x-kubernetes-validations': [{ rule: 'self.size() < 10' }],
        },
      },
    });
    expect(lines(v.admit(cr({ ...big, a: 1, b: 2 }), 'create'))).toEqual([
      'spec: Invalid value: "object": failed rule: self.size() < 10',
    ]);
    expect(lines(version(schema).admit(cr({ name: 'Web' }), 'create'))).toEqual([
      'spec.name: Invalid value: "string": name Web must be lower case',
    ]);
  });

  it('transition rules run only on update with the old value: immutable fields and correlated map-list items', () => {
    const v = version(schema);
    expect(v.admit(cr({ owner: 'a', items: [{ id: 'x', size: 5 }] }), 'create')).toEqual([]);
    const old = cr({ owner: 'a', minReplicas: 1, maxReplicas: 3, items: [{ id: 'x', size: 5 }] });
    expect(
      lines(
        v.admit(
          cr({
            owner: 'b',
            items: [
              { id: 'x', size: 4 },
              { id: 'y', size: 1 },
            ],
          }),
          'update',
          { old },
        ),
      ),
    ).toEqual([
      'spec.owner: Invalid value: "string": owner is immutable',
      'spec.items[0].size: Invalid value: "integer": size may only grow',
    ]);
  });

  it('optionalOldSelf: the rule also runs on create with oldSelf empty (immutable once set)', () => {
    const v = version({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            id: {
              type: 'string',
              'x-kubernetes-validations': [
                {
                  rule: '!oldSelf.hasValue() || self == oldSelf.value()',
                  optionalOldSelf: true,
                  message: 'id is immutable once set',
                },
                { rule: "self != oldSelf.orValue('')", optionalOldSelf: true, message: 'id must change' },
              ],
            },
          },
        },
      },
    });
    expect(lines(v.admit(cr({ id: 'a' }), 'create'))).toEqual([]);
    expect(lines(v.admit(cr({ id: 'b' }), 'update', { old: cr({ id: 'a' }) }))).toEqual([
      'spec.id: Invalid value: "string": id is immutable once set',
    ]);
    // Transition rules are not ratcheted: an unchanged value still fails "must change".
    expect(lines(v.admit(cr({ id: 'a' }), 'update', { old: cr({ id: 'a' }) }))).toEqual([
      'spec.id: Invalid value: "string": id must change',
    ]);
    expect(lines(v.admit(cr({ id: '' }), 'create'))).toEqual([
      'spec.id: Invalid value: "string": id must change',
    ]);
    expect(v.unevaluatedRules).toEqual([]);
  });

  it('Kubernetes library functions are enforced (isURL)', () => {
    const v = version(schema);
    expect(v.unevaluatedRules).toEqual([]);
    expect(lines(v.admit(cr({ fancy: 'not a url' }), 'create'))).toEqual([
      'spec.fancy: Invalid value: "string": failed rule: isURL(self)',
    ]);
    expect(v.admit(cr({ fancy: 'https://example.com/x' }), 'create')).toEqual([]);
  });

  it('a CRD whose rule does not compile is rejected, naming the rule, as kube-apiserver does', () => {
    const bad = (rules: unknown[]): string[] => {
      try {
        version({
          type: 'object',
          properties: { spec: { type: 'object', 'x-kubernetes-validations': rules } },
        });
        return [];
      } catch (err) {
        return lines((err as { causes: StatusCause[] }).causes);
      }
    };
    const syntax = bad([{ rule: 'self.@@@' }]);
    expect(syntax).toHaveLength(1);
    expect(syntax[0]).toMatch(
      /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.@@@", Message:"", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ERROR: <input>:1:\d+: /,
    );
    expect(bad([{ rule: 'nosuch(self)' }])[0]).toContain(
      "compilation failed: ERROR: <input>:1:7: undeclared reference to 'nosuch' (in container '')",
    );
    expect(bad([{ rule: 'has(self)' }])[0]).toContain('compilation failed');
    // a field the schema does not declare, as kube's type check rejects it
    const typed = (rule: string, props: Record<string, unknown> = {}): string[] => {
      try {
        version({
          type: 'object',
          'x-kubernetes-validations': [{ rule }],
          properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } }, ...props } },
        });
        return [];
      } catch (err) {
        return lines((err as { causes: StatusCause[] }).causes);
      }
    };
    // with cel-go's position and source line, as kube-apiserver prints it
    expect(typed('self.spec.replcas > 0')[0]).toContain(
      "compilation failed: ERROR: <input>:1:10: undefined field 'replcas'\n | self.spec.replcas > 0\n | .........^",
    );
    expect(typed('!has(self.spec.nope)')[0]).toContain("undefined field 'nope'");
    expect(typed('self.spec.replicas > 0 && self.metadata.name != "" && self.kind == "WebPage"')).toEqual([]);
    // nor one kept by x-kubernetes-preserve-unknown-fields: kube never exposes unknown fields to CEL
    expect(typed("self.spec.anything == 'x'", { 'x-kubernetes-preserve-unknown-fields': true })[0]).toContain(
      "undefined field 'anything'",
    );
    expect(bad([{ rule: 'true', messageExpression: "'a' +" }])[0]).toMatch(
      /x-kubernetes-validations\[0\]\.messageExpression: Invalid value: .*compilation failed/,
    );
  });

  it('a rule nested past the parser limit or over the size limit is a compile error (422), never a crash', () => {
    const bad = (rule: string): string[] => {
      try {
        version({
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: { a: { type: 'integer' } },
              'x-kubernetes-validations': [{ rule }],
            },
          },
        });
        return [];
      } catch (err) {
        return lines((err as { causes: StatusCause[] }).causes);
      }
    };
    // a left-leaning chain: one level of the syntax tree per term (a stack overflow before)
    const chain = bad(Array.from({ length: 5_000 }, () => 'self.a').join(' + ') + ' > 0');
    expect(chain).toHaveLength(1);
    expect(chain[0]).toMatch(/compilation failed: ERROR: <input>: expression recursion limit exceeded: 250/);
    const parens = bad('('.repeat(3_000) + 'self.a' + ')'.repeat(3_000) + ' > 0');
    expect(parens[0]).toMatch(/compilation failed: ERROR: <input>: expression recursion limit exceeded: 250/);
    const huge = bad(`self.a > 0 || '${'x'.repeat(100_001)}' == ''`);
    expect(huge[0]).toMatch(
      /compilation failed: ERROR: <input>: expression code point size exceeds limit: size: \d+, limit 100000/,
    );
    // just under the depth limit still compiles
    expect(bad(Array.from({ length: 200 }, () => 'self.a').join(' + ') + ' > 0')).toEqual([]);
  });

  it('a type error or an unsupported value blocks the rules and says so; other schema errors do not', () => {
    const v = version(schema);
    expect(lines(v.admit(cr({ minReplicas: 'one', maxReplicas: 2 }), 'create'))).toEqual([
      'spec.minReplicas: Invalid value: "string": spec.minReplicas in body must be of type integer: "string"',
      ': Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
    const withEnum = version({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.a != "b"', message: 'a must not be b' }],
          properties: { a: { type: 'string', enum: ['a', 'c'] } },
        },
      },
    });
    // kube-apiserver's hasBlockingErr: an unsupported value blocks the rules too
    expect(lines(withEnum.admit(cr({ a: 'b' }), 'create'))).toEqual([
      'spec.a: Unsupported value: "b": supported values: "a", "c"',
      ': Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
    // other schema errors (minimum here) do not
    const withMinimum = version({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.n != 1', message: 'n must not be 1' }],
          properties: { n: { type: 'integer', minimum: 2 } },
        },
      },
    });
    expect(lines(withMinimum.admit(cr({ n: 1 }), 'create'))).toEqual([
      'spec.n: Invalid value: 1: spec.n in body should be greater than or equal to 2',
      'spec: Invalid value: "object": n must not be 1',
    ]);
  });

  it('a rule that cannot be evaluated (missing field) gives Invalid with the error', () => {
    const v = version({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { a: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.a > 0' }],
        },
      },
    });
    expect(lines(v.admit(cr({}), 'create'))).toEqual([
      'spec: Invalid value: "object": no such key: a evaluating rule: self.a > 0',
    ]);
  });
});

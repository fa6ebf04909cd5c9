/**
 * The CEL specification's conformance data (`@bufbuild/cel-spec`, cel-spec v0.25) for the core
 * language, run through the parser (with its limits and the optional syntax) and the environment CRD
 * rules use (@bufbuild/cel plus the Kubernetes libraries),
 * so the libraries added on top are shown not to break the standard language. Prints the pass rate
 * per suite and every failure with its reason; asserts a floor.
 */
import { describe, expect, it } from '@jest/globals';
import { isCelError, isCelList, isCelMap, isCelType, isCelUint, celUint, parse, plan } from '@bufbuild/cel';
import type { CelEnv, CelInput, CelValue } from '@bufbuild/cel';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { equals, isMessage } from '@bufbuild/protobuf';
import type { Message, Registry } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import type { IncrementalTest, IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import { kubernetesCelEnv } from '../internal/cel/environment.js';
import { parseWithLimits } from '../internal/cel/parse-limits.js';

/** The core language: every suite but the extensions (`*_ext`, optionals) and unknowns. */
const CORE = [
  'basic',
  'comparisons',
  'conversions',
  'dynamic',
  'enums',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'macros2',
  'namespace',
  'parse',
  'plumbing',
  'proto2',
  'proto3',
  'string',
  'timestamps',
  'type_deductions',
  'wrappers',
];
/** Just under the pass rate measured when written (95.2%: cel-spec v0.25 data, @bufbuild/cel 0.6.1). */
const FLOOR = 0.94;

const registry: Registry = getTestRegistry();
const envs = new Map<string, CelEnv>();
const envFor = (container: string): CelEnv => {
  let e = envs.get(container);
  if (!e) {
    e = kubernetesCelEnv({ registry, namespace: container });
    envs.set(container, e);
  }
  return e;
};

function unwrapWrapper(m: Message): unknown {
  const name = m.$typeName;
  if (name.startsWith('google.protobuf.') && name.endsWith('Value') && 'value' in m)
    return (m as unknown as { value: unknown }).value;
  return undefined;
}

function toInput(v: Value): CelInput {
  const k = v.kind;
  switch (k.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'stringValue':
    case 'doubleValue':
      return k.value;
    case 'int64Value':
      return k.value;
    case 'uint64Value':
      return celUint(k.value);
    case 'bytesValue':
      return k.value;
    case 'enumValue':
      return BigInt(k.value.value);
    case 'listValue':
      return k.value.values.map(toInput);
    case 'mapValue':
      return new Map(
        k.value.entries.map(
          (e) => [toInput(e.key!) as string | bigint | boolean, toInput(e.value!)] as const,
        ),
      );
    case 'objectValue': {
      const m = anyUnpack(k.value, registry);
      if (!m) throw new Error(`cannot unpack ${k.value.typeUrl}`);
      return m;
    }
    default:
      throw new Error(`unsupported binding ${String(k.case)}`);
  }
}

/** Whether an evaluation result is the expected value (types must agree: 1 is not 1u nor 1.0). */
function same(actual: CelValue, expected: Value): boolean {
  const k = expected.kind;
  switch (k.case) {
    case 'nullValue':
      return actual === null;
    case 'boolValue':
    case 'stringValue':
      return actual === k.value;
    case 'int64Value':
      return typeof actual === 'bigint' && actual === k.value;
    case 'uint64Value':
      return isCelUint(actual) && actual.value === k.value;
    case 'doubleValue':
      return (
        typeof actual === 'number' && (actual === k.value || (Number.isNaN(actual) && Number.isNaN(k.value)))
      );
    case 'bytesValue':
      return (
        actual instanceof Uint8Array &&
        actual.length === k.value.length &&
        actual.every((b, i) => b === k.value[i])
      );
    case 'enumValue':
      return typeof actual === 'bigint' && actual === BigInt(k.value.value);
    case 'typeValue':
      return isCelType(actual) && actual.name === k.value;
    case 'listValue': {
      if (!isCelList(actual)) return false;
      const xs = [...actual];
      return xs.length === k.value.values.length && xs.every((x, i) => same(x, k.value.values[i]));
    }
    case 'mapValue': {
      if (!isCelMap(actual) || actual.size !== k.value.entries.length) return false;
      const entries = [...actual.entries()];
      return k.value.entries.every((e) => entries.some(([ak, av]) => same(ak, e.key!) && same(av, e.value!)));
    }
    case 'objectValue': {
      const want = anyUnpack(k.value, registry);
      if (!want) return false;
      const wrapped = unwrapWrapper(want);
      if (wrapped !== undefined) {
        if (typeof wrapped === 'bigint')
          return (
            (typeof actual === 'bigint' ? actual : isCelUint(actual) ? actual.value : undefined) === wrapped
          );
        return (
          actual === wrapped ||
          (typeof wrapped === 'number' &&
            typeof actual === 'number' &&
            Number.isNaN(wrapped) &&
            Number.isNaN(actual))
        );
      }
      if (isReflectMessage(actual))
        return actual.desc.typeName === want.$typeName && equals(actual.desc, actual.message, want);
      if (isMessage(actual)) return false;
      return false;
    }
    default:
      return false;
  }
}

type Outcome = { status: 'pass' } | { status: 'fail'; reason: string } | { status: 'skip'; reason: string };

function show(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}` : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

function runTest(t: IncrementalTest, parseExpr: (text: string) => ReturnType<typeof parse> = parse): Outcome {
  const o = t.original;
  if (o.checkOnly) return { status: 'skip', reason: 'type-check only' };
  const m = o.resultMatcher;
  if (m.case === 'unknown' || m.case === 'anyUnknowns') return { status: 'skip', reason: 'unknowns' };
  let result: CelValue | Error;
  try {
    const bindings: Record<string, CelInput> = {};
    for (const [name, ev] of Object.entries(o.bindings)) {
      if (ev.kind.case !== 'value') return { status: 'skip', reason: 'non-value binding' };
      bindings[name] = toInput(ev.kind.value);
    }
    result = plan(envFor(o.container), parseExpr(o.expr))(bindings);
  } catch (err) {
    result = err as Error;
  }
  const isError = isCelError(result) || result instanceof Error;
  if (m.case === 'evalError' || m.case === 'anyEvalErrors')
    return isError
      ? { status: 'pass' }
      : { status: 'fail', reason: `expected an error, got ${show(result)}` };
  if (isError) return { status: 'fail', reason: `error: ${(result as Error).message}` };
  const expected = m.case === 'value' ? m.value : m.case === 'typedResult' ? m.value.result : undefined;
  if (!expected) return { status: 'pass' }; // no value to compare (expected only to evaluate)
  return same(result as CelValue, expected)
    ? { status: 'pass' }
    : { status: 'fail', reason: `got ${show(result)}, want ${show(expected.kind)}` };
}

function* allTests(s: IncrementalTestSuite, path: string): Generator<[string, IncrementalTest]> {
  for (const t of s.tests) yield [`${path}/${t.name}`, t];
  for (const sub of s.suites) yield* allTests(sub, `${path}/${sub.name}`);
}

describe('CEL conformance (cel-spec core language) through the CRD rules environment', () => {
  it('passes at least the recorded floor and prints its pass rate and failures', () => {
    const root = getConformanceSuite();
    const lines: string[] = [];
    const failures: string[] = [];
    let pass = 0;
    let fail = 0;
    let skip = 0;
    for (const name of CORE) {
      const suite = root.suites.find((s) => s.name === name);
      expect(suite).toBeDefined();
      let p = 0;
      let f = 0;
      for (const [id, t] of allTests(suite!, name)) {
        const r = runTest(t, parseWithLimits);
        if (r.status === 'pass') p++;
        else if (r.status === 'skip') skip++;
        else {
          f++;
          failures.push(`  ${id}: ${t.original.expr.replace(/\s+/g, ' ')} -> ${r.reason}`);
        }
      }
      pass += p;
      fail += f;
      lines.push(`  ${name}: ${p}/${p + f}`);
    }
    const rate = pass / (pass + fail);
    console.log(
      [
        `CEL conformance (core language): ${pass}/${pass + fail} passed (${(rate * 100).toFixed(1)}%), ${skip} not applicable (type-check only, unknowns)`,
        ...lines,
        `failures (${failures.length}):`,
        ...failures,
      ].join('\n'),
    );
    expect(rate).toBeGreaterThanOrEqual(FLOOR);
  });

  it("the optionals suite through the rules' parser (a.?b and a[?k]), printed", () => {
    const suite = getConformanceSuite().suites.find((x) => x.name === 'optionals');
    expect(suite).toBeDefined();
    let p = 0;
    let f = 0;
    const failures: string[] = [];
    for (const [id, t] of allTests(suite!, 'optionals')) {
      const r = runTest(t, parseWithLimits);
      if (r.status === 'pass') p++;
      else if (r.status === 'fail') {
        f++;
        failures.push(`  ${id}: ${t.original.expr.replace(/\s+/g, ' ')} -> ${r.reason}`);
      }
    }
    console.log([`CEL conformance (optionals): ${p}/${p + f} passed`, ...failures].join('\n'));
  });
});

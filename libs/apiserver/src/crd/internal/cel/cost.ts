/**
 * Cost of CEL rules, in the units and with the limits kube-apiserver uses (`celconfig`): an estimate
 * per rule from the schema's bounds (`maxItems`, `maxProperties`, `maxLength`; unbounded sizes are
 * what fits in a 3 MiB request) times how often the rule can run, checked against 10^7 per rule and
 * 10^8 per CRD when the CRD is written; and a runtime cost from the actual sizes, checked against
 * 10^6 per rule and 10^7 per object when an object is written.
 *
 * The estimate follows cel-go's model (identifiers, selections and calls cost 1, list and map
 * literals 10 and 30, string and list traversals 0.1 per element, comprehensions their body per
 * iteration) but is this package's approximation of it: figures near a limit can differ from
 * kube-apiserver's.
 */
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { JsonSchemaProps } from '../../schema-types.js';
import { asSchema, mapValueSchema } from '../../schema-types.js';
import { escapeProperty } from './values.js';

/** kube's `StaticEstimatedCostLimit`: estimated cost of one rule, times its cardinality. */
export const RULE_COST_LIMIT = 10_000_000;
/** kube's `StaticEstimatedCRDCostLimit`: estimated cost of every rule of a CRD version. */
export const CRD_COST_LIMIT = 100_000_000;
/** kube's `PerCallLimit`: runtime cost of one rule evaluation. */
export const PER_CALL_LIMIT = 1_000_000;
/** kube's `RuntimeCELCostBudget`: runtime cost of all rules for one object. */
export const RUNTIME_BUDGET = 10_000_000;

const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** What the estimator knows of a value: its kind, size bound and parts. */
export interface Shape {
  kind: 'list' | 'map' | 'string' | 'bytes' | 'other';
  /** Upper bound of the size (items, entries, characters). */
  max: number;
  elem?: Shape;
  fields?: Map<string, Shape>;
  /** An object whose declared properties are all it has (a select of another field does not compile). */
  closed?: boolean;
}

const OTHER: Shape = { kind: 'other', max: 1 };

/**
 * The fewest bytes a value under `s` takes in JSON, as kube-apiserver counts them to bound how many
 * items or entries a request can hold: `""` 2, `true` 4, `0` 1, a date-time 21, a date 12, a
 * duration 3, an int-or-string 1, `[]` 2, and an object `{}` plus, for each required property
 * without a default, its name, its value's minimum and 4 (quotes, colon, comma).
 */
function minSerializedSize(s: JsonSchemaProps | undefined, depth = 0): number {
  if (s?.['x-kubernetes-int-or-string'] === true) return 1;
  switch (s?.type) {
    case 'string':
      return s.format === 'date-time' ? 21 : s.format === 'date' ? 12 : s.format === 'duration' ? 3 : 2;
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
      return 1;
    case 'object': {
      let size = 2;
      if (depth > 32 || !s.properties) return size;
      for (const name of s.required ?? []) {
        const prop = asSchema(s.properties[name]);
        if (prop && prop.default === undefined) size += name.length + minSerializedSize(prop, depth + 1) + 4;
      }
      return size;
    }
    default:
      return 2;
  }
}

/** The shape of values under a schema node, with kube's bounds for unbounded sizes. */
export function shapeOfSchema(s: JsonSchemaProps | undefined, depth = 0): Shape {
  if (!s || depth > 32) return OTHER;
  if (s.type === 'string' && s.format !== 'date-time' && s.format !== 'date' && s.format !== 'duration') {
    // as kube: maxLength in bytes (4 per code point) bounds a string, else an enum's longest value,
    // else the request size; bytes are bounded by maxLength itself
    if (s.format === 'byte') return { kind: 'bytes', max: s.maxLength ?? MAX_REQUEST_BYTES - 2 };
    const enumMax = Array.isArray(s.enum)
      ? Math.max(0, ...s.enum.map((v) => (typeof v === 'string' ? v.length : 0)))
      : undefined;
    const max = s.maxLength !== undefined ? s.maxLength * 4 : (enumMax ?? MAX_REQUEST_BYTES - 2);
    return { kind: 'string', max };
  }
  if (s.type === 'array') {
    const items = asSchema(s.items);
    return {
      kind: 'list',
      max: s.maxItems ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSerializedSize(items) + 1)),
      elem: shapeOfSchema(items, depth + 1),
    };
  }
  if (s.type === 'object' || s.properties || s.additionalProperties) {
    const mv = mapValueSchema(s);
    if (mv || !s.properties) {
      return {
        kind: 'map',
        // kube: a key-value pair is at least the value's minimum plus 6 (quotes, colon, comma, key)
        max: s.maxProperties ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSerializedSize(mv) + 6)),
        elem: mv ? shapeOfSchema(mv, depth + 1) : OTHER,
      };
    }
    const fields = new Map<string, Shape>();
    for (const [k, v] of Object.entries(s.properties)) {
      const name = escapeProperty(k);
      if (name !== undefined) fields.set(name, shapeOfSchema(asSchema(v), depth + 1));
    }
    const closed =
      s['x-kubernetes-preserve-unknown-fields'] !== true && s['x-kubernetes-embedded-resource'] !== true;
    return { kind: 'map', max: Object.keys(s.properties).length, fields, elem: OTHER, closed };
  }
  return OTHER;
}

/** The shape of an actual CEL-bound JSON value (for runtime cost). */
export function shapeOfValue(v: unknown, depth = 0): Shape {
  if (typeof v === 'string') return { kind: 'string', max: v.length };
  if (depth > 64 || v === null || typeof v !== 'object') return OTHER;
  if (Array.isArray(v))
    return { kind: 'list', max: v.length, elem: mergeShapes(v.map((x) => shapeOfValue(x, depth + 1))) };
  const fields = new Map<string, Shape>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const name = escapeProperty(k) ?? k;
    fields.set(name, shapeOfValue(x, depth + 1));
  }
  return { kind: 'map', max: fields.size, fields, elem: mergeShapes([...fields.values()]) };
}

function mergeShapes(shapes: Shape[]): Shape {
  if (shapes.length === 0) return OTHER;
  let out = shapes[0];
  for (const s of shapes.slice(1)) {
    out = {
      kind: out.kind === s.kind ? out.kind : 'other',
      max: Math.max(out.max, s.max),
      elem: out.elem && s.elem ? mergeShapes([out.elem, s.elem]) : (out.elem ?? s.elem),
    };
  }
  return out;
}

interface Estimate {
  cost: number;
  shape: Shape;
}

const traverse = (n: number): number => Math.ceil(n * 0.1);

const CHEAP_STRING_OPS = new Set(['lowerAscii', 'upperAscii', 'trim', 'charAt']);

function estimate(e: Expr | undefined, vars: ReadonlyMap<string, Shape>): Estimate {
  if (!e) return { cost: 0, shape: OTHER };
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind;
      if (c.case === 'stringValue') return { cost: 0, shape: { kind: 'string', max: c.value.length } };
      return { cost: 0, shape: OTHER };
    }
    case 'identExpr':
      return { cost: 1, shape: vars.get(k.value.name) ?? OTHER };
    case 'selectExpr': {
      const op = estimate(k.value.operand, vars);
      const shape = op.shape.fields?.get(k.value.field) ?? op.shape.elem ?? OTHER;
      return { cost: op.cost + 1, shape: k.value.testOnly ? OTHER : shape };
    }
    case 'listExpr': {
      const parts = k.value.elements.map((x) => estimate(x, vars));
      return {
        cost: 10 + parts.reduce((a, p) => a + p.cost, 0),
        shape: { kind: 'list', max: parts.length, elem: mergeShapes(parts.map((p) => p.shape)) },
      };
    }
    case 'structExpr': {
      let cost = 30;
      const vals: Shape[] = [];
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') cost += estimate(en.keyKind.value, vars).cost;
        const v = estimate(en.value, vars);
        cost += v.cost;
        vals.push(v.shape);
      }
      return { cost, shape: { kind: 'map', max: vals.length, elem: mergeShapes(vals) } };
    }
    case 'comprehensionExpr': {
      const c = k.value;
      const range = estimate(c.iterRange, vars);
      const init = estimate(c.accuInit, vars);
      const inner = new Map(vars);
      inner.set(
        c.iterVar,
        range.shape.kind === 'map' ? { kind: 'string', max: 253 } : (range.shape.elem ?? OTHER),
      );
      if (c.iterVar2) inner.set(c.iterVar2, range.shape.elem ?? OTHER);
      inner.set(c.accuVar, init.shape);
      const cond = estimate(c.loopCondition, inner);
      const step = estimate(c.loopStep, inner);
      const result = estimate(c.result, inner);
      const n = range.shape.max;
      const resultShape =
        result.shape.kind === 'list'
          ? { ...result.shape, max: n, elem: step.shape.elem ?? result.shape.elem }
          : result.shape;
      return { cost: range.cost + init.cost + n * (cond.cost + step.cost) + result.cost, shape: resultShape };
    }
    case 'callExpr': {
      const call = k.value;
      const target = call.target ? estimate(call.target, vars) : undefined;
      const args = call.args.map((a) => estimate(a, vars));
      let cost = 1 + (target?.cost ?? 0) + args.reduce((a, p) => a + p.cost, 0);
      const recv = target?.shape ?? args[0]?.shape ?? OTHER;
      const other = (target ? args[0] : args[1])?.shape ?? OTHER;
      let shape: Shape = OTHER;
      switch (call.function) {
        case '_==_':
        case '_!=_':
        case '_<_':
        case '_<=_':
        case '_>_':
        case '_>=_':
          if (recv.kind !== 'other') cost += traverse(Math.min(recv.max, Math.max(other.max, 1)));
          break;
        case '_+_':
          if (recv.kind === 'string' || recv.kind === 'list') {
            cost += traverse(recv.max + other.max);
            shape = { kind: recv.kind, max: recv.max + other.max, elem: recv.elem ?? other.elem ?? OTHER };
          }
          break;
        case '@in':
          // cel-go: a list membership costs the list's size, a map's is constant
          cost += other.kind === 'list' ? other.max : 1;
          break;
        case 'startsWith':
        case 'endsWith':
          // cel-go: the prefix's (or suffix's) length, not the receiver's
          cost += traverse(other.max);
          break;
        case 'contains':
          cost += traverse(recv.max) * Math.max(1, traverse(other.max));
          break;
        case 'matches':
        case 'find':
        case 'findAll':
          cost += traverse(recv.max) * Math.max(1, Math.ceil(other.max * 0.25));
          shape = call.function === 'findAll' ? { kind: 'list', max: recv.max, elem: recv } : recv;
          break;
        case 'split':
        case 'replace':
        case 'indexOf':
        case 'lastIndexOf':
        case 'join':
        case 'isSorted':
        case 'sum':
        case 'min':
        case 'max':
        case 'substring':
        case 'sets.contains':
        case 'sets.equivalent':
        case 'sets.intersects':
          cost +=
            traverse(recv.max) * Math.max(1, call.function.startsWith('sets.') ? traverse(other.max) : 1);
          shape =
            call.function === 'split' ? { kind: 'list', max: recv.max, elem: recv } : (recv.elem ?? OTHER);
          if (call.function === 'replace' || call.function === 'substring' || call.function === 'join')
            shape = { kind: 'string', max: recv.max * (call.function === 'join' ? 64 : 1) };
          break;
        case 'url':
        case 'ip':
        case 'cidr':
        case 'quantity':
        case 'isURL':
        case 'isIP':
        case 'isCIDR':
        case 'isQuantity':
          cost += traverse(recv.max);
          break;
        default:
          if (CHEAP_STRING_OPS.has(call.function)) cost += traverse(recv.max);
          if (call.function === 'dyn' || call.function === 'string' || call.function === 'value')
            shape = recv;
      }
      return { cost, shape };
    }
    default:
      return { cost: 1, shape: OTHER };
  }
}

/** The shape of the root object: its schema's, plus what kube declares there (apiVersion, kind, metadata.name/generateName). */
export function rootShape(s: JsonSchemaProps): Shape {
  const shape = shapeOfSchema(s);
  if (!shape.fields) return shape;
  const fields = new Map(shape.fields);
  const str: Shape = { kind: 'string', max: 253 };
  fields.set('apiVersion', str);
  fields.set('kind', str);
  fields.set('metadata', {
    kind: 'map',
    max: 2,
    fields: new Map([
      ['name', str],
      ['generateName', str],
    ]),
    closed: true,
  });
  return { ...shape, fields };
}

/** The cost of an expression with variables of the given shapes. */
export function costOf(e: Expr, vars: ReadonlyMap<string, Shape>): number {
  return estimate(e, vars).cost;
}

/**
 * kube's factor of a cost over a limit: `more than 100x`, `18.1x`, or with six decimals under 1.5
 * (`1.234567x`), as Go's `%.1f` / `%f` print it.
 */
export function exceedFactor(cost: number, limit: number): string {
  const f = cost / limit;
  if (f > 100) return 'more than 100x';
  return f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
}

/** kube-apiserver's error for an estimated cost over a limit (getCostErrorMessage), with its hint. */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  return `${what} exceeds budget by factor of ${exceedFactor(cost, limit)} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/**
 * Evaluates the CEL subset over JSON values with CEL's semantics where they matter for validation
 * rules: errors on missing fields and mismatched types, commutative `&&`/`||` (an error is absorbed when
 * the other side decides), integer division, deep equality.
 */
import { isObject, jsonEqual } from '../../json-util.js';
import type { Expr } from './ast.js';
import { compileRe2 } from '../re2.js';

/** A runtime error of a rule (a missing field, a type mismatch, division by zero). */
export class CelEvalError extends Error {
  readonly code = 'CEL_EVAL';
}

/** A function or feature this server does not implement; the rule is skipped, not failed. */
export class CelUnsupportedError extends Error {
  readonly code = 'CEL_UNSUPPORTED';
}

/** A CEL optional value (`oldSelf` of rules with `optionalOldSelf: true`). */
export class CelOptional {
  constructor(
    /** Whether a value is present. */
    readonly present: boolean,
    /** The value when present. */
    readonly value?: unknown,
  ) {}
}

type Vars = ReadonlyMap<string, unknown>;

const typeName = (v: unknown): string => {
  if (v instanceof CelOptional) return 'optional_type';
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (isObject(v)) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
};

function noOverload(fn: string, ...args: unknown[]): never {
  throw new CelEvalError(`no such overload: ${fn}(${args.map(typeName).join(', ')})`);
}

/** Evaluates `e` with the variables `vars` (`self`, `oldSelf`, comprehension variables). */
export function evaluate(e: Expr, vars: Vars): unknown {
  switch (e.t) {
    case 'lit':
      return e.value;
    case 'ident':
      if (!vars.has(e.name)) throw new CelUnsupportedError(`undeclared reference to '${e.name}'`);
      return vars.get(e.name);
    case 'select': {
      const o = evaluate(e.operand, vars);
      if (!isObject(o)) noOverload(`.${e.field}`, o);
      if (!(e.field in o)) throw new CelEvalError(`no such key: ${e.field}`);
      return o[e.field];
    }
    case 'has': {
      const o = evaluate(e.operand, vars);
      if (!isObject(o)) noOverload('has', o);
      return e.field in o && o[e.field] !== undefined;
    }
    case 'index': {
      const o = evaluate(e.operand, vars);
      const i = evaluate(e.index, vars);
      if (Array.isArray(o) && typeof i === 'number' && Number.isInteger(i)) {
        if (i < 0 || i >= o.length) throw new CelEvalError(`index out of bounds: ${i}`);
        return o[i] as unknown;
      }
      if (isObject(o) && typeof i === 'string') {
        if (!(i in o)) throw new CelEvalError(`no such key: ${i}`);
        return o[i];
      }
      return noOverload('_[_]', o, i);
    }
    case 'list':
      return e.items.map((x) => evaluate(x, vars));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of e.entries) {
        const key = evaluate(k, vars);
        if (typeof key !== 'string') throw new CelUnsupportedError('map keys other than strings');
        out[key] = evaluate(v, vars);
      }
      return out;
    }
    case 'unary': {
      const v = evaluate(e.operand, vars);
      if (e.op === '!') return typeof v === 'boolean' ? !v : noOverload('!_', v);
      return typeof v === 'number' ? -v : noOverload('-_', v);
    }
    case 'cond': {
      const test = evaluate(e.test, vars);
      if (typeof test !== 'boolean') noOverload('_?_:_', test);
      return evaluate(test ? e.then : e.else, vars);
    }
    case 'binary':
      return binary(e.op, e.left, e.right, vars);
    case 'call':
      return call(
        e.fn,
        e.target === undefined ? undefined : evaluate(e.target, vars),
        e.target !== undefined,
        e.args.map((a) => evaluate(a, vars)),
      );
    case 'comprehension':
      return comprehension(e, vars);
  }
}

/** `&&` and `||` absorb an error on one side when the other side decides the result. */
function logical(op: '&&' | '||', left: Expr, right: Expr, vars: Vars): boolean {
  const decisive = op === '||';
  let leftError: Error | undefined;
  let l: unknown;
  try {
    l = evaluate(left, vars);
    if (typeof l !== 'boolean') noOverload(op, l);
    if (l === decisive) return decisive;
  } catch (err) {
    if (err instanceof CelUnsupportedError || !(err instanceof Error)) throw err;
    leftError = err;
  }
  const r = evaluate(right, vars);
  if (typeof r !== 'boolean') noOverload(op, r);
  if (r === decisive) return decisive;
  if (leftError !== undefined) throw leftError;
  return !decisive;
}

function binary(op: string, left: Expr, right: Expr, vars: Vars): unknown {
  if (op === '&&' || op === '||') return logical(op, left, right, vars);
  const l = evaluate(left, vars);
  const r = evaluate(right, vars);
  if (l instanceof CelOptional || r instanceof CelOptional) {
    if ((op === '==' || op === '!=') && l instanceof CelOptional && r instanceof CelOptional) {
      const same = l.present === r.present && (!l.present || jsonEqual(l.value, r.value));
      return op === '==' ? same : !same;
    }
    return noOverload(`_${op}_`, l, r);
  }
  switch (op) {
    case '==':
      return jsonEqual(l, r);
    case '!=':
      return !jsonEqual(l, r);
    case 'in':
      if (Array.isArray(r)) return r.some((x) => jsonEqual(x, l));
      if (isObject(r) && typeof l === 'string') return l in r;
      return noOverload('@in', l, r);
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const comparable =
        (typeof l === 'number' && typeof r === 'number') ||
        (typeof l === 'string' && typeof r === 'string') ||
        (typeof l === 'boolean' && typeof r === 'boolean');
      if (!comparable) return noOverload(op, l, r);
      const a = l;
      const b = r;
      return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
    }
    case '+':
      if (typeof l === 'number' && typeof r === 'number') return l + r;
      if (typeof l === 'string' && typeof r === 'string') return l + r;
      if (Array.isArray(l) && Array.isArray(r)) return [...(l as unknown[]), ...(r as unknown[])];
      return noOverload('_+_', l, r);
    case '-':
    case '*':
    case '/':
    case '%': {
      if (typeof l !== 'number' || typeof r !== 'number') return noOverload(`_${op}_`, l, r);
      if (op === '-') return l - r;
      if (op === '*') return l * r;
      const ints = Number.isInteger(l) && Number.isInteger(r);
      if (r === 0 && ints) throw new CelEvalError(op === '/' ? 'division by zero' : 'modulus by zero');
      if (op === '/') return ints ? Math.trunc(l / r) : l / r;
      return ints ? l % r : noOverload('_%_', l, r);
    }
    default:
      throw new CelUnsupportedError(`operator ${op}`);
  }
}

function comprehension(e: Extract<Expr, { t: 'comprehension' }>, vars: Vars): unknown {
  const target = evaluate(e.target, vars);
  const items: unknown[] = Array.isArray(target)
    ? (target as unknown[])
    : isObject(target)
      ? Object.keys(target)
      : noOverload(e.macro, target);
  const scoped = new Map(vars);
  const run = (item: unknown, body: Expr): unknown => {
    scoped.set(e.variable, item);
    return evaluate(body, scoped);
  };
  const test = (item: unknown): boolean => {
    const v = run(item, e.body);
    if (typeof v !== 'boolean') noOverload(e.macro, v);
    return v;
  };
  switch (e.macro) {
    case 'all': {
      let error: Error | undefined;
      for (const item of items) {
        try {
          if (!test(item)) return false;
        } catch (err) {
          if (err instanceof CelUnsupportedError || !(err instanceof Error)) throw err;
          error ??= err;
        }
      }
      if (error !== undefined) throw error;
      return true;
    }
    case 'exists': {
      let error: Error | undefined;
      for (const item of items) {
        try {
          if (test(item)) return true;
        } catch (err) {
          if (err instanceof CelUnsupportedError || !(err instanceof Error)) throw err;
          error ??= err;
        }
      }
      if (error !== undefined) throw error;
      return false;
    }
    case 'exists_one':
      return items.filter((item) => test(item)).length === 1;
    case 'filter':
      return items.filter((item) => test(item));
    case 'map':
      return e.transform
        ? items.filter((item) => test(item)).map((item) => run(item, e.transform as Expr))
        : items.map((item) => run(item, e.body));
  }
}

function size(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.length;
  if (isObject(v)) return Object.keys(v).length;
  return noOverload('size', v);
}

function call(fn: string, target: unknown, hasTarget: boolean, args: unknown[]): unknown {
  const str = (v: unknown): string => (typeof v === 'string' ? v : noOverload(fn, target, ...args));
  const one = (): unknown => {
    if (args.length !== 1) noOverload(fn, ...args);
    return args[0];
  };
  if (!hasTarget) {
    switch (fn) {
      case 'size':
        return size(one());
      case 'int': {
        const v = one();
        if (typeof v === 'number') return Math.trunc(v);
        if (typeof v === 'string' && /^[-+]?\d+$/.test(v)) return Number(v);
        return noOverload(fn, v);
      }
      case 'uint': {
        const v = one();
        if (typeof v === 'number' && v >= 0) return Math.trunc(v);
        return noOverload(fn, v);
      }
      case 'double': {
        const v = one();
        if (typeof v === 'number') return v;
        if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
        return noOverload(fn, v);
      }
      case 'string': {
        const v = one();
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
        return noOverload(fn, v);
      }
      case 'duration': {
        const v = one();
        if (typeof v !== 'string') return noOverload(fn, v);
        return parseDuration(v);
      }
      case 'bool': {
        const v = one();
        if (typeof v === 'boolean') return v;
        if (v === 'true' || v === 'false') return v === 'true';
        return noOverload(fn, v);
      }
      default:
        throw new CelUnsupportedError(`function ${fn}()`);
    }
  }
  if (target instanceof CelOptional) {
    switch (fn) {
      case 'hasValue':
        return target.present;
      case 'value':
        if (!target.present) throw new CelEvalError('optional.none() dereference');
        return target.value;
      case 'orValue':
        return target.present ? target.value : one();
      default:
        return noOverload(fn, target, ...args);
    }
  }
  switch (fn) {
    case 'size':
      return size(target);
    case 'startsWith':
      return str(target).startsWith(str(one()));
    case 'endsWith':
      return str(target).endsWith(str(one()));
    case 'contains':
      return str(target).includes(str(one()));
    case 'matches': {
      const pattern = str(one());
      let re: RegExp;
      try {
        re = compileRe2(pattern);
      } catch (err) {
        throw new CelEvalError(
          `invalid regular expression ${pattern}: ${err instanceof Error ? err.message : ''}`,
        );
      }
      return re.test(str(target));
    }
    case 'lowerAscii':
      return str(target).replace(/[A-Z]/g, (c) => c.toLowerCase());
    case 'upperAscii':
      return str(target).replace(/[a-z]/g, (c) => c.toUpperCase());
    case 'trim':
      return str(target).trim();
    case 'split': {
      const parts = str(target).split(str(args[0]));
      if (args.length > 1) {
        const n = args[1];
        if (typeof n !== 'number') return noOverload(fn, target, ...args);
        if (n === 0) return [];
        if (n > 0 && parts.length > n)
          return [...parts.slice(0, n - 1), parts.slice(n - 1).join(str(args[0]))];
      }
      return parts;
    }
    case 'charAt': {
      const i = one();
      const chars = [...str(target)];
      if (typeof i !== 'number' || i < 0 || i > chars.length)
        throw new CelEvalError(`index out of range: ${String(i)}`);
      return chars[i] ?? '';
    }
    case 'indexOf':
    case 'lastIndexOf': {
      const needle = str(args[0]);
      const s = str(target);
      return fn === 'indexOf' ? s.indexOf(needle) : s.lastIndexOf(needle);
    }
    case 'replace': {
      if (args.length < 2) return noOverload(fn, target, ...args);
      const from = str(args[0]);
      const to = str(args[1]);
      const s = str(target);
      if (args.length > 2 && typeof args[2] === 'number' && args[2] >= 0) {
        let out = s;
        let count = 0;
        let at = 0;
        while (count < args[2]) {
          const i = out.indexOf(from, at);
          if (i < 0) break;
          out = out.slice(0, i) + to + out.slice(i + from.length);
          at = i + to.length;
          count++;
        }
        return out;
      }
      return s.split(from).join(to);
    }
    case 'substring': {
      const chars = [...str(target)];
      const start = args[0];
      const end = args.length > 1 ? args[1] : chars.length;
      if (
        typeof start !== 'number' ||
        typeof end !== 'number' ||
        start < 0 ||
        end > chars.length ||
        start > end
      ) {
        throw new CelEvalError('substring index out of range');
      }
      return chars.slice(start, end).join('');
    }
    case 'join': {
      if (!Array.isArray(target) || !target.every((x) => typeof x === 'string'))
        return noOverload(fn, target);
      return target.join(args.length ? str(args[0]) : '');
    }
    case 'sum':
    case 'min':
    case 'max':
    case 'isSorted': {
      if (!Array.isArray(target)) return noOverload(fn, target);
      const list = target as unknown[];
      if (fn === 'isSorted') {
        return list.every(
          (x, i) =>
            i === 0 ||
            ((typeof x === 'number' || typeof x === 'string') && (list[i - 1] as number | string) <= x),
        );
      }
      if (!list.every((x): x is number => typeof x === 'number')) return noOverload(fn, target);
      if (fn === 'sum') return list.reduce((a, b) => a + b, 0);
      if (list.length === 0) throw new CelEvalError(`${fn} called on an empty list`);
      return fn === 'min' ? Math.min(...list) : Math.max(...list);
    }
    default:
      throw new CelUnsupportedError(`function ${fn}()`);
  }
}

const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };

/**
 * A Go duration string as seconds. Durations are numbers here, so they compare and add as CEL
 * durations do; mixing them with plain numbers is not rejected as CEL would.
 */
function parseDuration(text: string): number {
  const m = /^([-+])?((?:\d+(?:\.\d*)?|\.\d+)(?:h|ms|us|µs|ns|m|s))+$/.exec(text);
  if (!m && text !== '0') throw new CelEvalError(`invalid duration: ${text}`);
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(h|ms|us|µs|ns|m|s)/g)) {
    total += Number(part[1]) * (UNIT_SECONDS[part[2] ?? 's'] ?? 1);
  }
  return text.startsWith('-') ? -total : total;
}

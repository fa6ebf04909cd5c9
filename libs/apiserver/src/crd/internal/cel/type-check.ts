/**
 * The type check kube-apiserver runs on a CRD's rules when the CRD is written (cel-go's checker with
 * the schema's types): a field the schema does not declare (`undefined field 'x'`), an operator or
 * function applied to types it has no overload for (`found no matching overload for '_==_' applied
 * to '(string, int)'`), selecting a field of a scalar, and a rule that is not a bool. @bufbuild/cel
 * 0.6.1 ships no checker, so this walks the parsed expression itself, with the types kube gives
 * schema nodes (cel-types.ts).
 *
 * It is deliberately one-sided: whatever it cannot type (library functions outside the core
 * language, objects that keep unknown fields) is `dyn`, which matches everything, so it only
 * refuses rules cel-go refuses; some rules cel-go refuses still pass here and fail on objects.
 */
import type { Expr, SourceInfo } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import {
  OPT_ELEMENT,
  OPT_FIELD,
  OPT_HAS,
  OPT_INDEX,
  OPT_LIST,
  OPT_MAP,
  OPT_SELECT,
} from './optional-syntax.js';
import type { CelT } from './cel-types.js';
import { CEL_TYPE_NAMES, list, map, optional, T, TIME_PARTS, typeName } from './cel-types.js';
import { compileRe2 } from '../re2.js';
import { parseGoDuration } from './values.js';

/** A type error at an expression. */
export class CelTypeError extends Error {
  constructor(
    message: string,
    readonly exprId: bigint,
    /** Where cel-go places the error: at an operator, at a call's `(`, or at the expression. */
    readonly at: 'operator' | 'call' | 'expr' = 'expr',
  ) {
    super(message);
  }
}

const isDyn = (t: CelT): boolean => t.k === 'dyn';

/** Whether values of `a` and `b` may be the same type (dyn and null-free generics unify). */
function unify(a: CelT, b: CelT): boolean {
  if (isDyn(a) || isDyn(b)) return true;
  // objects and maps are both maps at run time here (cel-go may refuse comparing them)
  if ((a.k === 'object' && b.k === 'map') || (a.k === 'map' && b.k === 'object')) return true;
  if (a.k !== b.k) return false;
  if (a.k === 'list' && b.k === 'list') return unify(a.elem, b.elem);
  if (a.k === 'map' && b.k === 'map') return unify(a.key, b.key) && unify(a.value, b.value);
  if (a.k === 'optional' && b.k === 'optional') return unify(a.inner, b.inner);
  return true;
}

/** The more specific of two unifiable types. */
function join(a: CelT, b: CelT): CelT {
  return isDyn(a) ? b : a;
}

const NUMERIC = new Set(['int', 'uint', 'double']);
const ORDERED = new Set(['int', 'uint', 'double', 'string', 'bytes', 'bool', 'timestamp', 'duration']);

type Scope = ReadonlyMap<string, CelT>;

/** The type of an expression; throws {@link CelTypeError} where cel-go's checker would refuse it. */
function typeOf(e: Expr | undefined, scope: Scope): CelT {
  if (!e) return T.dyn;
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr':
      switch (k.value.constantKind.case) {
        case 'int64Value':
          return T.int;
        case 'uint64Value':
          return T.uint;
        case 'doubleValue':
          return T.double;
        case 'stringValue':
          return T.string;
        case 'bytesValue':
          return T.bytes;
        case 'boolValue':
          return T.bool;
        case 'nullValue':
          return T.null;
        default:
          return T.dyn;
      }
    case 'identExpr': {
      const t = scope.get(k.value.name);
      if (t) return t;
      return CEL_TYPE_NAMES.has(k.value.name) ? T.type : T.dyn;
    }
    case 'selectExpr': {
      const operand = typeOf(k.value.operand, scope);
      const field = selectField(operand, k.value.field, e.id);
      return k.value.testOnly ? T.bool : field;
    }
    case 'listExpr': {
      // kube's environment has cel.HomogeneousAggregateLiterals: a literal's elements share a type
      let elem: CelT | undefined;
      for (const x of k.value.elements) elem = joinLiteral(elem, typeOf(x, scope), x.id);
      return list(elem ?? T.dyn);
    }
    case 'structExpr': {
      if (k.value.messageName !== '') return T.dyn;
      let key: CelT | undefined;
      let value: CelT | undefined;
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey')
          key = joinLiteral(key, typeOf(en.keyKind.value, scope), en.keyKind.value.id);
        else key = T.string;
        value = joinLiteral(value, typeOf(en.value, scope), en.value?.id ?? e.id);
      }
      return map(key ?? T.dyn, value ?? T.dyn);
    }
    case 'comprehensionExpr': {
      const c = k.value;
      const range = typeOf(c.iterRange, scope);
      const inner = new Map(scope);
      const elem =
        range.k === 'list'
          ? range.elem
          : range.k === 'map'
            ? range.key
            : range.k === 'object'
              ? T.string
              : T.dyn;
      // an object iterates as the map it is at run time here (cel-go may refuse it)
      if (range.k !== 'list' && range.k !== 'map' && range.k !== 'object' && !isDyn(range))
        throw new CelTypeError(
          `expression of type '${typeName(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
          c.iterRange?.id ?? e.id,
        );
      inner.set(c.iterVar, elem);
      if (c.iterVar2) inner.set(c.iterVar2, range.k === 'map' ? range.value : T.dyn);
      inner.set(c.accuVar, typeOf(c.accuInit, scope));
      typeOf(c.loopCondition, inner);
      const step = typeOf(c.loopStep, inner);
      inner.set(c.accuVar, step);
      return typeOf(c.result, inner);
    }
    case 'callExpr':
      return callType(e, scope);
    default:
      return T.dyn;
  }
}

/** The element type of an aggregate literal so far, joined with the next one (cel-go's joinTypes). */
function joinLiteral(previous: CelT | undefined, current: CelT, id: bigint): CelT {
  if (previous === undefined) return current;
  if (unify(previous, current)) return join(previous, current);
  throw new CelTypeError(`expected type '${typeName(previous)}' but found '${typeName(current)}'`, id);
}

/**
 * kube's AST validators (ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals):
 * a literal first argument of `duration`, `timestamp` or `matches` must be valid.
 */
function checkLiterals(e: Expr | undefined): void {
  if (!e) return;
  const k = e.exprKind;
  switch (k.case) {
    case 'callExpr': {
      const arg = k.value.args[0]?.exprKind;
      const literal =
        arg?.case === 'constExpr' && arg.value.constantKind.case === 'stringValue'
          ? arg.value.constantKind.value
          : undefined;
      const check = LITERAL_CHECKS[k.value.function];
      if (literal !== undefined && check && !check(literal))
        throw new CelTypeError(`invalid ${k.value.function} argument`, k.value.args[0]?.id ?? e.id);
      checkLiterals(k.value.target);
      k.value.args.forEach(checkLiterals);
      return;
    }
    case 'selectExpr':
      return checkLiterals(k.value.operand);
    case 'listExpr':
      return k.value.elements.forEach(checkLiterals);
    case 'structExpr':
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') checkLiterals(en.keyKind.value);
        checkLiterals(en.value);
      }
      return;
    case 'comprehensionExpr': {
      const c = k.value;
      for (const x of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) checkLiterals(x);
      return;
    }
    default:
      return;
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const LITERAL_CHECKS: Record<string, (s: string) => boolean> = {
  duration: (s) => parseGoDuration(s) !== undefined,
  // Go's time.Parse(time.RFC3339, ...): fields in range, a zone, no leap second
  timestamp: (s) => {
    const m = RFC3339.exec(s);
    if (!m) return false;
    const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
    return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h < 24 && mi < 60 && sec < 60;
  },
  matches: (s) => {
    try {
      compileRe2(s);
      return true;
    } catch {
      return false;
    }
  },
};

function selectField(operand: CelT, field: string, id: bigint): CelT {
  switch (operand.k) {
    case 'object': {
      const t = operand.fields.get(field);
      if (t) return t;
      throw new CelTypeError(`undefined field '${field}'`, id);
    }
    case 'map':
      return operand.value;
    case 'dyn':
      return T.dyn;
    case 'optional':
      return optional(selectField(operand.inner, field, id));
    default:
      throw new CelTypeError(`type '${typeName(operand)}' does not support field selection`, id);
  }
}

function noOverload(fn: string, args: CelT[], id: bigint, receiver?: CelT): CelTypeError {
  const list = `(${args.map(typeName).join(', ')})`;
  return new CelTypeError(
    `found no matching overload for '${fn}' applied to '${receiver ? `${typeName(receiver)}.` : ''}${list}'`,
    id,
    /^_.*_$|^[-!]_$|^@in$/.test(fn) ? 'operator' : 'call',
  );
}

function arithmetic(fn: string, a: CelT, b: CelT): CelT | undefined {
  if (isDyn(a) || isDyn(b)) {
    const known = isDyn(a) ? b : a;
    if (fn === '_+_' && (known.k === 'list' || known.k === 'string' || known.k === 'bytes')) return known;
    return NUMERIC.has(known.k) ? known : T.dyn;
  }
  if (a.k === b.k) {
    if (NUMERIC.has(a.k)) return fn === '_%_' && a.k === 'double' ? undefined : a;
    if (fn === '_+_' && (a.k === 'string' || a.k === 'bytes')) return a;
    if (fn === '_+_' && a.k === 'list' && b.k === 'list')
      return unify(a.elem, b.elem) ? list(join(a.elem, b.elem)) : undefined;
    if (a.k === 'duration' && (fn === '_+_' || fn === '_-_')) return T.duration;
    if (a.k === 'timestamp' && fn === '_-_') return T.duration;
    return undefined;
  }
  if (fn === '_+_' && a.k === 'timestamp' && b.k === 'duration') return T.timestamp;
  if (fn === '_+_' && a.k === 'duration' && b.k === 'timestamp') return T.timestamp;
  if (fn === '_-_' && a.k === 'timestamp' && b.k === 'duration') return T.timestamp;
  return undefined;
}

const STRING_PREDICATES = new Set(['contains', 'startsWith', 'endsWith', 'matches']);

const CONVERSIONS: Record<string, CelT> = {
  int: T.int,
  uint: T.uint,
  double: T.double,
  string: T.string,
  bytes: T.bytes,
  bool: T.bool,
  duration: T.duration,
  timestamp: T.timestamp,
  dyn: T.dyn,
  type: T.type,
};

function callType(e: Expr, scope: Scope): CelT {
  if (e.exprKind.case !== 'callExpr') return T.dyn;
  const call = e.exprKind.value;
  const fn = call.function;
  const target = call.target ? typeOf(call.target, scope) : undefined;
  const args = call.args.map((a) => typeOf(a, scope));
  const [a, b] = args;
  switch (fn) {
    case '_==_':
    case '_!=_':
      // null compares with anything here (kube's nullable fields); cel-go is stricter
      if (a.k !== 'null' && b.k !== 'null' && !unify(a, b)) throw noOverload(fn, args, e.id);
      return T.bool;
    case '_<_':
    case '_<=_':
    case '_>_':
    case '_>=_':
      if (isDyn(a) || isDyn(b)) return T.bool;
      if (NUMERIC.has(a.k) && NUMERIC.has(b.k)) return T.bool;
      if (a.k === b.k && ORDERED.has(a.k)) return T.bool;
      throw noOverload(fn, args, e.id);
    case '_+_':
    case '_-_':
    case '_*_':
    case '_/_':
    case '_%_': {
      const r = arithmetic(fn, a, b);
      if (!r) throw noOverload(fn, args, e.id);
      return r;
    }
    case '-_':
      if (isDyn(a) || a.k === 'int' || a.k === 'double') return a;
      throw noOverload(fn, args, e.id);
    case '!_':
      if (isDyn(a) || a.k === 'bool') return T.bool;
      throw noOverload(fn, args, e.id);
    case '_&&_':
    case '_||_':
      if (args.every((x) => isDyn(x) || x.k === 'bool')) return T.bool;
      throw noOverload(fn, args, e.id);
    case '_?_:_':
      if ((isDyn(a) || a.k === 'bool') && unify(args[1], args[2])) return join(args[1], args[2]);
      if (!isDyn(a) && a.k !== 'bool') throw noOverload(fn, args, e.id);
      if (args[1].k === 'null' || args[2].k === 'null') return args[1].k === 'null' ? args[2] : args[1];
      throw noOverload(fn, args, e.id);
    case '@in':
      if (b.k === 'list' && !unify(a, b.elem)) throw noOverload(fn, args, e.id);
      if (b.k === 'map' && !unify(a, b.key)) throw noOverload(fn, args, e.id);
      if (!isDyn(b) && b.k !== 'list' && b.k !== 'map' && b.k !== 'object') throw noOverload(fn, args, e.id);
      return T.bool;
    case '_[_]':
      if (a.k === 'list') {
        if (!isDyn(b) && b.k !== 'int' && b.k !== 'uint') throw noOverload(fn, args, e.id);
        return a.elem;
      }
      if (a.k === 'map') {
        if (!unify(a.key, b)) throw noOverload(fn, args, e.id);
        return a.value;
      }
      if (a.k === 'optional') return optional(T.dyn);
      if (isDyn(a) || a.k === 'object') return T.dyn;
      throw noOverload(fn, args, e.id);
    case OPT_HAS:
      return T.bool;
    case OPT_LIST:
      return list(T.dyn);
    case OPT_MAP:
      return map(T.dyn, T.dyn);
    case OPT_SELECT:
    case OPT_FIELD: {
      const field = call.args[1]?.exprKind;
      const name =
        field?.case === 'constExpr' && field.value.constantKind.case === 'stringValue'
          ? field.value.constantKind.value
          : '';
      const inner = a.k === 'optional' ? a.inner : a;
      const t = selectField(inner, name, e.id);
      return t.k === 'optional' ? t : optional(t);
    }
    case OPT_INDEX:
    case OPT_ELEMENT: {
      const inner = a.k === 'optional' ? a.inner : a;
      if (inner.k === 'list') return optional(inner.elem);
      if (inner.k === 'map') return optional(inner.value);
      return optional(T.dyn);
    }
    case 'size': {
      const of = target ?? a;
      // an object is a map to this server's runtime; cel-go may be stricter
      if (isDyn(of) || ['string', 'bytes', 'list', 'map', 'object'].includes(of.k)) return T.int;
      throw target ? noOverload(fn, args, e.id, target) : noOverload(fn, args, e.id);
    }
    case 'optional.of':
    case 'optional.ofNonZeroValue':
      return optional(a ?? T.dyn);
    case 'optional.none':
      return optional(T.dyn);
    case 'hasValue':
      return target?.k === 'optional' || (target && isDyn(target)) ? T.bool : T.dyn;
    case 'value':
      return target?.k === 'optional' ? target.inner : T.dyn;
    case 'or':
      return target?.k === 'optional' ? target : T.dyn;
    case 'orValue':
      return target?.k === 'optional' ? (isDyn(target.inner) ? (a ?? T.dyn) : target.inner) : T.dyn;
    default:
      break;
  }
  if (target && STRING_PREDICATES.has(fn) && args.length === 1) {
    if ((isDyn(target) || target.k === 'string') && (isDyn(a) || a.k === 'string')) return T.bool;
    throw noOverload(fn, args, e.id, target);
  }
  if (target && TIME_PARTS.has(fn)) {
    if (
      isDyn(target) ||
      target.k === 'timestamp' ||
      (target.k === 'duration' &&
        fn.startsWith('get') &&
        ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'].includes(fn))
    )
      return T.int;
    throw noOverload(fn, args, e.id, target);
  }
  if (!target && fn in CONVERSIONS && args.length === 1) return CONVERSIONS[fn];
  if (fn === '@not_strictly_false' || fn === 'not_strictly_false') return T.bool;
  return T.dyn;
}

/** A type error as cel-go prints it: `ERROR: <input>:1:11: message`, the line and a caret under the column. */
function format(text: string, offset: number, message: string): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = [...text.slice(lineStart, offset)].length;
  const lineText = text.slice(lineStart).split('\n')[0].replaceAll('\t', ' ');
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${lineText}\n | ${'.'.repeat(column)}^`;
}

/**
 * An error at expression `exprId` of a parsed rule as cel-go prints it (`ERROR: <input>:L:C: ...`,
 * the line and a caret); `at: 'call'` places it at the call's opening parenthesis, as cel-go does.
 */
export function formatCelError(
  parsed: { sourceInfo?: SourceInfo },
  text: string,
  exprId: bigint,
  message: string,
  at: 'operator' | 'call' | 'expr' = 'expr',
): string {
  let offset = parsed.sourceInfo?.positions[exprId.toString()] ?? 0;
  // @bufbuild/cel places an operator where the whitespace before it starts and a call at its
  // name; cel-go at the operator itself and at the call's opening parenthesis
  if (at === 'operator') while (/\s/.test(text[offset] ?? '')) offset++;
  if (at === 'call') {
    const paren = text.indexOf('(', offset);
    if (paren >= 0) offset = paren;
  }
  return format(text, offset, message);
}

/**
 * Type-checks a parsed rule against its variables' types: the expression's type, and the first
 * problem as cel-go prints it (`ERROR: <input>:L:C: ...` with the source line and a caret).
 */
export function checkTypes(
  parsed: { expr?: Expr; sourceInfo?: SourceInfo },
  text: string,
  vars: Scope,
): { error?: string; type: CelT } {
  try {
    const type = typeOf(parsed.expr, vars);
    checkLiterals(parsed.expr);
    return { type };
  } catch (err) {
    if (!(err instanceof CelTypeError)) throw err;
    return { error: formatCelError(parsed, text, err.exprId, err.message, err.at), type: T.dyn };
  }
}

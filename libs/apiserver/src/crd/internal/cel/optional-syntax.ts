/**
 * cel-go's optional selection syntax, which @bufbuild/cel 0.6.1 does not parse: `a.?b` (the field
 * if present, as an optional) and `a[?k]` (the index or key if present). Before parsing, each is
 * written in plain CEL with a marker (`a.__opt__b`, `a[__opt__(k)]`); after parsing, the marked
 * nodes become calls (cel-go's `_?._` and `_[?_]`, see {@link OPT_SELECT}), and a selection or index
 * on such an optional result propagates it (`a.?b.c` is an optional). The positions of the parsed
 * expression are mapped back to the original text, so errors point where the user wrote. The
 * functions the marked nodes call are in lib-optional.ts.
 */
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

const FIELD_MARK = '__opt__';
const INDEX_MARK = '__opt__(';
const ELEMENT_MARK = '__optelement__(';
const KEY_MARK = '__optkey__(';

/** A text rewritten for the parser, with what maps its offsets back to the original. */
export interface Rewritten {
  text: string;
  /** Offsets of the rewritten text where `delta` characters were inserted. */
  inserts: { at: number; delta: number }[];
}

/** The index after the string literal starting at `i` (at its quote or its r/R/b/B prefix). */
function stringEnd(text: string, i: number): number {
  let raw = false;
  let j = i;
  while (/[rRbB]/.test(text[j])) {
    if (text[j] === 'r' || text[j] === 'R') raw = true;
    j++;
  }
  const q = text[j];
  const triple = text.startsWith(q.repeat(3), j);
  const close = triple ? q.repeat(3) : q;
  j += close.length;
  while (j < text.length) {
    if (!raw && text[j] === '\\') {
      j += 2;
      continue;
    }
    if (text.startsWith(close, j)) return j + close.length;
    if (!triple && text[j] === '\n') return j;
    j++;
  }
  return j;
}

type FrameKind = 'index' | 'optindex' | 'list' | 'map' | 'struct' | 'paren';

/**
 * Rewrites `.?f`, `x[?k]`, optional list elements `[?e]` and optional map entries `{?k: v}` into
 * marked plain CEL; other text is left as it is.
 */
export function rewriteOptionalSyntax(text: string): Rewritten {
  if (!text.includes('?')) return { text, inserts: [] };
  let out = '';
  const inserts: { at: number; delta: number }[] = [];
  const frames: { kind: FrameKind; open: boolean }[] = [];
  const top = (): { kind: FrameKind; open: boolean } | undefined => frames[frames.length - 1];
  const insert = (s: string, replaced: number): void => {
    out += s;
    inserts.push({ at: out.length - s.length, delta: s.length - replaced });
  };
  const closeElement = (): void => {
    const f = top();
    if (f?.open) {
      insert(')', 0);
      f.open = false;
    }
  };
  /** At the start of a list element or map key: a leading `?` becomes a marker call. */
  const elementStart = (from: number): number => {
    const f = top();
    if (f?.kind !== 'list' && f?.kind !== 'map') return from;
    let j = from;
    while (j < text.length && /\s/.test(text[j])) j++;
    if (text[j] !== '?') return from;
    out += text.slice(from, j);
    insert(f.kind === 'list' ? ELEMENT_MARK : KEY_MARK, 1);
    f.open = true;
    return j + 1;
  };
  let prev = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const quoteAt = /^[rRbB]{0,2}['"]/.exec(text.slice(i, i + 3));
    if (quoteAt && (quoteAt[0].length === 1 || !/[A-Za-z0-9_]/.test(prev))) {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      prev = '"';
      i = end;
      continue;
    }
    if (c === '.' && text[i + 1] === '?') {
      out += '.';
      insert(FIELD_MARK, 1);
      i += 2;
      prev = '_';
      continue;
    }
    const operand = /[A-Za-z0-9_)\]}"']/.test(prev);
    if (c === '[') {
      if (operand && text[i + 1] === '?') {
        out += '[';
        insert(INDEX_MARK, 1);
        frames.push({ kind: 'optindex', open: false });
        i += 2;
        prev = '(';
        continue;
      }
      out += c;
      frames.push({ kind: operand ? 'index' : 'list', open: false });
      i = elementStart(i + 1);
      prev = c;
      continue;
    }
    if (c === '{') {
      out += c;
      frames.push({ kind: /[A-Za-z0-9_]/.test(prev) ? 'struct' : 'map', open: false });
      i = elementStart(i + 1);
      prev = c;
      continue;
    }
    if (c === '(') frames.push({ kind: 'paren', open: false });
    if (c === ',') {
      closeElement();
      out += c;
      i = elementStart(i + 1);
      prev = c;
      continue;
    }
    if (c === ':' && top()?.kind === 'map') closeElement();
    if (c === ']' || c === '}' || c === ')') {
      closeElement();
      if (frames.pop()?.kind === 'optindex') insert(')', 0);
    }
    out += c;
    if (!/\s/.test(c)) prev = c;
    i++;
  }
  return inserts.length === 0 ? { text, inserts } : { text: out, inserts };
}

/** The original offset of an offset in the rewritten text. */
export function originalOffset(rewritten: Rewritten, offset: number): number {
  let o = offset;
  for (const ins of rewritten.inserts) {
    if (ins.at >= offset) break;
    o -= ins.at + ins.delta <= offset ? ins.delta : offset - ins.at;
  }
  return Math.max(0, o);
}

/**
 * The functions the optional forms become. cel-go names them `_?._` and `_[?_]`; @bufbuild/cel
 * 0.6.1's planner claims those names but yields no optional value (an absent field is an
 * "unresolved attribute" error), so they are called by names of this library's own.
 */
export const OPT_SELECT = '@optselect';
/** See {@link OPT_SELECT}. */
export const OPT_INDEX = '@optindex';
/**
 * A plain selection of an optional result (`a.?b.c`): none stays none and so does a field the
 * value's map lacks; selecting from a value that is no map or list is an error (as cel-go).
 */
export const OPT_FIELD = '@optfield';
/** A plain index of an optional result (`a.?b[0]`), as {@link OPT_FIELD}. */
export const OPT_ELEMENT = '@optelement';
/** `has()` of a selection of an optional result (`has(a.?b.c)`). */
export const OPT_HAS = '@opthas';
/** A list literal with optional elements (`[?a, b]`): the list and the indices of those elements. */
export const OPT_LIST = '@optlist';
/** A map literal with optional entries (`{?k: v}`): the map and the keys of those entries. */
export const OPT_MAP = '@optmap';

const OPTIONAL_FUNCTIONS = new Set([OPT_SELECT, OPT_INDEX, OPT_FIELD, OPT_ELEMENT]);

/**
 * Turns the marked nodes of a parsed rewritten expression into optional selection and index calls, in place,
 * and makes a plain selection or index of an optional result optional too (as cel-go does).
 */
export function desugarOptionals(root: Expr): void {
  let next = maxId(root);
  desugar(root, () => ++next);
}

function maxId(e: Expr | undefined): bigint {
  if (!e) return 0n;
  let m = e.id;
  const k = e.exprKind;
  const kids: (Expr | undefined)[] =
    k.case === 'selectExpr'
      ? [k.value.operand]
      : k.case === 'callExpr'
        ? [k.value.target, ...k.value.args]
        : k.case === 'listExpr'
          ? k.value.elements
          : k.case === 'structExpr'
            ? k.value.entries.flatMap((en) => [
                en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined,
                en.value,
              ])
            : k.case === 'comprehensionExpr'
              ? [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result]
              : [];
  for (const c of kids) {
    const x = maxId(c);
    if (x > m) m = x;
  }
  return m;
}

function desugar(e: Expr | undefined, newId: () => bigint): void {
  if (!e) return;
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr': {
      const operand = k.value.operand;
      desugar(operand, newId);
      const marked = k.value.field.startsWith(FIELD_MARK);
      if (operand && (marked || isOptionalCall(operand))) {
        const field = marked ? k.value.field.slice(FIELD_MARK.length) : k.value.field;
        e.exprKind = {
          case: 'callExpr',
          value: {
            $typeName: 'cel.expr.Expr.Call',
            function: k.value.testOnly ? OPT_HAS : marked ? OPT_SELECT : OPT_FIELD,
            args: [
              operand,
              {
                $typeName: 'cel.expr.Expr',
                id: newId(),
                exprKind: {
                  case: 'constExpr',
                  value: {
                    $typeName: 'cel.expr.Constant',
                    constantKind: { case: 'stringValue', value: field },
                  },
                },
              },
            ],
          },
        };
      }
      return;
    }
    case 'callExpr': {
      const call = k.value;
      desugar(call.target, newId);
      for (const a of call.args) desugar(a, newId);
      if (call.function === '_[_]' && call.args.length === 2) {
        const key = call.args[1];
        const mark =
          key.exprKind.case === 'callExpr' &&
          key.exprKind.value.function === FIELD_MARK &&
          !key.exprKind.value.target &&
          key.exprKind.value.args.length === 1
            ? key.exprKind.value.args[0]
            : undefined;
        if (mark) {
          call.function = OPT_INDEX;
          call.args = [call.args[0], mark];
        } else if (isOptionalCall(call.args[0])) call.function = OPT_ELEMENT;
      }
      if (
        (call.function === 'optMap' || call.function === 'optFlatMap') &&
        call.target &&
        call.args.length === 2 &&
        call.args[0].exprKind.case === 'identExpr'
      )
        e.exprKind = optMapMacro(
          call.function,
          call.target,
          call.args[0].exprKind.value.name,
          call.args[1],
          newId,
        );
      return;
    }
    case 'listExpr': {
      const optional: bigint[] = [];
      k.value.elements.forEach((el, i) => {
        desugar(el, newId);
        const inner = markedArg(el, ELEMENT_MARK);
        if (inner) {
          k.value.elements[i] = inner;
          optional.push(BigInt(i));
        }
      });
      if (optional.length > 0) {
        const list = node(newId(), { case: 'listExpr', value: k.value });
        const indices = optional.map((n) => constNode(newId(), { case: 'int64Value', value: n }));
        e.exprKind = callNode(0n, OPT_LIST, [list, listNode(newId(), indices)]).exprKind;
      }
      return;
    }
    case 'structExpr': {
      const keys: Expr[] = [];
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') {
          desugar(en.keyKind.value, newId);
          const inner = markedArg(en.keyKind.value, KEY_MARK);
          if (inner) {
            en.keyKind.value = inner;
            keys.push(cloneExpr(inner, newId));
          }
        }
        desugar(en.value, newId);
      }
      if (keys.length > 0 && k.value.messageName === '') {
        const map = node(newId(), { case: 'structExpr', value: k.value });
        e.exprKind = callNode(0n, OPT_MAP, [map, listNode(newId(), keys)]).exprKind;
      }
      return;
    }
    case 'comprehensionExpr': {
      const c = k.value;
      for (const x of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) desugar(x, newId);
      return;
    }
    default:
      return;
  }
}

const node = (id: bigint, exprKind: unknown): Expr => ({ $typeName: 'cel.expr.Expr', id, exprKind }) as Expr;
const constNode = (id: bigint, constantKind: unknown): Expr =>
  node(id, { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind } });
const listNode = (id: bigint, elements: Expr[]): Expr =>
  node(id, {
    case: 'listExpr',
    value: { $typeName: 'cel.expr.Expr.CreateList', elements, optionalIndices: [] },
  });

/** The argument of a marker call (`__optkey__(k)` gives `k`), or undefined. */
function markedArg(e: Expr, mark: string): Expr | undefined {
  const fn = mark.slice(0, -1);
  const k = e.exprKind;
  return k.case === 'callExpr' && k.value.function === fn && !k.value.target && k.value.args.length === 1
    ? k.value.args[0]
    : undefined;
}
const callNode = (id: bigint, fn: string, args: Expr[], target?: Expr): Expr =>
  node(id, {
    case: 'callExpr',
    value: { $typeName: 'cel.expr.Expr.Call', function: fn, args, ...(target ? { target } : {}) },
  });

/** A copy of an expression with fresh ids (an expression used twice in a macro's expansion). */
function cloneExpr(e: Expr, newId: () => bigint): Expr {
  const copy = structuredClone(e);
  const renumber = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach(renumber);
    const o = x as Record<string, unknown>;
    if (o.$typeName === 'cel.expr.Expr') o.id = newId();
    Object.values(o).forEach(renumber);
  };
  renumber(copy);
  return copy;
}

/**
 * cel-go's `opt.optMap(v, expr)` and `opt.optFlatMap(v, expr)` macros: `opt.hasValue() ?
 * optional.of(expr with v = opt.value()) : optional.none()` (optFlatMap without the `optional.of`,
 * its expression being an optional already); `v` is bound by a comprehension over no items.
 */
function optMapMacro(fn: string, target: Expr, v: string, body: Expr, newId: () => bigint): Expr['exprKind'] {
  const bound = node(newId(), {
    case: 'comprehensionExpr',
    value: {
      $typeName: 'cel.expr.Expr.Comprehension',
      iterVar: '#unused',
      iterVar2: '',
      iterRange: node(newId(), {
        case: 'listExpr',
        value: { $typeName: 'cel.expr.Expr.CreateList', elements: [], optionalIndices: [] },
      }),
      accuVar: v,
      accuInit: callNode(newId(), 'value', [], cloneExpr(target, newId)),
      loopCondition: node(newId(), {
        case: 'constExpr',
        value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } },
      }),
      loopStep: node(newId(), { case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name: v } }),
      result: body,
    },
  });
  const mapped = fn === 'optMap' ? callNode(newId(), 'optional.of', [bound]) : bound;
  const whenNone = callNode(newId(), 'optional.none', []);
  return callNode(0n, '_?_:_', [callNode(newId(), 'hasValue', [], target), mapped, whenNone]).exprKind;
}

function isOptionalCall(e: Expr): boolean {
  return e.exprKind.case === 'callExpr' && OPTIONAL_FUNCTIONS.has(e.exprKind.value.function);
}
